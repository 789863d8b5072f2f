import Foundation
import StoryKitTestSupport
import Testing

@testable import StoryKit

/// The reader: one reading mode for the REPL, the kiosk and `storyreader read`, with its own keys,
/// pause and resume at the word, and the place said in the child's words.
@Suite struct ReaderTests {
    static let pip = "pip-and-the-puddle"

    func maya(readings: [String: ReadingRecord] = [:], inProgress: String? = nil) -> SessionSnapshot {
        SessionSnapshot(
            profiles: [ChildProfile(id: 1, name: "Maya", age: 5, interests: ["animals"])],
            readings: readings.isEmpty ? [:] : ["Maya": readings], inProgress: inProgress.map { ["Maya": $0] } ?? [:])
    }

    func spoken(_ effects: [Effect]) -> [String] {
        effects.compactMap { if case .speak(let utterance) = $0 { utterance.text } else { nil } }
    }

    func captions(_ effects: [Effect]) -> [String] {
        effects.compactMap { if case .caption(let text) = $0 { text } else { nil } }
    }

    func narrated(_ effects: [Effect]) -> Int? {
        effects.lazy.compactMap { if case .narrate(_, let word, _, _) = $0 { word } else { nil } }.first
    }

    /// The word reading goes on from: told anew from it, or resumed where the speech service holds
    /// the paused story (the reader's word).
    func goesOn(_ effects: [Effect], _ session: Session) -> Int? {
        narrated(effects) ?? (effects.contains { if case .resumeNarration = $0 { true } else { false } } ? session.state.reader?.wordIndex : nil)
    }

    /// Maya, reading Pip and the Puddle (6 pages), with the first sentence heard.
    func reading() -> (Session, Story) {
        var session = Session(catalog: SessionFixtures.catalog, snapshot: maya(), profile: "Maya")
        _ = session.start()
        _ = session.handle(.command(.read("pip")))
        _ = session.handle(.narration(.sentenceStarted(0)))
        return (session, session.state.reader!.story)
    }

    // MARK: - The key map

    @Test(arguments: [
        (Key.space, Command.togglePause), (.enter, .togglePause),
        (.right, .nextSentence), (.left, .previousSentence), (.down, .nextParagraph), (.up, .previousParagraph),
        (.pageDown, .nextPage), (.pageUp, .previousPage), (.home, .beginning), (.end, .end),
        (.character("+"), .faster), (.character("="), .faster), (.character("-"), .slower),
        (.character("s"), .stepMode), (.character("w"), .whereAmI), (.control("w"), .whereAmI),
        (.character("q"), .stop), (.escape, .stop), (.tab, .next), (.shiftTab, .previous),
        (.character("]"), .nextSentence), (.character("["), .previousSentence),
        (.character("}"), .nextParagraph), (.character("{"), .previousParagraph),
        (.character("?"), .help), (.control("q"), .quit),
    ])
    func eachReadingKeyDoesItsReadingCommand(_ key: Key, _ command: Command) {
        let (session, _) = reading()
        #expect(KeyHelp.command(for: key, focused: session.focusedElement, route: .reader) == command)
    }

    @Test func enterPressesTheButtonTabReached() {
        var (session, _) = reading()
        _ = session.handle(.key(.tab))
        #expect(session.state.focusedID == "stop")
        let effects = session.handle(.key(.enter))
        #expect(effects.contains(.stopNarration))
        #expect(session.state.route == .story(Self.pip))
    }

    @Test func noKeyInTheReaderAnswersNothingStartsWith() {
        // B opens the bookmarks screen (its own test: BookmarkTests).
        for scalar in Array("abcdefgijklmnoprtuvxyz0123456789ACDEFGIJKLMNOPRTUVXYZ".unicodeScalars) {
            var (session, _) = reading()
            let said = spoken(session.handle(.key(.character(Character(scalar)))))
            #expect(!said.contains { $0.contains("Nothing starts with") }, "\(scalar): \(said)")
            #expect(session.state.route == .reader, "\(scalar) left the reader")
        }
    }

    @Test(arguments: [
        (Key.right, "Right arrow: next sentence."),
        (.space, "Space: pauses the story, or goes on from the word where it paused."),
        (.pageDown, "Page Down: next page."),
        (.end, "End: goes to the last sentence of the story."),
        (.character("q"), "letter Q: stops reading, keeps your place, and goes back."),
        (.character("w"), "letter W: says the story, page and sentence you are at."),
        (.character("z"), "letter Z: does nothing while reading."),
    ])
    func learnModeSaysWhatEachReadingKeyDoes(_ key: Key, _ words: String) {
        var (session, _) = reading()
        // Learn mode, on the reader itself.
        session.state.isLearning = true
        #expect(spoken(session.handle(.key(key))) == [words])
    }

    // MARK: - Pause and resume at the word

    /// Issue 43: the story went on under the `:` line and started again at its word between every
    /// letter typed; it waits while a command is typed, as it does for Help.
    @Test func openingTheCommandLinePausesTheStory() {
        var (session, _) = reading()
        let effects = session.handle(.shell(.commandLineOpened))
        #expect(effects.contains(.pauseNarration))
        #expect(session.state.reader?.status == .paused)
        #expect(effects.contains { if case .tell(let said, _) = $0 { said.text == "Command." } else { false } })
        let again = session.handle(.shell(.commandLineOpened))
        #expect(!again.contains(.pauseNarration), "a story paused already is left as it is")
    }

    @Test func pauseSaysTheWordAndThePageAndResumeGoesOnFromIt() {
        var (session, story) = reading()
        let word = story.sentences[0].words.count + story.sentences[1].words.count + 2
        _ = session.handle(.narration(.sentenceStarted(2)))
        _ = session.handle(.narration(.word(word)))
        let pause = session.handle(.key(.space))
        #expect(spoken(pause) == ["Paused at ‘\(story.words[word].text)’, page 1 of 6."])
        #expect(pause.first == .pauseNarration)
        let resume = session.handle(.key(.space))
        #expect(goesOn(resume, session) == word)
        #expect(spoken(resume).isEmpty, "nothing is said before the story goes on")
        // The resumed caption starts at the paused word.
        let caption = captions(session.handle(.narration(.sentenceStarted(2))))
        #expect(caption.count == 1)
        #expect(caption.first?.hasPrefix(story.words[word].text) == true, "\(caption)")
        #expect(story.sentences[2].text.hasSuffix(caption.first ?? "-"))
    }

    @Test func aPlaceKeptInThisRunGoesOnAtItsWord() throws {
        var (session, story) = reading()
        let word = story.sentences[0].words.count + 1
        _ = session.handle(.narration(.word(word)))
        _ = session.handle(.key(.character("q")))
        #expect(session.state.route == .story(Self.pip))
        session.state.focusedID = "resume"
        #expect(narrated(session.handle(.command(.activate))) == word)
    }

    // MARK: - The place, said

    @Test func crossingAPageIsShownAndSaidBeforeItsFirstSentence() {
        var (session, story) = reading()
        let map = StoryMap(story: story)
        let second = map.pageStarts[1]
        let effects = session.handle(.narration(.sentenceStarted(second)))
        #expect(captions(effects) == ["Page 2 of 6.", story.sentences[second].text])
        // The narration says it at that sentence boundary (never mid-word).
        let narration = try? Narration(story: story, announcingPages: true)
        #expect(narration?.items.first { $0.storySentenceIndex == second }?.prefix.hasPrefix("Page 2 of 6.") == true)
        #expect(narration?.items.first?.prefix == "")
    }

    @Test func whereAmIWhileReadingSaysStoryPageSentenceAndParagraph() {
        var (session, story) = reading()
        let map = StoryMap(story: story)
        let target = map.pageStarts[2]
        _ = session.handle(.narration(.sentenceStarted(target)))
        let said = spoken(session.handle(.key(.character("w"))))
        let spokenIndex = map.spokenSentences.firstIndex(of: target)! + 1
        #expect(said.count == 1)
        #expect(
            said.first?.hasPrefix(
                "Pip and the Puddle, reading at ‘\(story.words[map.firstWord(ofSentence: target)].text)’. Page 3 of 6, sentence \(spokenIndex) of \(map.spokenSentences.count)"
            ) == true, "\(said)")
        #expect(said.first?.contains("paragraph ") == true)
    }

    @Test func pageKeysMoveByPageAndHomeEndToTheEdges() {
        var (session, story) = reading()
        let map = StoryMap(story: story)
        #expect(narrated(session.handle(.key(.pageDown))) == map.firstWord(ofSentence: map.pageStarts[1]))
        _ = session.handle(.narration(.sentenceStarted(map.pageStarts[1])))
        #expect(narrated(session.handle(.key(.pageUp))) == 0)
        let end = session.handle(.key(.end))
        #expect(spoken(end) == ["The last sentence."])
        #expect(narrated(end) == map.firstWord(ofSentence: map.spokenSentences.last!))
        let home = session.handle(.key(.home))
        #expect(spoken(home) == ["The beginning."])
        #expect(narrated(home) == 0)
    }

    // MARK: - Coming back

    @Test func startingWithAStoryInProgressWelcomesBackToIt() throws {
        let story = try #require(SessionFixtures.catalog.story(id: Self.pip))
        let map = StoryMap(story: story)
        let sentence = map.pageStarts[1] + 1
        var session = Session(
            catalog: SessionFixtures.catalog,
            snapshot: maya(readings: [Self.pip: ReadingRecord(sentenceIndex: sentence)], inProgress: Self.pip), profile: "Maya")
        let said = spoken(session.start())
        #expect(said.count == 2)
        #expect(said[1].hasPrefix("Welcome back Maya. You were reading Pip and the Puddle, page 2 of 6."), "\(said)")
        #expect(session.state.focusedID == "go-on")
        #expect(session.focusedElement?.label == "Go on reading")
        #expect(narrated(session.handle(.key(.enter))) == map.firstWord(ofSentence: sentence))
    }

    @Test func readingAStartedStoryGoesOnUnlessToldToStartAgain() throws {
        let story = try #require(SessionFixtures.catalog.story(id: Self.pip))
        let first = StoryMap(story: story).firstWord(ofSentence: 5)
        let snapshot = maya(readings: [Self.pip: ReadingRecord(sentenceIndex: 5)], inProgress: Self.pip)
        var session = Session(catalog: SessionFixtures.catalog, snapshot: snapshot, profile: "Maya")
        let goOn = session.handle(.command(.read("pip")))
        #expect(narrated(goOn) == first)
        #expect(spoken(goOn).first?.hasPrefix("Going on with Pip and the Puddle, page ") == true)
        var again = Session(catalog: SessionFixtures.catalog, snapshot: snapshot, profile: "Maya")
        #expect(narrated(again.handle(.command(.read("pip from start")))) == 0)
        // Opening the story's card keeps the place.
        var opened = Session(catalog: SessionFixtures.catalog, snapshot: snapshot, profile: "Maya")
        _ = opened.push(.story(Self.pip))
        _ = opened.handle(.command(.back))
        #expect(opened.state.reading(Self.pip).sentenceIndex == 5)
    }

    // MARK: - The kiosk and `read`

    @Test func theKiosksPINPromptPausesTheStoryAndBackToTheStoriesGoesOnAtTheWord() {
        var session = Session(catalog: SessionFixtures.catalog, snapshot: maya(), profile: "Maya")
        session.startKiosk(KioskOptions(), now: 1000)
        _ = session.start()
        _ = session.handle(.command(.read("pip")))
        _ = session.handle(.narration(.sentenceStarted(0)))
        _ = session.handle(.narration(.word(2)))
        let prompt = session.handle(.key(.unknown("CSI 24~")))
        #expect(prompt.contains(.pauseNarration))
        #expect(session.state.route == .pinPrompt)
        _ = session.handle(.pinChecked(true))
        session.state.focusedID = "resume"
        let back = session.handle(.key(.enter))
        #expect(session.state.route == .reader)
        #expect(goesOn(back, session) == 2)
    }

    @Test func inTheKioskSpaceAndArrowsAreReadingKeys() {
        var session = Session(catalog: SessionFixtures.catalog, snapshot: maya(), profile: "Maya")
        session.startKiosk(KioskOptions(), now: 1000)
        _ = session.start()
        _ = session.handle(.command(.read("pip")))
        _ = session.handle(.narration(.sentenceStarted(0)))
        #expect(session.handle(.key(.space)).contains(.pauseNarration))
        // Paused, the arrows move word by word, saying the word; the brackets still move by sentence.
        let word = session.handle(.key(.right))
        #expect(word.contains { if case .speakWith = $0 { true } else { false } }, "\(word)")
        #expect(narrated(session.handle(.key(.character("]")))) != nil)
    }

    @Test func readAloneEndsTheProgramWhenTheReaderIsLeftOrTheStoryEnds() {
        var session = Session(catalog: SessionFixtures.catalog, snapshot: SessionSnapshot())
        let opening = session.startReadingAlone(Self.pip)
        #expect(narrated(opening) == 0)
        #expect(session.state.route == .reader)
        #expect(session.handle(.key(.character("q"))).contains(.exit))

        var finishing = Session(catalog: SessionFixtures.catalog, snapshot: SessionSnapshot())
        _ = finishing.startReadingAlone(Self.pip)
        let end = finishing.handle(.narration(.finished))
        #expect(spoken(end) == ["The end."])
        #expect(end.contains(.exit))
    }

    /// The README's table of reading keys says what help and learn mode say, key by key.
    @Test func theReadmeDescribesEveryReadingKeyAsHelpDoes() throws {
        let readme = try String(contentsOf: TestPaths.repository.appendingPathComponent("README.md"), encoding: .utf8)
        let start = try #require(readme.range(of: "**While a story is read**"))
        let section = readme[start.upperBound...].prefix { $0 != "#" }
        for entry in KeyHelp.readingKeys {
            #expect(section.contains("| " + entry.does), "README lacks “\(entry.does)” for \(entry.keys)")
        }
        #expect(section.components(separatedBy: "\n|").count - 3 == KeyHelp.readingKeys.count, "one row a key (after the header and its rule)")
    }
}
