import StoryKitTestSupport
import Testing

@testable import StoryKit

/// The profile form as a blind parent fills it in (issue 30, item 4): Speed, Pitch and Volume
/// stepped like Settings with the value said, the Voice a picker of the installed voices of the
/// child's languages (each named in its own voice), pickers that stop at their ends everywhere,
/// Control S saving from any field, `activate` submitting a typed field, each field's problem said
/// when it is left, and no unsaved form left without asking.
@Suite struct FormPickerTests {
    static let installed = ["de", "en", "en-us", "es", "fr", "it"]

    func maya() -> SessionSnapshot { SessionSnapshot(profiles: [ChildProfile(id: 1, name: "Maya", age: 5, interests: ["animals"])]) }

    func spoken(_ effects: [Effect]) -> [String] {
        effects.compactMap { if case .speak(let utterance) = $0 { utterance.text } else { nil } }
    }

    func utterances(_ effects: [Effect]) -> [Utterance] {
        effects.compactMap { if case .speak(let utterance) = $0 { utterance } else { nil } }
    }

    /// A session on the new profile form, the Name field focused.
    func newForm() -> Session {
        var options = SessionOptions()
        options.voices = Self.installed
        var session = Session(catalog: SessionFixtures.catalog, snapshot: maya(), options: options)
        _ = session.start()
        _ = session.asParent(.newProfile)
        return session
    }

    func keys(_ text: String) -> [Key] { text.map { $0 == " " ? Key.space : Key.character($0) } }

    @Test func miaSixAnimalsAndSpaceSlowerTakes24Keys() {
        var session = newForm()
        #expect(session.state.focusedID == "field-name")
        // Name, Enter; age, Enter; interests, Enter; the Voice as it is (Tab); Speed one step
        // slower (Left); Control S saves from there.
        let typed: [Key] = keys("Mia") + [.enter] + keys("6") + [.enter] + keys("animals, space") + [.enter, .tab, .left, .control("s")]
        var last: [Effect] = []
        var said: [String] = []
        for key in typed {
            last = session.handle(.key(key))
            said += spoken(last)
        }
        print("keys to make the profile Mia, 6, animals and space, slower: \(typed.count)")
        #expect(typed.count == 24)
        let saved = last.compactMap { if case .save(.saveProfile(let profile)) = $0 { profile } else { nil } }
        #expect(saved.count == 1)
        #expect(saved.first?.name == "Mia")
        #expect(saved.first?.age == 6)
        #expect(saved.first?.interests == ["animals", "space"])
        #expect(saved.first?.speech.rate == 127)
        #expect(saved.first?.speech.voice == nil)
        // Every value was said back: the typed ones on Enter, the speed as it was stepped.
        #expect(said.contains("Name: Mia."))
        #expect(said.contains("Age: 6."))
        #expect(said.contains("Interests: animals, space."))
        #expect(said.contains("Speed: 127 words per minute."))
    }

    @Test func speedIsNamedAsInSettingsAndStepsWithArrowsAndPlusMinus() {
        var session = newForm()
        session.state.focusedID = "field-rate"
        #expect(session.focusedElement?.label == "Speed")
        #expect(session.focusedElement?.value == "140 words per minute")
        #expect(session.focusedElement?.traits.contains(.adjustable) == true)
        #expect(spoken(session.handle(.key(.right))) == ["Speed: 154 words per minute."])
        #expect(spoken(session.handle(.key(.character("-")))) == ["Speed: 140 words per minute."])
        #expect(spoken(session.handle(.key(.character("+")))) == ["Speed: 154 words per minute."])
        // A minus is a step, never typed into the number.
        #expect(session.state.form?.text(of: .rate) == "154")
        for _ in 0..<20 { _ = session.handle(.key(.right)) }
        #expect(spoken(session.handle(.key(.right))) == ["Speed: 450 words per minute. That is the largest."])
        session.state.focusedID = "field-volume"
        #expect(spoken(session.handle(.key(.left))) == ["Volume: 70."])
        // Settings says the same name for the same thing.
        #expect(SettingName.rate.spokenName == ProfileField.rate.label)
    }

    @Test func aNumberPickerTakesATypedNumberToo() {
        var session = newForm()
        session.state.focusedID = "field-rate"
        // The first digit starts a new number; each is said; Backspace takes the last back.
        #expect(spoken(session.handle(.key(.character("1")))) == ["1"])
        for key: Key in [.character("2"), .character("5"), .backspace, .character("0")] { _ = session.handle(.key(key)) }
        #expect(session.state.form?.text(of: .rate) == "120")
        let submitted = spoken(session.handle(.key(.enter)))
        #expect(submitted.first == "Speed: 120 words per minute.")
        #expect(session.state.focusedID == "field-pitch")
        // Out of range, the problem is said on leaving; a step starts from the nearest good value.
        _ = session.handle(.key(.character("7")))
        _ = session.handle(.key(.character("7")))
        _ = session.handle(.key(.character("7")))
        #expect(spoken(session.handle(.key(.tab))).first?.hasPrefix("Pitch: 777 is out of range") == true)
        session.state.focusedID = "field-pitch"
        #expect(spoken(session.handle(.key(.left))) == ["Pitch: 95."])
    }

    @Test func theVoiceIsAPickerOfTheInstalledVoicesOfTheChildsLanguagesEachInItsOwnVoice() throws {
        var session = newForm()
        session.state.focusedID = "field-voice"
        // The library holds English, Spanish and French stories: German and Italian are left out.
        #expect(session.state.form?.choices(for: .voice) == ["", "en", "en-us", "es", "fr"])
        #expect(session.focusedElement?.value == "the story's language, 1 of 5")
        var said = utterances(session.handle(.key(.right)))
        #expect(said.map(\.text) == ["English (en), 2 of 5."])
        _ = session.handle(.key(.right))
        said = utterances(session.handle(.key(.right)))
        let spanish = try #require(said.first)
        #expect(spanish.text == "Español (es), 4 of 5.")
        #expect(spanish.runs == [SpeechRun(text: "Español (es)", language: "es"), SpeechRun(text: ", 4 of 5.", language: "en")])
        // A first letter finds a voice by its name.
        #expect(spoken(session.handle(.key(.character("f")))) == ["Français (fr), 5 of 5."])
        #expect(spoken(session.handle(.key(.right))) == ["Français (fr), 5 of 5. That is the last."])
        #expect(session.state.form?.text(of: .voice) == "fr")
    }

    @Test func settingsStepsTheSameVoicesAsTheForm() {
        var options = SessionOptions()
        options.voices = Self.installed
        var session = Session(catalog: SessionFixtures.catalog, snapshot: maya(), options: options, profile: "Maya")
        _ = session.handle(.command(.settings))
        session.state.focusedID = "setting-voice"
        let first = session.handle(.key(.right))
        #expect(spoken(first).first == "Voice: English (en).")
        // Heard in that voice: the preview speaks with it.
        #expect(first.contains { if case .preview(let speech, _) = $0 { speech.voice == "en" } else { false } })
        for _ in 0..<3 { _ = session.handle(.key(.right)) }
        #expect(session.state.profile.speech.voice == "fr")
        #expect(spoken(session.handle(.key(.right))).first == "Voice: Français (fr). That is the last.")
    }

    @Test func pickersStopAtTheirEndsInTheFormAndInSettingsAndEnterGoesRound() {
        var session = Session(catalog: SessionFixtures.catalog, snapshot: maya(), profile: "Maya")
        _ = session.handle(.command(.settings))
        session.state.focusedID = "setting-theme"
        let last = ThemeName.allCases.count - 1
        for _ in 0..<last { _ = session.handle(.key(.right)) }
        #expect(session.state.profile.theme == ThemeName.allCases[last])
        let stopped = spoken(session.handle(.key(.right)))
        #expect(session.state.profile.theme == ThemeName.allCases[last])
        #expect(stopped.first?.hasSuffix("That is the last.") == true)
        // Enter presses the setting: from the last value to the first.
        _ = session.handle(.key(.enter))
        #expect(session.state.profile.theme == ThemeName.allCases[0])
        session.state.focusedID = "setting-hints"
        #expect(spoken(session.handle(.key(.right))).first == "Hints: full. That is the last.")
        #expect(session.state.profile.settings.hintVerbosity == .full)
        _ = session.handle(.key(.left))
        #expect(session.state.profile.settings.hintVerbosity == .short)
        // The form's switches go the same way: Right turns on, and stops there.
        var form = newForm()
        form.state.focusedID = "field-syllables"
        #expect(spoken(form.handle(.key(.right))) == ["on, 2 of 2."])
        #expect(spoken(form.handle(.key(.right))) == ["on, 2 of 2. That is the last."])
    }

    @Test func aPipedActivateOnATypedFieldSubmitsItAndFocusesTheNext() {
        var session = newForm()
        _ = session.handle(.command(.type("Mia")))
        let submitted = session.handle(.command(.activate))
        #expect(session.state.focusedID == "field-age")
        #expect(spoken(submitted).first == "Name: Mia.")
        _ = session.handle(.command(.type("6")))
        _ = session.handle(.command(.activate))
        #expect(session.state.focusedID == "field-interests")
    }

    @Test func aFieldsProblemIsSaidWhenItIsLeft() {
        var session = newForm()
        session.state.focusedID = "field-age"
        _ = session.handle(.command(.type("40")))
        let left = session.handle(.key(.tab))
        #expect(spoken(left).first == "Age: 40 is out of range: type a whole number of years from 2 to 12.")
        #expect(session.state.focusedID == "field-interests")
        #expect(session.state.warning?.hasPrefix("Age:") == true)
        // A field left as it was says nothing (a parent reading the form is not told off).
        #expect(spoken(session.handle(.key(.tab))).first?.hasPrefix("Voice") == true)
        // Put right and left again, the warning goes.
        session.state.focusedID = "field-age"
        for key in [Key.backspace, .backspace, .character("7"), .shiftTab] { _ = session.handle(.key(key)) }
        #expect(session.state.form?.text(of: .age) == "7")
        #expect(session.state.warning == nil)
    }

    @Test func controlSSavesFromAnyFieldAndQuitOrHomeWithUnsavedChangesAskFirst() {
        var session = newForm()
        _ = session.handle(.command(.type("Zoe")))
        let home = session.handle(.key(.home))
        #expect(spoken(home).first == "Discard the changes to this profile? Your changes are not saved.")
        #expect(session.state.route == .profileForm)
        _ = session.handle(.command(.next))
        _ = session.handle(.command(.activate))
        #expect(session.state.focusedID == "cancel")
        let quit = session.handle(.command(.quit))
        #expect(spoken(quit).first == "Discard the changes to this profile? Your changes are not saved.")
        #expect(!quit.contains(.exit))
        #expect(!session.state.hasQuit)
        // Asked once: quitting again leaves.
        #expect(session.handle(.command(.quit)).contains(.exit))

        var saving = newForm()
        _ = saving.handle(.command(.type("Zoe")))
        saving.state.focusedID = "field-age"
        _ = saving.handle(.command(.type("4")))
        let saved = saving.handle(.key(.control("s")))
        #expect(saved.contains { if case .save(.saveProfile(let profile)) = $0 { profile.name == "Zoe" && profile.age == 4 } else { false } })
    }
}
