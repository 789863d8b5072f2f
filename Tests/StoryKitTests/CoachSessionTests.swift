import Foundation
import StoryKitTestSupport
import Testing

@testable import StoryKit

/// The read-along coach in the Session (issue 45): the `r` key, the coach's news as inputs through
/// the one inbox, and the stop. No microphone here: the shell's part is CoachTmuxTests'.
@Suite struct CoachSessionTests {
    func spoken(_ effects: [Effect]) -> [String] {
        effects.compactMap { if case .speak(let utterance) = $0 { utterance.text } else { nil } }
    }

    func listenings(_ effects: [Effect]) -> [CoachListening] {
        effects.compactMap { if case .listen(let request) = $0 { request } else { nil } }
    }

    func narrates(_ effects: [Effect]) -> Bool {
        effects.contains { if case .narrate = $0 { true } else { false } }
    }

    /// Maya reading Pip and the Puddle, its second sentence being heard.
    func reading() -> (Session, [Effect]) {
        var session = Session(
            catalog: SessionFixtures.catalog,
            snapshot: SessionSnapshot(profiles: [ChildProfile(id: 1, name: "Maya", age: 5)], readings: [:], inProgress: [:]), profile: "Maya")
        var effects = session.start()
        effects += session.handle(.command(.read("pip")))
        let second = session.state.reader!.map.spokenSentences[1]
        effects += session.handle(.narration(.sentenceStarted(second)))
        effects += session.handle(.narration(.word(session.state.reader!.map.firstWord(ofSentence: second) + 1)))
        return (session, effects)
    }

    /// The session after `r`, and what `r` asked for.
    func coaching() -> (Session, [Effect]) {
        var (session, _) = reading()
        let effects = session.handle(.key(.character("r")))
        return (session, effects)
    }

    func word(_ session: Session, sentence: Int, index: Int) -> CoachWord {
        let reader = session.state.reader!
        let text = reader.story.words[reader.map.firstWord(ofSentence: sentence) + index].text
        return CoachWord(sentence: sentence, index: index, text: text, spoken: text.lowercased())
    }

    func news(_ session: Session, _ event: CoachEvent) -> Input {
        .coach(.event(event, listening: session.state.coaching!.listening))
    }

    @Test func rStopsTheStorysVoiceAndOpensTheMicrophoneOnlyThen() throws {
        let (session, before) = reading()
        #expect(listenings(before).isEmpty, "nothing listens before r")
        var coached = session
        let effects = coached.handle(.key(.character("r")))
        #expect(effects.contains(.pauseNarration))
        #expect(!narrates(effects))
        #expect(spoken(effects) == ["Your turn: read it to me."])
        let request = try #require(listenings(effects).first)
        let reader = try #require(coached.state.reader)
        let second = reader.map.spokenSentences[1]
        // From the sentence being read, its words as written, to the story's end.
        #expect(request.sentences.first?.id == second)
        let words = reader.story.words[reader.map.sentenceFirstWord[second]..<reader.map.sentenceFirstWord[second + 1]].map(\.text)
        #expect(request.sentences.first?.words == words)
        #expect(request.sentences.last?.id == reader.map.spokenSentences.last)
        #expect(request.waitMilliseconds == 3000)
        // The highlight waits on the sentence's first word, the story's voice quiet.
        #expect(reader.wordIndex == reader.map.firstWord(ofSentence: second))
        #expect(reader.status == .paused)
        #expect(coached.state.coaching != nil)
        let button = try #require(coached.screen.elements.first { $0.id == "coach" })
        #expect(button.label == "I read it myself" && button.traits.contains(.button) && button.traits.contains(.selected))
    }

    @Test func theWordHeardIsHighlightedAndTheHelpWordSaidInTheStorysVoice() throws {
        var (session, _) = coaching()
        let second = session.state.reader!.map.spokenSentences[1]
        let heard = word(session, sentence: second, index: 2)
        let effects = session.handle(news(session, .heard(heard, ms: 100, endMs: 400)))
        #expect(effects.contains(.render))
        let reader = try #require(session.state.reader)
        let index = reader.map.firstWord(ofSentence: second) + 2
        #expect(reader.wordIndex == index)
        // The reading text's highlight is on that word.
        let highlighted = session.screen.elements.compactMap { element -> TextRange? in
            if case .readingText(_, let highlight, _) = element.content { return highlight } else { return nil }
        }
        #expect(highlighted.count == 1)
        let help = word(session, sentence: second, index: 3)
        let helped = session.handle(news(session, .help(help, ms: 3400)))
        let said = helped.compactMap { effect -> (String, SpeechSettings)? in
            if case .speakWith(let utterance, let settings) = effect { (utterance.text, settings) } else { nil }
        }
        #expect(said.map(\.0) == [Session.bare(help.text)])
        #expect(said.first?.1.voice == reader.story.language)
        #expect(session.state.reader?.wordIndex == index + 1)
        #expect(!narrates(helped))
    }

    @Test(arguments: [Key.character("r"), .escape])
    func rAgainOrEscapeClosesTheMicrophoneAndSaysTheTally(_ key: Key) throws {
        var (session, _) = coaching()
        let second = session.state.reader!.map.spokenSentences[1]
        _ = session.handle(news(session, .heard(word(session, sentence: second, index: 0), ms: 0, endMs: 300)))
        _ = session.handle(news(session, .heard(word(session, sentence: second, index: 1), ms: 300, endMs: 600)))
        _ = session.handle(news(session, .help(word(session, sentence: second, index: 2), ms: 3600)))
        let effects = session.handle(.key(key))
        #expect(effects.contains(.stopListening))
        #expect(spoken(effects) == ["You read 2 words by yourself, and I helped with 1."])
        #expect(!narrates(effects))
        #expect(session.state.coaching == nil)
        #expect(session.state.route == .reader, "the reader stays open")
        // News still on its way from the closed microphone changes nothing.
        let late = session.handle(.coach(.event(.heard(word(session, sentence: second, index: 3), ms: 900, endMs: 1200), listening: 1)))
        #expect(late.isEmpty)
    }

    @Test func aSentenceMoveMovesTheCoachAndDropsTheOldListeningsNews() throws {
        var (session, first) = coaching()
        let old = try #require(listenings(first).first)
        let effects = session.handle(.key(.character("]")))
        #expect(effects.contains(.stopListening))
        #expect(!narrates(effects))
        let moved = try #require(listenings(effects).first)
        let reader = try #require(session.state.reader)
        #expect(moved.sentences.first?.id == reader.map.spokenSentences[2])
        #expect(moved.listening != old.listening)
        #expect(reader.wordIndex == reader.map.firstWord(ofSentence: reader.map.spokenSentences[2]))
        let stale = session.handle(
            .coach(.event(.heard(word(session, sentence: reader.map.spokenSentences[1], index: 0), ms: 0, endMs: 1), listening: old.listening)))
        #expect(stale.isEmpty)
        #expect(session.state.reader?.wordIndex == reader.wordIndex)
    }

    @Test func noMicrophoneIsSaidOnceAndTheStoryGoesOn() throws {
        var (session, _) = coaching()
        let problem = ListeningProblem(
            N_(
                "No microphone: '{device}' cannot be opened ({reason}). The story is read without the coach; give a microphone with --mic DEVICE or $STORYREADER_MIC_DEVICE"
            ), ["device": "nosuch", "reason": "No such device"])
        let effects = session.handle(.coach(.failed(problem, listening: session.state.coaching!.listening)))
        #expect(spoken(effects) == [problem.description])
        #expect(narrates(effects), "the story's voice reads on")
        #expect(session.state.coaching == nil)
        #expect(session.state.reader?.status == .playing)
    }

    @Test func aStoryNotInEnglishSaysCoachingIsEnglishOnly() throws {
        var session = Session(
            catalog: SessionFixtures.catalog,
            snapshot: SessionSnapshot(profiles: [ChildProfile(id: 1, name: "Maya", age: 5)], readings: [:], inProgress: [:]), profile: "Maya")
        _ = session.start()
        _ = session.handle(.command(.read("la petite")))
        let story = try #require(session.state.reader?.story)
        #expect(story.language.hasPrefix("fr"))
        let effects = session.handle(.key(.character("r")))
        #expect(spoken(effects) == ["Coaching is English-only for now: '\(story.title)' is not in English"])
        #expect(listenings(effects).isEmpty)
        #expect(session.state.reader?.status == .playing)
        #expect(session.state.coaching == nil)
    }

    @Test func spaceGivesTheStoryBackToItsVoiceFromTheWordReached() throws {
        var (session, _) = coaching()
        let second = session.state.reader!.map.spokenSentences[1]
        _ = session.handle(news(session, .heard(word(session, sentence: second, index: 1), ms: 0, endMs: 300)))
        let effects = session.handle(.key(.space))
        #expect(effects.contains(.stopListening))
        #expect(spoken(effects) == ["You read 1 word all by yourself."])
        let from = effects.lazy.compactMap { if case .narrate(_, let word, _, _) = $0 { word } else { nil } }.first
        #expect(from == session.state.reader!.map.firstWord(ofSentence: second) + 1)
    }

    @Test func explainingAWordWhileCoachingLeavesTheReadingToTheChild() throws {
        var (session, _) = coaching()
        let second = session.state.reader!.map.spokenSentences[1]
        _ = session.handle(news(session, .help(word(session, sentence: second, index: 0), ms: 3000)))
        let effects = session.handle(.key(.character("e")))
        #expect(effects.filter { if case .speakWith = $0 { true } else { false } }.count == 2, "said slowly, then spelled")
        #expect(!narrates(effects))
        #expect(session.state.coaching != nil)
    }

    @Test func leavingTheReaderClosesTheMicrophone() throws {
        var (session, _) = coaching()
        let effects = session.handle(.key(.character("q")))
        #expect(effects.contains(.stopListening))
        #expect(session.state.coaching == nil)
    }

    @Test func whereAmISaysItIsTheChildsTurn() throws {
        var (session, _) = coaching()
        let said = spoken(session.handle(.key(.character("w"))))
        #expect(said.first?.contains("your turn to read at") == true, "\(said)")
    }

    /// `read --coach`: the reader opens on the story with `r` pressed. The title is said, then the
    /// child's turn; the story's voice never starts, and the microphone is asked for at once.
    @Test func readCoachIsTheReaderWithRPressed() throws {
        var session = Session(
            catalog: SessionFixtures.catalog,
            snapshot: SessionSnapshot(profiles: [ChildProfile(id: 1, name: "Maya", age: 5)], readings: [:], inProgress: [:]), profile: "Maya")
        let effects = session.startCoachingAlone("pip-and-the-puddle")
        let title = try #require(session.state.reader?.story.title)
        #expect(spoken(effects) == ["Reading \(title).", "Your turn: read it to me."])
        #expect(!narrates(effects) && !effects.contains(.pauseNarration))
        let request = try #require(listenings(effects).first)
        #expect(request.sentences.first?.id == session.state.reader?.map.spokenSentences.first)
        #expect(session.state.route == .reader && session.state.reader?.status == .paused)
        // The coach's end (the last word, or the microphone's) is the end of `read`, after the tally.
        let coaching = try #require(session.state.coaching)
        let end = session.handle(.coach(.event(.finished(CoachTally(read: 0, helped: 0, skipped: 0)), listening: coaching.listening)))
        #expect(spoken(end) == ["I did not hear any words this time."])
        #expect(end.contains(.stopListening) && end.last == .exit)
    }

    /// A microphone that cannot be opened in `read --coach`: said once, and the story's voice reads.
    @Test func readCoachWithoutAMicrophoneReadsTheStory() throws {
        var session = Session(
            catalog: SessionFixtures.catalog,
            snapshot: SessionSnapshot(profiles: [ChildProfile(id: 1, name: "Maya", age: 5)], readings: [:], inProgress: [:]), profile: "Maya")
        _ = session.startCoachingAlone("pip-and-the-puddle")
        let problem = ListeningProblem("No microphone")
        let effects = session.handle(.coach(.failed(problem, listening: session.state.coaching!.listening)))
        #expect(spoken(effects) == ["No microphone"])
        #expect(narrates(effects))
    }

    /// A read with the coach is kept for the child (the store's `coachedRead`) and counted on the
    /// library's card and the story's page apart from the finished reads, in the child's language,
    /// from the Session's own state (no database read while drawing).
    @Test(arguments: [
        ("en", "read 2 times, read aloud with the coach once"), ("es", "leída 2 veces, leída una vez en voz alta con el acompañamiento"),
    ])
    func aCoachedReadIsKeptAndCountedApart(language: String, expected: String) throws {
        var options = SessionOptions()
        options.interfaceLanguage = language
        var session = Session(
            catalog: SessionFixtures.catalog,
            snapshot: SessionSnapshot(
                profiles: [ChildProfile(id: 1, name: "Maya", age: 5)], readings: ["Maya": ["pip-and-the-puddle": ReadingRecord(readCount: 2)]], inProgress: [:]),
            options: options, profile: "Maya", languages: LanguageFixtures.languages)
        _ = session.start()
        _ = session.handle(.command(.read("pip")))
        _ = session.handle(.key(.character("r")))
        let reader = try #require(session.state.reader)
        let first = reader.map.spokenSentences[0]
        let text = reader.story.words[reader.map.firstWord(ofSentence: first)].text
        _ = session.handle(news(session, .heard(CoachWord(sentence: first, index: 0, text: text, spoken: text.lowercased()), ms: 0, endMs: 300)))
        let effects = session.handle(.key(.character("r")))
        #expect(effects.contains(.save(.recordCoachedRead(profileID: 1, story: "pip-and-the-puddle", CoachTally(read: 1, helped: 0, skipped: 0)))))
        #expect(session.state.reading("pip-and-the-puddle").coachedCount == 1)
        #expect(session.state.reading("pip-and-the-puddle").readCount == 2, "not a finished read")
        _ = session.handle(.key(.escape))
        _ = session.handle(.key(.escape))
        #expect(session.state.route == .library)
        let card = try #require(FocusEngine(screen: session.screen).order.first { $0.id.hasSuffix("/pip-and-the-puddle") })
        #expect(card.value?.hasPrefix(expected) == true, "\(card.value ?? "")")
        // Nothing read or said: nothing kept.
        _ = session.handle(.command(.read("pip")))
        _ = session.handle(.key(.character("r")))
        #expect(!session.handle(.key(.character("r"))).contains { if case .save = $0 { true } else { false } })
    }

    /// What the store keeps comes back in the snapshot a session starts from, and what is kept for
    /// later (a full disk) counts at once.
    @Test func theSnapshotCountsCoachedReads() throws {
        let database = try TemporaryDatabase("coached-counts")
        defer { database.remove() }
        let store = try database.open()
        let mia = try store.addProfile(ChildProfile(name: "Mia", age: 7), authorization: try store.authorize(pin: nil))
        let id = try #require(mia.id)
        try store.recordCoachedRead(profileID: id, storyID: "pip", tally: CoachTally(read: 4, helped: 1, skipped: 0))
        try store.recordCoachedRead(profileID: id, storyID: "pip", tally: CoachTally(read: 2, helped: 0, skipped: 0))
        var snapshot = try store.sessionSnapshot()
        #expect(snapshot.readings["Mia"]?["pip"]?.coachedCount == 2)
        #expect(snapshot.readings["Mia"]?["pip"]?.readCount == 0)
        snapshot.apply(.recordCoachedRead(profileID: id, story: "pip", CoachTally(read: 1, helped: 0, skipped: 0)))
        #expect(snapshot.readings["Mia"]?["pip"]?.coachedCount == 3)
    }

    @Test func theKeyIsInHelpAndLearnMode() {
        #expect(KeyHelp.command(for: .character("r"), focused: nil, route: .reader) == .coach)
        #expect(KeyHelp.readingKeys.contains { $0.keys == "r" && $0.does.contains("never recorded") })
        #expect(KeyHelp.describe(.character("r"), route: .reader).hasPrefix("letter R: I read it myself"))
    }
}
