import Foundation
import StoryKitTestSupport
import Synchronization
import Testing

@testable import StoryKit

/// The session in the child's language: which language, the screens and announcements in it,
/// and every name in its own voice (utterances cut into runs by language).
@Suite struct LanguageSessionTests {
    func snapshot(voice: String? = nil, language: String? = nil) -> SessionSnapshot {
        var maya = ChildProfile(id: 1, name: "Maya", age: 5, interests: [])
        maya.speech.voice = voice
        maya.settings.interfaceLanguage = language
        return SessionSnapshot(profiles: [maya, ChildProfile(id: 2, name: "Sam", age: 9)])
    }

    func session(_ snapshot: SessionSnapshot, profile: String? = nil, system: String = "en", forced: String? = nil) -> Session {
        var options = SessionOptions()
        options.systemLanguage = system
        options.interfaceLanguage = forced
        return Session(
            catalog: SessionFixtures.catalog, snapshot: snapshot, options: options, profile: profile,
            languages: LanguageFixtures.languages)
    }

    func utterances(_ effects: [Effect]) -> [Utterance] {
        effects.compactMap { if case .speak(let utterance) = $0 { utterance } else { nil } }
    }

    /// Issue 43: the form's example interests are the stories' tags, typed as they are: in a
    /// Spanish interface they are said in the English voice, the rest of the hint in the Spanish one.
    @Test func theFormsExampleInterestsAreSaidInTheEnglishVoice() throws {
        var session = session(snapshot(language: "es"), profile: "Maya")
        _ = session.asParent(.newProfile)
        var said: Utterance?
        for _ in 0..<6 where session.state.focusedID != "field-interests" {
            said = utterances(session.handle(.command(.next))).last
        }
        #expect(session.state.focusedID == "field-interests")
        let runs = try #require(said?.runs)
        #expect(runs.contains { $0.language == "en" && $0.text.contains(ProfileField.exampleInterests) }, "\(runs)")
        #expect(runs.first?.language == "es", "\(runs)")
    }

    /// Focus on the card of "El dragón que tenía hipo" (Maya is 5: it is in her library).
    func focusDragon(_ session: inout Session) -> Utterance? {
        let card = FocusEngine(screen: session.screen).order.first { $0.id.hasSuffix("/el-dragon-que-tenia-hipo") }
        guard let card else { return nil }
        var said: Utterance?
        for _ in 0..<40 where session.state.focusedID != card.id {
            said = utterances(session.handle(.command(.next))).last
        }
        return session.state.focusedID == card.id ? said : nil
    }

    @Test func theLanguageIsTheProfilesElseItsVoicesElseTheSystemsAndLangOverridesThemAll() {
        #expect(session(snapshot(), system: "de").state.language == "de", "before a profile is chosen: the system's")
        #expect(session(snapshot(), profile: "Maya", system: "de").state.language == "de", "no choice, no voice: the system's")
        #expect(session(snapshot(voice: "fr+f3"), profile: "Maya", system: "de").state.language == "fr", "the voice's language")
        #expect(session(snapshot(voice: "fr", language: "es"), profile: "Maya", system: "de").state.language == "es", "the profile's choice")
        #expect(session(snapshot(voice: "fr", language: "es"), profile: "Maya", system: "de", forced: "en").state.language == "en", "--lang")
        #expect(InterfaceLanguages.defaultLanguage(voice: "zz", system: "fr") == "fr", "a voice the interface does not speak")
    }

    @Test func anEnglishInterfaceSaysASpanishTitleInTheSpanishVoice() throws {
        var session = session(snapshot(), profile: "Maya")
        _ = session.start()
        let said = try #require(focusDragon(&session))
        #expect(
            said.text
                == "Story: El dragón que tenía hipo, not read yet, ages 4 to 8, button. Press Enter to open. Press A for actions: Read, Save to favourites.")
        #expect(said.runs.map(\.language) == ["en", "es", "en"])
        #expect(
            said.runs.map(\.text) == [
                "Story: ", "El dragón que tenía hipo",
                ", not read yet, ages 4 to 8, button. Press Enter to open. Press A for actions: Read, Save to favourites.",
            ])
        #expect(said.runs.map(\.text).joined() == said.text, "the caption is the runs joined")
    }

    @Test func aSpanishInterfaceSaysTheTitleWithItsWordsInOneSpanishRun() throws {
        var session = session(snapshot(language: "es"), profile: "Maya")
        _ = session.start()
        let said = try #require(focusDragon(&session))
        #expect(said.text.hasPrefix("Historia: El dragón que tenía hipo, aún sin leer, de 4 a 8 años, botón. Pulsa Intro para abrir."))
        #expect(said.runs == [SpeechRun(text: said.text, language: "es")])
        #expect(said.language == "es")
    }

    @Test func anEnglishTitleInAFrenchInterfaceIsAnEnglishRun() {
        let runs = SpeechRun.runs(
            of: "Histoire : Bedtime for Bear, pas encore lue.", language: "fr",
            names: [SpeechRun(text: "Bedtime for Bear", language: "en"), SpeechRun(text: "Bear", language: "en")])
        #expect(
            runs == [
                SpeechRun(text: "Histoire : ", language: "fr"), SpeechRun(text: "Bedtime for Bear", language: "en"),
                SpeechRun(text: ", pas encore lue.", language: "fr"),
            ])
        // Whole words only: a title inside a longer word is not a title.
        #expect(SpeechRun.runs(of: "Bearings.", language: "fr", names: [SpeechRun(text: "Bear", language: "en")]).count == 1)
        // A run of punctuation alone joins its neighbour.
        #expect(
            SpeechRun.runs(of: "Magical Stories.", language: "es", names: [SpeechRun(text: "Magical Stories", language: "en")])
                == [SpeechRun(text: "Magical Stories.", language: "en")])
    }

    @Test func choosingAProfileSwitchesTheLanguageWithoutRestarting() {
        var session = session(snapshot(language: "fr"), system: "de")
        let opening = utterances(session.start()).map(\.text)
        #expect(opening.last?.hasPrefix("Profile. Maya, 5 Jahre, Schalter.") == true, "\(opening)")
        let chosen = utterances(session.handle(.command(.activate))).map(\.text)
        #expect(chosen.first?.hasPrefix("Bonjour Maya. Bibliothèque, ") == true, "\(chosen)")
    }

    @Test func theSettingsPickerNamesEachLanguageInItselfAndSpeaksInTheNewOne() {
        var session = session(snapshot(), profile: "Maya")
        _ = session.start()
        var said = utterances(session.handle(.command(.set(name: "language", value: "de")))).map(\.text)
        #expect(said.first == "Sprache: Deutsch.")
        #expect(session.state.profile.settings.interfaceLanguage == "de")
        said = utterances(session.handle(.command(.set(name: "language", value: "Français")))).map(\.text)
        #expect(said.first == "Langue : Français.")
        said = utterances(session.handle(.command(.set(name: "language", value: "klingon")))).map(\.text)
        #expect(said.first?.contains("English, Español, Français, Deutsch") == true, "\(said)")
        _ = session.handle(.command(.settings))
        let picker = FocusEngine(screen: session.screen).order.first { $0.id == "setting-language" }
        #expect(picker?.label == "Langue" && picker?.value == "Français", "\(String(describing: picker))")
        // Enter goes round automatic and every language, each named in itself (Left and Right
        // stop at the ends, as every picker does).
        var values: [String] = []
        for _ in 0..<5 {
            _ = session.adjust(.language, up: true, wraps: true)
            values.append(Screens.settingValue(.language, session.state.profile, messages: session.state.messages))
        }
        // (Automatic is said in the language it falls back to: English here.)
        #expect(values == ["Deutsch", "automatic", "English", "Español", "Français"])
    }

    @Test func theKiosksTimeMessagesInFrenchWithFrenchPlurals() {
        var session = session(snapshot(language: "fr"), profile: "Maya")
        session.startKiosk(KioskOptions(idleTimeout: nil, timeLimit: 600), now: 1000)
        let opening = utterances(session.kioskOpening()).map(\.text)
        #expect(opening == ["10 minutes pour lire. Appuie sur t pour entendre combien il reste."])
        #expect(utterances(session.handle(.tick(1300))).map(\.text) == ["Il reste 5 minutes."])
        #expect(utterances(session.handle(.tick(1540))).map(\.text) == ["Il reste 1 minute."])
        #expect(session.screen.elements.last?.label == "Temps restant")
        #expect(
            utterances(session.handle(.tick(1600))).map(\.text)
                == [
                    "Le temps est fini. Ta place dans l'histoire est gardée. Un adulte peut appuyer sur F12, ou Contrôle et le crochet droit, et taper le code PIN pour ajouter du temps."
                ])
        #expect(session.screen.title == "Le temps est fini")
        #expect(Session.spokenDuration(1, LanguageFixtures.languages.catalog("fr")) == "1 seconde")
        #expect(Session.spokenDuration(0.4, LanguageFixtures.languages.catalog("fr")) == "1 seconde")
        #expect(Session.spokenDuration(45, LanguageFixtures.languages.catalog("de")) == "45 Sekunden")
    }

    /// A theme, a text size, reduced motion and spacing are shown and said in the child's
    /// language, and `set` takes the shown word as well as the name a parent types.
    @Test func choicesAreNamedInTheChildsLanguage() {
        var session = session(snapshot(language: "es"), profile: "Maya")
        _ = session.handle(.command(.settings))
        let theme = FocusEngine(screen: session.screen).order.first { $0.id == "setting-theme" }
        #expect(theme?.value == "predeterminado", "\(String(describing: theme))")
        #expect(utterances(session.handle(.command(.set(name: "theme", value: "Oscuro")))).map(\.text) == ["Tema: oscuro."])
        #expect(session.state.profile.theme == .dark)
        _ = session.handle(.command(.set(name: "text-size", value: "muy grande")))
        #expect(session.state.profile.textSize == .xLarge)
        _ = session.handle(.command(.set(name: "spacing", value: "amplio")))
        #expect(session.state.profile.settings.aids.spacing == .wide)
        // The typed names always work, also where a language's word is another choice's name
        // (French says "large" for wide spacing).
        var french = self.session(snapshot(language: "fr"), profile: "Maya")
        _ = french.handle(.command(.set(name: "text-size", value: "large")))
        #expect(french.state.profile.textSize == .large)
        _ = french.handle(.command(.set(name: "text-size", value: "très grand")))
        #expect(french.state.profile.textSize == .xLarge)
        // Within one setting, no two choices share a shown name in any language.
        for language in ["en", "es", "fr", "de"] {
            let catalog = LanguageFixtures.languages.catalog(language)
            for names in [
                TextSizePreset.allCases.map(\.rawValue), ThemeName.allCases.map(\.rawValue),
                MotionPreference.allCases.map(\.rawValue), TextSpacing.allCases.map(\.rawValue),
            ] {
                let shown = names.map { ChoiceNames.fold(ChoiceNames.shown($0, catalog)) }
                #expect(Set(shown).count == names.count, "\(language): \(shown)")
            }
        }
    }

    /// Reading without a profile: the guest is called by the interface's word for it.
    @Test func theGuestIsNamedInTheChildsLanguage() {
        var session = session(snapshot(), system: "de")
        session.state.profileName = nil
        session.state.stack = [.library]
        let profile = FocusEngine(screen: session.screen).order.first { $0.label.hasPrefix("Profil") }
        #expect(profile?.label == "Profil: Gast" || profile?.value == "Gast", "\(String(describing: profile))")
        #expect(session.state.storedProfile.name == "Gast")
        var english = self.session(snapshot(), system: "en")
        english.state.profileName = nil
        #expect(english.state.storedProfile.name == "Guest")
    }

    @Test func pauseAndWhereAmIInGerman() throws {
        var session = session(snapshot(language: "de"), profile: "Maya")
        _ = session.start()
        _ = session.handle(.command(.read("bedtime for bear")))
        _ = session.handle(.narration(.word(3)))
        let paused = utterances(session.handle(.command(.pause))).map(\.text)
        #expect(paused.last?.hasPrefix("Angehalten bei „") == true, "\(paused)")
        let whereAmI = utterances(session.handle(.command(.whereAmI)))
        let text = try #require(whereAmI.first?.text)
        #expect(text.hasPrefix("Bedtime for Bear, angehalten bei „"), "\(text)")
        #expect(text.contains("Seite 1 von "), "\(text)")
        // The English title and the quoted English word in their own voice, the rest in German.
        let runs = try #require(whereAmI.first?.runs)
        #expect(runs.first == SpeechRun(text: "Bedtime for Bear", language: "en"))
        #expect(runs.dropFirst().allSatisfy { $0.language == "de" || ($0.language == "en" && $0.text.hasPrefix("„") && $0.text.hasSuffix("“")) }, "\(runs)")
        #expect(runs.contains { $0.language == "en" && $0.text.hasPrefix("„") }, "\(runs)")
    }
}

/// The runs as eSpeak NG hears them: one SSML synthesis, the foreign run in its own voice.
@Suite struct SpeechRunSSMLTests {
    let english = SpeechSettings(rate: 175, pitch: 50, volume: 100, voice: "en")
    let runs = [
        SpeechRun(text: "Story: ", language: "en"), SpeechRun(text: "El dragón que tenía hipo", language: "es"),
        SpeechRun(text: ", button.", language: "en"),
    ]

    @Test func foreignRunsAreWrappedAndEveryRunEscaped() {
        #expect(
            SpeechRun.ssml(runs, voice: "en+f3")
                == "<speak>Story: <voice xml:lang=\"es\">El dragón que tenía hipo</voice>, button.</speak>")
        #expect(
            SpeechRun.ssml([SpeechRun(text: "Tom & <Jerry>", language: "fr")], voice: "en")
                == "<speak><voice xml:lang=\"fr\">Tom &amp; &lt;Jerry&gt;</voice></speak>")
        #expect(SpeechRun.ssml([SpeechRun(text: "Hola", language: "es")], voice: "es") == nil, "one voice says it all: plain text")
        #expect(SpeechRun.ssml([SpeechRun(text: "Hola", language: "es")], voice: nil) != nil, "no voice is English")
    }

    @Test func theSpanishTitleIsSaidByTheSpanishVoiceInOneSynthesis() throws {
        func samples(_ utterance: SpeechUtterance) throws -> [Int16] {
            let all = Mutex<[Int16]>([])
            let result = try EspeakEngine.shared.synthesize(utterance, stop: nil) { chunk in
                all.withLock { $0 += Array(chunk.samples) }
                return .proceed
            }
            #expect(!result.wasStopped)
            return all.withLock { $0 }
        }
        let ssml = try #require(SpeechRun.ssml(runs, voice: "en"))
        let mixed = try samples(SpeechUtterance(text: ssml, settings: english, encoding: .ssml))
        let plain = try samples(SpeechUtterance(text: runs.map(\.text).joined(), settings: english, encoding: .plain))
        #expect(mixed.count > 22050, "a second and more of speech")
        #expect(mixed != plain, "the title in the Spanish voice sounds different from the English voice's guess")
        // The espeak-ng command with the same SSML says the same length of speech (±10 %).
        let espeak = try #require(ExternalProcess.find("espeak-ng"), "espeak-ng is missing")
        let folder = try TemporaryFolder("ssml")
        defer { folder.remove() }
        let wav = folder.url.appendingPathComponent("mixed.wav")
        let run = try ExternalProcess.run(
            espeak, ["-m", "-v", "en", "-s", "175", "-p", "50", "-a", "100", "-w", wav.path, ssml],
            environment: ["PATH": "/usr/bin:/bin"])
        #expect(run.status == 0, "\(run.standardError)")
        let cliSamples = ((try Data(contentsOf: wav)).count - 44) / 2
        #expect(abs(cliSamples - mixed.count) < cliSamples / 10, "ours \(mixed.count), espeak-ng \(cliSamples)")
    }

    @Test func theVoiceAfterAMixedUtteranceIsTheOneAskedFor() throws {
        func count(_ utterance: SpeechUtterance) throws -> Int {
            try EspeakEngine.shared.synthesize(utterance, stop: nil) { _ in .proceed }.sampleCount
        }
        let sentence = SpeechUtterance(text: "The little cat sat by the window and watched the rain all afternoon.", settings: english)
        let before = try count(sentence)
        _ = try count(SpeechUtterance(text: try #require(SpeechRun.ssml(runs, voice: "en")), settings: english, encoding: .ssml))
        let after = try count(sentence)
        // SSML's <voice> changes eSpeak's voice behind the engine's back: the next text must
        // still be said by the English voice (a Spanish one takes a very different time).
        #expect(abs(after - before) < before / 100, "before \(before), after \(after)")
    }
}
