import StoryKitTestSupport
import Testing

@testable import StoryKit

@Suite struct SessionTests {
    func maya(interests: [String] = ["animals"], pinIsSet: Bool = false) -> SessionSnapshot {
        SessionSnapshot(
            profiles: [ChildProfile(id: 1, name: "Maya", age: 5, interests: interests), ChildProfile(id: 2, name: "Sam", age: 9)],
            pinIsSet: pinIsSet)
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
        let story = session.state.reader!.story
        // A word in the second sentence: the store keeps the sentence, not the word.
        let word = story.sentences[0].words.count + 1
        _ = session.handle(.narration(.word(word)))
        let pause = session.handle(.command(.pause))
        #expect(pause.first == .pauseNarration)
        #expect(pause.contains(.save(.savePosition(profileID: 1, story: "pip-and-the-puddle", sentence: 1))))
        #expect(session.state.reading("pip-and-the-puddle").sentenceIndex == 1)
        #expect(spoken(pause) == ["Paused at ‘\(story.words[word].text)’, page 1 of 6."])
        let resume = session.handle(.command(.resume))
        // Goes on at the word that was being heard (held in the speech service), saying nothing first.
        #expect(resume.contains(.resumeNarration(settings: .storyDefaults, stepMode: false)))
        #expect(session.state.reader?.wordIndex == word)
        #expect(spoken(resume).isEmpty)
        // The story is heard to its end (a read counts only then: FindingTests).
        for index in StoryMap(story: story).spokenSentences where index >= 1 {
            _ = session.handle(.narration(.sentenceStarted(index)))
            _ = session.handle(.narration(.sentenceFinished(index)))
        }
        let end = session.handle(.narration(.finished))
        // The store counts the read (in one transaction) and its count is what is announced.
        #expect(end == [.save(.recordFinished(profileID: 1, story: "pip-and-the-puddle")), .motion(.celebration(title: "Pip and the Puddle")), .render])
        #expect(session.state.reading("pip-and-the-puddle").sentenceIndex == nil)
        let answer = session.handle(.stored(.readRecorded(story: "pip-and-the-puddle", count: 4)))
        #expect(spoken(answer) == ["The end. Maya, you have read Pip and the Puddle 4 times. Press Escape to go back."])
        #expect(session.state.reading("pip-and-the-puddle").readCount == 4)
    }

    /// Without a profile nothing is kept, so no count is claimed.
    @Test func theGuestsReadsAreNeitherSavedNorCounted() {
        var session = Session(catalog: SessionFixtures.catalog, snapshot: maya())
        _ = session.handle(.command(.read("pip")))
        let end = session.handle(.narration(.finished))
        #expect(!end.contains { if case .save = $0 { true } else { false } })
        #expect(spoken(end) == ["The end. Press Escape to go back."])
        #expect(session.state.reading("pip-and-the-puddle").readCount == 0)
    }

    @Test func resumeStartsTheSavedSentence() throws {
        var snapshot = maya()
        snapshot.readings["Maya"] = ["pip-and-the-puddle": ReadingRecord(readCount: 1, sentenceIndex: 3)]
        var session = Session(catalog: SessionFixtures.catalog, snapshot: snapshot, profile: "Maya")
        let story = try #require(SessionFixtures.catalog.story(id: "pip-and-the-puddle"))
        let firstWord = story.sentences.prefix(3).reduce(0) { $0 + $1.words.count }
        _ = session.push(.story("pip-and-the-puddle"))
        let order = FocusEngine(screen: session.screen).order
        let resume = try #require(order.first { $0.id == "resume" })
        let page = StoryMap(story: story).page(ofSentence: 3) + 1
        #expect(resume.label == "Go on from page \(page)")
        #expect(resume.value == nil, "the label already names the page")
        // Going on comes first, then starting again.
        #expect(order.firstIndex { $0.id == "resume" }! < order.firstIndex { $0.id == "read" }!)
        #expect(order.first { $0.id == "read" }?.label == "Start again")
        session.state.focusedID = "resume"
        let effects = session.handle(.command(.activate))
        #expect(effects.contains(.narrate(storyID: "pip-and-the-puddle", fromWord: firstWord, settings: .storyDefaults, stepMode: false)))
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
        var session = Session(catalog: SessionFixtures.catalog, snapshot: maya())
        _ = session.start()
        _ = session.handle(.command(.jump("n")))
        #expect(session.state.focusedID == "new-profile")
        _ = session.handle(.command(.activate))
        #expect(session.state.route == .profileForm)
        #expect(session.state.focusedID == "field-name")
        // The store's form: every field, in its focus order, with its label, hint and rule.
        let fields = FocusEngine(screen: session.screen).order.map(\.id).filter { $0.hasPrefix("field-") }
        #expect(fields == ProfileField.inputs.map { "field-" + $0.rawValue })
        #expect(session.focusedElement?.hint == "The name shown and spoken to your child: 1 to 40 characters, not used by another profile.")
        _ = session.handle(.command(.type("maya")))
        _ = session.handle(.command(.set(name: "age", value: "40")))
        _ = session.handle(.command(.set(name: "text-size", value: "huge")))
        session.state.focusedID = "save"
        let refused = session.handle(.command(.activate))
        // Every problem names its field and what to do; the first invalid field takes focus.
        #expect(
            spoken(refused).first == "3 problems. Name: a profile named \"Maya\" already exists (names ignore case): choose another name or edit that profile. "
                + "Age: 40 is out of range: type a whole number of years from 2 to 12. Text size: \"huge\" is not a text size: use \(ProfileField.textSize.constraint)."
        )
        #expect(session.state.focusedID == "field-name")
        #expect(refused.contains { if case .speak(let u) = $0 { u.priority == .important } else { false } })
        #expect(!refused.contains { if case .save = $0 { true } else { false } })
        _ = session.handle(.command(.type("Ada")))
        // Enter on a field checks it, reads the value back and moves on.
        let submitted = session.handle(.key(.enter))
        #expect(session.state.focusedID == "field-age")
        #expect(spoken(submitted).first == "Name: Ada.")
        #expect(spoken(submitted).dropFirst().first?.hasPrefix("Age, 40, problem: 40 is out of range") == true)
        _ = session.handle(.command(.type("6")))
        _ = session.handle(.command(.set(name: "text-size", value: "large")))
        session.state.focusedID = "save"
        let saved = session.handle(.command(.activate))
        var ada = ChildProfile(name: "Ada", age: 6)
        #expect(saved.filter { $0 != .render } == [.save(.saveProfile(ada))])
        #expect(session.state.route == .profileForm)
        // The store answers with the saved profile (and its id); then it is announced and chosen.
        ada.id = 7
        let answer = session.handle(.stored(.profileSaved(ada)))
        #expect(spoken(answer).first == "Profile Ada saved.")
        #expect(session.state.route == .library)
        #expect(session.state.profileName == "Ada")
        #expect(session.state.profile.id == 7)
    }

    @Test func aRefusedSaveKeepsTheFormOpenWithTheStoresMessage() {
        var session = Session(catalog: SessionFixtures.catalog, snapshot: maya())
        _ = session.asParent(.newProfile)
        _ = session.handle(.command(.type("Zoe")))
        _ = session.handle(.command(.set(name: "age", value: "4")))
        let change = StoreChange.saveProfile(ChildProfile(name: "Zoe", age: 4))
        let effects = session.handle(.stored(.failed(change, message: "a parental PIN is set: type it to make this change")))
        #expect(spoken(effects) == ["Could not save: a parental PIN is set: type it to make this change."])
        #expect(session.state.route == .profileForm)
        #expect(session.state.warning?.hasPrefix("Could not save") == true)
    }

    @Test func cancelWithUnsavedChangesAsksFirst() {
        var session = Session(catalog: SessionFixtures.catalog, snapshot: maya(), profile: "Maya")
        _ = session.handle(.command(.settings))
        session.state.focusedID = "edit-profile"
        _ = session.handle(.command(.activate))
        #expect(session.state.route == .profileForm)
        #expect(session.state.form?.text(of: .name) == "Maya")
        // Nothing changed: Cancel leaves at once.
        session.state.focusedID = "cancel"
        _ = session.handle(.command(.activate))
        #expect(session.state.route == .settings)
        session.state.focusedID = "edit-profile"
        _ = session.handle(.command(.activate))
        _ = session.handle(.command(.set(name: "age", value: "6")))
        session.state.focusedID = "cancel"
        let asked = session.handle(.command(.activate))
        #expect(spoken(asked).first == "Discard the changes to this profile? Your changes are not saved.")
        #expect(session.state.route == .profileForm)
        #expect(session.state.focusedID == "discard")
        _ = session.handle(.command(.next))
        #expect(session.state.focusedID == "keep-editing")
        _ = session.handle(.command(.activate))
        #expect(session.state.route == .profileForm)
        #expect(session.state.form?.text(of: .age) == "6")
        // Escape asks too; then Discard leaves without saving.
        let escape = session.handle(.key(.escape))
        #expect(spoken(escape).first == "Discard the changes to this profile? Your changes are not saved.")
        let discarded = session.handle(.command(.activate))
        #expect(spoken(discarded).first == "Changes discarded.")
        #expect(session.state.route == .settings)
        #expect(session.state.profile.age == 5)
        #expect(!discarded.contains { if case .save = $0 { true } else { false } })
    }

    @Test func aWrongPINIsRefusedKindlyTheLockoutIsSaidAndTheRightOneOpensSettings() {
        var session = Session(catalog: SessionFixtures.catalog, snapshot: maya(pinIsSet: true), profile: "Maya")
        _ = session.handle(.command(.settings))
        #expect(session.state.route == .pinPrompt)
        #expect(spoken(session.handle(.command(.type("1111")))) == ["4 digits entered."])
        #expect(session.handle(.command(.activate)) == [.checkPIN("1111")])
        let wrong = session.handle(.pinChecked(false))
        #expect(spoken(wrong) == ["That PIN is not right. Try again."])
        #expect(session.state.route == .pinPrompt)
        let locked = session.handle(.pinLocked(remaining: 30))
        #expect(spoken(locked) == ["Too many tries. Try again in 30 seconds."])
        #expect(session.state.warning == "Too many tries. Try again in 30 seconds.")
        _ = session.handle(.pinChecked(true))
        #expect(session.state.route == .settings)
        #expect(session.state.settingsUnlocked)
        // In the visit, a setting is saved; leaving Settings ends the visit.
        let changed = session.handle(.command(.set(name: "rate", value: "200")))
        #expect(changed.contains { if case .save(.saveSettings) = $0 { true } else { false } })
        _ = session.handle(.command(.back))
        #expect(!session.state.settingsUnlocked)
        let later = session.handle(.command(.set(name: "rate", value: "180")))
        #expect(!later.contains { if case .save = $0 { true } else { false } })
        #expect(spoken(later).last == "This change is for now: a parent keeps it from Settings, with the PIN.")
        #expect(session.state.profile.speech.rate == 180)
    }

    @Test func aNewProfileNeedsThePINWhenOneIsSet() {
        var session = Session(catalog: SessionFixtures.catalog, snapshot: maya(pinIsSet: true))
        session.state.focusedID = "new-profile"
        _ = session.handle(.command(.activate))
        #expect(session.state.route == .pinPrompt)
        _ = session.handle(.pinChecked(true))
        #expect(session.state.route == .profileForm)
        #expect(session.state.focusedID == "field-name")
        session.state.focusedID = "cancel"
        _ = session.handle(.command(.activate))
        #expect(session.state.route == .profiles)
        #expect(!session.state.settingsUnlocked)
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

extension SessionTests {
    /// Settings say where the scale ends, and leaving them (Done, Escape or Home) says what became
    /// of the changes.
    @Test func settingsSayTheLargestSizeAndWhatLeavingDoes() throws {
        var session = Session(catalog: SessionFixtures.catalog, snapshot: maya(), profile: "Maya")
        _ = session.start()
        _ = session.handle(.command(.settings))
        #expect(session.state.route == .settings)
        session.state.focusedID = try #require(session.screen.elements.first { $0.label == "Text size" }?.id)
        var said: [String] = []
        for _ in TextSizePreset.allCases { said = spoken(session.handle(.key(.right))) }
        #expect(session.state.profile.textSize == .accessibility5)
        #expect(said.first?.hasSuffix("That is the largest.") == true, "\(said)")
        session.state.focusedID = "done"
        let done = spoken(session.handle(.key(.enter)))
        #expect(done.first == "Settings closed: your changes are saved.")
        #expect(session.state.route == .library)
        _ = session.handle(.command(.settings))
        let home = spoken(session.handle(.command(.home)))
        #expect(home.first == "Settings closed: your changes are saved.", "Home says it too")
    }
}
