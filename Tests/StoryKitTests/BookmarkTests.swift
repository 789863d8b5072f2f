import Foundation
import StoryKitTestSupport
import Testing

@testable import StoryKit

/// Bookmarks and notes (issue 46): `b` marks the word heard and reading goes on, `n` or `bookmark
/// note` gives it a note, the narration is asked for a tone where one is passed, and the bookmarks
/// screen lists them, reads from one and deletes one.
@Suite struct BookmarkTests {
    static let pip = "pip-and-the-puddle"

    func spoken(_ effects: [Effect]) -> [String] {
        effects.compactMap { if case .speak(let utterance) = $0 { utterance.text } else { nil } }
    }

    func saved(_ effects: [Effect]) -> [StoreChange] {
        effects.compactMap { if case .save(let change) = $0 { change } else { nil } }
    }

    /// Maya, reading Pip and the Puddle, at word `word` of its third sentence.
    func reading(atWordOfThirdSentence offset: Int = 2) -> (Session, Story, Int) {
        var session = Session(
            catalog: SessionFixtures.catalog,
            snapshot: SessionSnapshot(profiles: [ChildProfile(id: 1, name: "Maya", age: 5, interests: ["animals"])]), profile: "Maya")
        _ = session.start()
        _ = session.handle(.command(.read("pip")))
        let story = session.state.reader!.story
        let word = story.sentences[0].words.count + story.sentences[1].words.count + offset
        _ = session.handle(.narration(.sentenceStarted(2)))
        _ = session.handle(.narration(.word(word)))
        return (session, story, word)
    }

    @Test func bSavesABookmarkAtTheWordHeardAndReadingGoesOn() throws {
        var (session, story, word) = reading()
        let effects = session.handle(.key(.character("b")))
        let heard = Session.bare(story.words[word].text)
        #expect(spoken(effects) == ["Bookmark saved at ‘\(heard)’, sentence 3."])
        #expect(!effects.contains(.pauseNarration) && !effects.contains(.stopNarration), "reading goes on")
        #expect(session.state.reader?.status == .playing)
        let change = try #require(saved(effects).first)
        guard case .saveBookmark(let profile, let bookmark) = change else {
            Issue.record("saved \(change)")
            return
        }
        #expect(profile == 1)
        #expect(bookmark.story == Self.pip && bookmark.word == word && bookmark.sentence == 2 && bookmark.text == heard && bookmark.note == nil)
        #expect(session.state.snapshot.bookmarks["Maya"] == [bookmark])
        // The same word again is one bookmark, said so.
        let again = session.handle(.command(.bookmark))
        #expect(spoken(again) == ["‘\(heard)’, sentence 3 has a bookmark already."])
        #expect(saved(again).isEmpty)
    }

    @Test func aNoteIsSanitizedCutAndSavedWithTheBookmark() throws {
        var (session, _, _) = reading()
        _ = session.handle(.command(.bookmark))
        let effects = session.handle(.command(.bookmarkNote("the \u{1B}[31mfox is\u{202E} funny")))
        #expect(spoken(effects) == ["Note saved: the fox is funny."], "the escape sequence and the bidi control are gone")
        guard case .saveBookmark(_, let bookmark)? = saved(effects).first else {
            Issue.record("nothing saved")
            return
        }
        #expect(bookmark.note == "the fox is funny")
        #expect(session.state.snapshot.bookmarks["Maya"]?.first?.note == "the fox is funny")
        let long = String(repeating: "a", count: Bookmark.noteLength + 50)
        let cut = session.handle(.command(.bookmarkNote(long)))
        #expect(spoken(cut).first?.hasPrefix("Note saved, cut to 200 characters:") == true)
        #expect(session.state.snapshot.bookmarks["Maya"]?.first?.note?.count == Bookmark.noteLength)
    }

    @Test func nOpensTheNoteLineWithTheStoryPausedAndEscapeKeepsTheBookmark() throws {
        var (session, _, _) = reading()
        _ = session.handle(.key(.character("b")))
        let opened = session.handle(.key(.character("n")))
        #expect(opened.contains(.openCommandLine("bookmark note ")))
        #expect(opened.contains(.pauseNarration))
        #expect(spoken(opened).first?.hasPrefix("Note for the bookmark at ‘") == true)
        let cancelled = session.handle(.shell(.commandLineCancelled))
        #expect(cancelled.contains { if case .speak(let said) = $0 { said.text == "The bookmark is kept without a note." } else { false } })
        #expect(
            cancelled.contains { if case .narrate = $0 { true } else if case .resumeNarration = $0 { true } else { false } },
            "reading goes on after the note's line")
        #expect(session.state.snapshot.bookmarks["Maya"]?.count == 1)
        #expect(session.state.snapshot.bookmarks["Maya"]?.first?.note == nil)
        // Without a bookmark made, n says how.
        var (fresh, _, _) = reading()
        #expect(spoken(fresh.handle(.key(.character("n")))) == ["Make a bookmark first: press b while reading, then n types its note."])
    }

    @Test func theNarrationIsToldWhereTheTonesAreAndTheirSentenceIsCaptioned() throws {
        var (session, story, word) = reading()
        _ = session.handle(.command(.bookmark))
        #expect(session.bookmarkTones.map(\.word) == [word])
        #expect(session.bookmarkTones.map(\.label) == ["bookmark 1 at word \(word + 1)"])
        // Read again from the start: the caption "Bookmark." comes with the third sentence only.
        _ = session.handle(.key(.home))
        for sentence in 0..<4 {
            let effects = session.handle(.narration(.sentenceStarted(sentence)))
            let captions = effects.compactMap { if case .caption(let text) = $0 { text } else { nil } }
            #expect(captions.contains("Bookmark.") == (sentence == 2), "sentence \(sentence): \(captions)")
        }
        // Resumed inside the sentence after the bookmark: nothing is passed.
        _ = session.handle(.narration(.word(word + 1)))
        _ = session.handle(.key(.space))
        _ = session.handle(.key(.space))
        let resumed = session.handle(.narration(.sentenceStarted(story.sentence(containingWord: word))))
        #expect(!resumed.contains(.caption("Bookmark.")))
    }

    @Test func theListSaysEachBookmarkEnterReadsFromItAndDeleteRemovesIt() throws {
        var (session, story, word) = reading()
        _ = session.handle(.command(.bookmark))
        _ = session.handle(.command(.bookmarkNote("splash")))
        let opened = session.handle(.key(.character("B")))
        #expect(session.state.route == .bookmarks(Self.pip))
        #expect(opened.contains(.pauseNarration), "the story waits while the list is open")
        let heard = Session.bare(story.words[word].text)
        let label = "‘\(heard)’, sentence 3, Pip and the Puddle: splash"
        #expect(spoken(opened).last?.hasPrefix("Bookmarks in Pip and the Puddle. \(label), button. Press Enter to read from here") == true, "\(spoken(opened))")
        let element = try #require(session.focusedElement)
        #expect(element.label == label && element.traits.contains(.button))
        #expect(element.customActions.map(\.name) == ["Read from here", "Delete"])
        #expect(AccessibilityAudit.problems(of: session.screen).isEmpty)
        // Where am I and learn mode work there.
        let whereAmI = spoken(session.handle(.command(.whereAmI)))
        #expect(whereAmI.first?.hasPrefix("You are on Bookmarks in Pip and the Puddle. Item 2 of 2: \(label)") == true, "\(whereAmI)")
        #expect(whereAmI.first?.contains("Reading Pip and the Puddle, paused.") == true, "\(whereAmI)")
        #expect(KeyHelp.describe(.delete, route: .bookmarks(Self.pip), focused: element) == "Delete: deletes the focused bookmark, and says so.")
        // Enter reads from it.
        let read = session.handle(.key(.enter))
        #expect(session.state.route == .reader)
        #expect(read.contains { if case .narrate(_, let from, _, _) = $0 { from == word } else { false } })
        #expect(!session.state.stack.contains(.bookmarks(Self.pip)))
        // Delete removes it, said, and saved.
        _ = session.handle(.command(.bookmarks(all: true)))
        #expect(session.state.route == .bookmarks(nil))
        let deleted = session.handle(.key(.delete))
        #expect(spoken(deleted).first == "Bookmark at ‘\(heard)’, sentence 3 deleted.")
        #expect(saved(deleted).count == 1)
        if case .removeBookmark(1, _)? = saved(deleted).first {} else { Issue.record("\(saved(deleted))") }
        #expect(session.state.snapshot.bookmarks["Maya"]?.isEmpty == true)
        #expect(session.focusedElement?.id == "empty" || session.focusedElement?.id == "heading")
    }

    @Test func theLibrarysStoryOffersItsBookmarksOnceItHasSome() throws {
        var (session, _, _) = reading()
        _ = session.handle(.command(.bookmark))
        _ = session.handle(.command(.home))
        let card = try #require(FocusEngine(screen: session.screen).order.first { $0.id.hasSuffix("/" + Self.pip) })
        #expect(card.customActions.map(\.id).contains("bookmarks"))
        let other = try #require(FocusEngine(screen: session.screen).order.first { $0.id.contains("/") && !$0.id.hasSuffix("/" + Self.pip) })
        #expect(!other.customActions.map(\.id).contains("bookmarks"), "a story without bookmarks says nothing more")
        session.state.focusedID = card.id
        _ = session.handle(.command(.action("bookmarks")))
        #expect(session.state.route == .bookmarks(Self.pip))
    }

    @Test func scriptsSayBookmarkAndBookmarkNote() throws {
        #expect(try CommandParser.parse("bookmark") == .bookmark)
        #expect(try CommandParser.parse("bookmark note the fox is funny") == .bookmarkNote("the fox is funny"))
        #expect(try CommandParser.parse("bookmarks all") == .bookmarks(all: true))
        #expect(try CommandParser.parse("b") == .back, "b stays back in scripts")
        #expect(throws: CommandError.self) { try CommandParser.parse("bookmark note") }
    }
}
