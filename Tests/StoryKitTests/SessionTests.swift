import Testing
@testable import StoryKit
import StoryKitTestSupport

@Suite struct SessionTests {
    func maya(interests: [String] = ["animals"]) -> SessionSnapshot {
        SessionSnapshot(profiles: [ProfileRecord(name: "Maya", age: 5, interests: interests), ProfileRecord(name: "Sam", age: 9)])
    }

    func spoken(_ effects: [Effect]) -> [String] {
        effects.compactMap { if case .speak(let utterance) = $0 { utterance.text } else { nil } }
    }

    @Test func startsOnProfilesWithTheFirstMeaningfulElementFocused() {
        var session = Session(catalog: SessionFixtures.catalog, snapshot: maya())
        let effects = session.start()
        #expect(session.state.route == .profiles)
        #expect(session.state.focusedID == "profile-Maya")
        #expect(spoken(effects) == ["Magical Stories.", "Profiles. Maya, age 5, likes animals, button. Press Enter to read as Maya."])
        #expect(effects.last == .render)
    }

    @Test func pickingAProfileShowsSectionsByInterest() {
        var session = Session(catalog: SessionFixtures.catalog, snapshot: maya())
        _ = session.start()
        let effects = session.handle(.command(.activate))
        #expect(session.state.profileName == "Maya")
        #expect(spoken(effects).first?.hasPrefix("Hello Maya. Library, ") == true)
        let headings = FocusEngine(screen: session.screen).order.filter { $0.traits.contains(.header) }
        #expect(headings.first?.label == "Animals")
        #expect(headings.first?.value?.hasPrefix("contains ") == true)
        #expect(headings.map(\.label).contains("More stories"))
    }

    @Test func sectionsByAgeBandWithoutInterests() {
        let session = Session(catalog: SessionFixtures.catalog, snapshot: maya(interests: []), profile: "Sam")
        let headings = FocusEngine(screen: session.screen).order.filter { $0.traits.contains(.header) }.map(\.label)
        #expect(headings.allSatisfy { $0.hasPrefix("Ages ") })
        #expect(headings.contains("Ages 7 to 10"))
    }

    @Test func focusIsRestoredWhenComingBack() {
        var session = Session(catalog: SessionFixtures.catalog, snapshot: maya(), profile: "Maya")
        _ = session.start()
        _ = session.handle(.command(.nextHeading))
        _ = session.handle(.command(.next))
        let card = session.state.focusedID
        #expect(card?.hasPrefix("interest-animals/") == true)
        _ = session.handle(.command(.activate))
        #expect(session.state.focusedID == "read")
        let back = session.handle(.command(.back))
        #expect(session.state.focusedID == card)
        #expect(spoken(back).first?.contains("Story: ") == true)
    }

    @Test func nextAtTheEndSaysEndOfScreen() {
        var session = Session(catalog: SessionFixtures.catalog, snapshot: maya())
        _ = session.start()
        var last: [String] = []
        for _ in 0..<10 { last = spoken(session.handle(.command(.next))) }
        #expect(last == ["End of screen."])
        for _ in 0..<10 { last = spoken(session.handle(.command(.previous))) }
        #expect(last == ["Top."])
    }

    @Test func whereAmIRepeatsTheScreenAndFocus() {
        var session = Session(catalog: SessionFixtures.catalog, snapshot: maya(), profile: "Maya")
        _ = session.start()
        let text = spoken(session.handle(.command(.whereAmI)))
        #expect(text.count == 1)
        #expect(text[0].hasPrefix("You are on Library, "))
        #expect(text[0].contains("Item 1 of "))
        #expect(text[0].contains("Profile: Maya, button."))
    }

    @Test func readingPausingResumingAndFinishingCountsTheRead() throws {
        var session = Session(catalog: SessionFixtures.catalog, snapshot: maya(), profile: "Maya")
        _ = session.start()
        let read = session.handle(.command(.read("pip")))
        #expect(session.state.route == .reader)
        let narrate = read.first { if case .narrate = $0 { true } else { false } }
        #expect(narrate == .narrate(storyID: "pip-and-the-puddle", fromWord: 0, settings: .storyDefaults, stepMode: false))
        #expect(session.handle(.narration(.sentenceStarted(0))).contains(.caption(session.state.reader!.story.sentences[0].text)))
        _ = session.handle(.narration(.word(3)))
        let pause = session.handle(.command(.pause))
        #expect(pause.first == .pauseNarration)
        #expect(pause.contains(.save(.savePosition(profile: "Maya", story: "pip-and-the-puddle", word: 3))))
        #expect(spoken(pause) == ["Paused at page 1 of 6."])
        let resume = session.handle(.command(.resume))
        // Resumes at the start of the sentence that was paused.
        let start = session.state.reader!.story.sentences[0].words.count
        #expect(resume.contains(.narrate(storyID: "pip-and-the-puddle", fromWord: 3 >= start ? start : 0, settings: .storyDefaults, stepMode: false)))
        let end = session.handle(.narration(.finished))
        #expect(end.contains(.save(.recordFinished(profile: "Maya", story: "pip-and-the-puddle"))))
        #expect(spoken(end) == ["The end. Maya, you have read Pip and the Puddle once. Press Escape to go back."])
        #expect(session.state.reading("pip-and-the-puddle").readCount == 1)
        #expect(session.state.reading("pip-and-the-puddle").position == nil)
    }

    @Test func stepModeStopsAfterEachSentence() {
        var session = Session(catalog: SessionFixtures.catalog, snapshot: maya(), profile: "Maya")
        _ = session.handle(.command(.read("pip")))
        _ = session.handle(.command(.stepMode))
        #expect(session.state.reader?.stepMode == true)
        _ = session.handle(.command(.nextSentence))
        let finished = session.handle(.narration(.sentenceFinished(1)))
        #expect(finished.first == .pauseNarration)
        #expect(session.state.reader?.status == .paused)
    }

    @Test func fasterAndSlowerChangeTheProfileAndTheNarration() {
        var session = Session(catalog: SessionFixtures.catalog, snapshot: maya(), profile: "Maya")
        _ = session.handle(.command(.read("pip")))
        let effects = session.handle(.command(.faster))
        #expect(session.state.profile.speech.rate == 154)
        #expect(effects.contains(.changeSpeech(session.state.profile.speech)))
        #expect(spoken(effects) == ["Faster: 154 words per minute."])
    }

    @Test func settingsAreClampedAndExplained() {
        var session = Session(catalog: SessionFixtures.catalog, snapshot: maya(), profile: "Maya")
        let effects = session.handle(.command(.set(name: "rate", value: "900")))
        #expect(session.state.profile.speech.rate == 450)
        #expect(spoken(effects).first == "900 is out of range, so it is set to 450. Speed: 450 words per minute.")
        #expect(effects.contains { if case .preview = $0 { true } else { false } })
        let bad = session.handle(.command(.set(name: "theme", value: "purple")))
        #expect(spoken(bad).first?.hasPrefix("Theme cannot be purple.") == true)
        _ = session.handle(.command(.set(name: "hints", value: "off")))
        #expect(session.state.profile.hints == false)
        #expect(spoken(session.handle(.command(.whereAmI))).first?.contains("Press Enter") == false)
    }

    @Test func theProfileFormExplainsAMistakeAndSaves() {
        var session = Session(catalog: SessionFixtures.catalog, snapshot: SessionSnapshot())
        _ = session.start()
        #expect(session.state.focusedID == "new-profile")
        _ = session.handle(.command(.activate))
        #expect(session.state.route == .profileForm)
        #expect(session.state.focusedID == "field-name")
        _ = session.handle(.command(.type("Ada")))
        _ = session.handle(.command(.set(name: "age", value: "40")))
        let mistake = session.handle(.command(.jump("s")))
        #expect(session.state.focusedID == "save")
        _ = mistake
        let refused = session.handle(.command(.activate))
        #expect(spoken(refused).first == "Age must be a number from 2 to 12. You typed 40.")
        #expect(session.state.focusedID == "field-age")
        #expect(refused.contains { if case .speak(let u) = $0 { u.priority == .important } else { false } })
        _ = session.handle(.command(.type("6")))
        _ = session.handle(.command(.jump("s")))
        let saved = session.handle(.command(.activate))
        #expect(saved.contains(.save(.saveProfile(ProfileRecord(name: "Ada", age: 6), replacing: nil))))
        #expect(spoken(saved).first == "Profile Ada saved.")
        #expect(session.state.route == .library)
        #expect(session.state.profileName == "Ada")
    }

    @Test func learnModeDescribesKeysUntilEscape() {
        var session = Session(catalog: SessionFixtures.catalog, snapshot: maya())
        _ = session.handle(.command(.learn))
        #expect(session.state.route == .help)
        #expect(spoken(session.handle(.key(.down))) == ["Down arrow: next item."])
        #expect(spoken(session.handle(.key(.character("h")))) == ["letter H: next heading."])
        #expect(session.state.route == .help)
        #expect(spoken(session.handle(.key(.escape))) == ["Learn mode off."])
        #expect(session.state.isLearning == false)
    }

    @Test func lockedSessionsRefuseCommandsOutsideTheAllowlist() {
        var session = Session(catalog: SessionFixtures.catalog, snapshot: maya(), options: SessionOptions(isLocked: true), profile: "Maya")
        #expect(spoken(session.handle(.command(.profile("Sam")))) == ["That is not available here."])
        #expect(session.state.profileName == "Maya")
        #expect(spoken(session.handle(.command(.next))).first?.isEmpty == false)
    }

    @Test func unknownCommandsGetASuggestion() throws {
        #expect(throws: CommandError.self) { try CommandParser.parse("nxt") }
        do { _ = try CommandParser.parse("nxt") } catch { #expect(error.description == "I don't know 'nxt'. Did you mean next? Type help for the list.") }
        #expect(try CommandParser.parse(":read lighthouse") == .read("lighthouse"))
        #expect(try CommandParser.parse("set rate 160") == .set(name: "rate", value: "160"))
        #expect(try CommandParser.parse("   ") == nil)
        #expect(CommandParser.completions(of: "re") == ["read", "resume"])
        #expect(CommandParser.completions(of: "set ra") == ["set rate "])
    }
}
