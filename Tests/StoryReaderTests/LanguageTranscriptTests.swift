import Foundation
import StoryKit
import StoryKitTestSupport
import Testing

/// The interface in Spanish, French and German, end to end: golden caption transcripts of the
/// core flows, every name in its own voice in the speech log, and `list` in the parent's `LANG`.
@Suite(.serialized) struct LanguageTranscriptTests {
    static let folder = TestPaths.repository.appendingPathComponent("Tests/StoryReaderTests/Transcripts")

    /// Choose a profile, find a story by headings, read, pause, where am I, go on to the end.
    static let coreFlow = """
        next
        prev
        activate
        heading
        next
        next
        activate
        activate
        wait 1
        pause
        where
        resume
        wait
        back
        quit
        """

    func transcript(_ name: String, environment: [String: String] = [:], extra: [String] = []) throws -> String {
        let fixture = try ReplFixture(withProfiles: true)
        defer { fixture.remove() }
        let result = try StoryReaderProcess.run(
            fixture.arguments + extra, input: Self.coreFlow, environment: environment,
            dataDirectory: fixture.data)
        #expect(result.status == 0, "stderr: \(result.standardError)")
        #expect(result.standardError.isEmpty, "stderr: \(result.standardError)")
        Snapshot.assertMatches(result.standardOutput, named: name + ".txt", in: Self.folder)
        return result.standardOutput
    }

    /// Runs `script` through a pipe with `--lang language`, expects it to end well and its
    /// captions to match the golden file; returns the captions.
    func scripted(
        _ script: String, _ fixture: ReplFixture, language: String, golden: String,
        sourceLocation: SourceLocation = #_sourceLocation
    ) throws -> String {
        let result = try StoryReaderProcess.run(fixture.arguments + ["--lang", language], input: script, dataDirectory: fixture.data)
        #expect(result.status == 0, "\(result.standardError)", sourceLocation: sourceLocation)
        Snapshot.assertMatches(result.standardOutput, named: golden, in: Self.folder)
        return result.standardOutput
    }

    /// The English words of the core flow: none may be left in a translated transcript.
    static let englishWords = [
        "Profiles", "button", "heading", "Press Enter", "Library", "Story:", "not read yet", "Reading ",
        "Paused at", "sentence 2 of 4", "The end", "Goodbye", "Hello",
    ]

    @Test func spanishFromLANG() throws {
        let output = try transcript("core-flow-es", environment: ["LANG": "es_ES.UTF-8"])
        #expect(output.contains("Hola, Maya. Biblioteca, 3 historias."))
        #expect(output.contains("En pausa en «She», frase 2 de 4."))
        #expect(output.contains("Fin. Maya, has leído The Tiny Fox una vez. Pulsa Escape para volver."))
        for word in Self.englishWords { #expect(!output.contains(word), "English left: \(word)") }
    }

    @Test func frenchFromTheLangOption() throws {
        // --lang wins over LANG.
        let output = try transcript("core-flow-fr", environment: ["LANG": "de_DE.UTF-8"], extra: ["--lang", "fr"])
        #expect(output.contains("Bonjour Maya. Bibliothèque, 3 histoires."))
        #expect(output.contains("En pause à « She », phrase 2 sur 4."))
        for word in Self.englishWords { #expect(!output.contains(word), "English left: \(word)") }
    }

    @Test func germanFromLC_MESSAGES() throws {
        let output = try transcript("core-flow-de", environment: ["LC_MESSAGES": "de_AT.UTF-8"])
        #expect(output.contains("Hallo Maya. Bibliothek, 3 Geschichten."))
        #expect(output.contains("Angehalten bei „She“, Satz 2 von 4."))
        for word in Self.englishWords { #expect(!output.contains(word), "English left: \(word)") }
    }

    /// Make a profile with one mistake (an age of 40), put it right, save: in each language, the
    /// form's labels, hints, the problem and the announcement in that language.
    @Test(arguments: [
        ("es", "Edad: 40 se sale del rango: escribe un número entero de años de 2 a 12.", "Perfil Ada guardado."),
        ("fr", "Âge : 40 est hors limites : tape un nombre entier d'années de 2 à 12.", "Profil Ada enregistré."),
        ("de", "Alter: 40 liegt außerhalb: tipp eine ganze Zahl von Jahren von 2 bis 12.", "Profil Ada gespeichert."),
    ])
    func createAProfileWithOneMistake(_ language: String, _ problem: String, _ saved: String) throws {
        let fixture = try ReplFixture(withProfiles: false)
        defer { fixture.remove() }
        // Save is 19 items after Interests: voice … spacing, language, braille, narration, recording tempo, bedtime,
        // coach waits.
        let toSave = String(repeating: "next\n", count: 19)
        let script =
            "next\nactivate\ntype Ada\nnext\ntype 40\nnext\ntype animals\n" + toSave + "activate\ntype 6\nnext\n" + toSave
            + "activate\nwhere\nquit\n"
        let output = try scripted(script, fixture, language: language, golden: "create-profile-\(language).txt")
        #expect(output.contains(problem), "\(output)")
        #expect(output.contains(saved))
        let ada = try fixture.openStore().requireProfile(named: "Ada")
        #expect(ada.age == 6 && ada.interests == ["animals"])
        for word in ["Press Enter", "button", "text field", "is out of range", "New profile"] {
            #expect(!output.contains(word), "English left: \(word)")
        }
    }

    @Test func profileAddAnswersInTheParentsLANG() throws {
        let fixture = try ReplFixture(withProfiles: false)
        defer { fixture.remove() }
        let added = try StoryReaderProcess.run(
            ["profile", "add", "--name", "Ada", "--age", "8", "--data-dir", fixture.data],
            environment: ["LANG": "fr_FR.UTF-8"], dataDirectory: fixture.data)
        #expect(added.status == 0, "\(added.standardError)")
        #expect(added.standardOutput == "Ajouté : Ada, 8 ans.\n")
        let english = try StoryReaderProcess.run(
            ["profile", "add", "--name", "Bo", "--age", "7", "--data-dir", fixture.data],
            dataDirectory: fixture.data)
        #expect(english.standardOutput == "Added Bo, age 7.\n")
    }

    /// A parent opens Settings in English, moves through it, turns Language to Français: the
    /// answer, the rest of Settings and the library are French at once, and the choice is kept.
    @Test func settingsSwitchTheLanguageLive() throws {
        let fixture = try ReplFixture(withProfiles: true)
        defer { fixture.remove() }
        let script = "activate\nsettings\nnext\nnext\nset language fr\nnext\nwhere\nback\nquit\n"
        let result = try StoryReaderProcess.run(fixture.arguments, input: script, dataDirectory: fixture.data)
        #expect(result.status == 0, "\(result.standardError)")
        Snapshot.assertMatches(result.standardOutput, named: "settings-language.txt", in: Self.folder)
        #expect(result.standardOutput.contains("Settings. Voice, the story's language, adjustable."))
        #expect(result.standardOutput.contains("Langue : Français."))
        #expect(result.standardOutput.contains("Réglages fermés : tes changements sont enregistrés."))
        #expect(try fixture.openStore().requireProfile(named: "Maya").settings.interfaceLanguage == "fr")
    }

    /// Settings in each language: every setting heard in turn (its label, value and how to change
    /// it), a speed changed with an arrow and by `set`, a value refused, where am I, and leaving.
    @Test(arguments: [
        ("es", "Velocidad: 160 palabras por minuto.", "Tamaño del texto"),
        ("fr", "Vitesse : 160 mots par minute.", "Taille du texte"),
        ("de", "Tempo: 160 Wörter pro Minute.", "Textgröße"),
    ])
    func settingsInTheChildsLanguage(_ language: String, _ speed: String, _ textSize: String) throws {
        let fixture = try ReplFixture(withProfiles: true)
        defer { fixture.remove() }
        let script = "activate\nsettings\n" + String(repeating: "next\n", count: 18) + "set rate 160\nset rate fast\nwhere\nback\nquit\n"
        let output = try scripted(script, fixture, language: language, golden: "settings-\(language).txt")
        #expect(output.contains(speed), "\(output)")
        #expect(output.contains(textSize))
        for word in ["Settings", "adjustable", "Left and Right", "words per minute", "Text size", "button", "Press Enter", "closed"] {
            #expect(!output.contains(word), "English left: \(word)")
        }
        #expect(try fixture.openStore().requireProfile(named: "Maya").speech.rate == 160)
    }

    @Test func anUnknownLangIsRefusedWithTheChoices() throws {
        let result = try StoryReaderProcess.run(["list", "--lang", "tlh"])
        #expect(result.status != 0)
        #expect(result.standardError.contains("choose en, es, fr, de"), "\(result.standardError)")
    }

    /// The speech log: in an English interface a Spanish title is an `en` run then an `es` run;
    /// in a Spanish interface the title and its words are one `es` run.
    @Test func theSpeechLogShowsEachNameInItsOwnLanguage() throws {
        for (language, expected) in [
            ("en", "runs en[Story: ] es[El dragón que tenía hipo] en[, not read yet, ages 4 to 8, button."),
            ("es", "runs es[Historia: El dragón que tenía hipo, aún sin leer, de 4 a 8 años, botón."),
        ] {
            let folder = try TemporaryFolder("speech-runs")
            defer { folder.remove() }
            let log = folder.url.appendingPathComponent("speech.log").path
            // Reader, the default profile (age 6), sees the bundled stories by age: Ages 4 to 8 holds the dragon.
            let script = "activate\n" + String(repeating: "next\n", count: 40) + "quit\n"
            let result = try StoryReaderProcess.run(
                ["--no-audio", "--lang", language], input: script,
                environment: ["STORYREADER_SPEECH_LOG": log])
            #expect(result.status == 0, "\(result.standardError)")
            let lines = (try? String(contentsOfFile: log, encoding: .utf8)) ?? ""
            #expect(lines.contains(expected), "\(language): \(lines)")
        }
    }

    /// `list` on a terminal: its table's header row in the parent's language.
    @Test func listSpeaksThePARENTsLANG() throws {
        guard let script = ExternalProcess.find("script") else {
            Issue.record("script (util-linux) is missing")
            return
        }
        func table(_ lang: String) throws -> String {
            let command = "\(TestPaths.binary.path) list"
            var environment = ProcessInfo.processInfo.environment
            for name in ["LC_ALL", "LC_MESSAGES", "LANGUAGE"] { environment.removeValue(forKey: name) }
            environment["LANG"] = lang
            environment["TERM"] = "xterm"
            environment["COLUMNS"] = "100"
            environment["STORYREADER_DATA_DIR"] = NSTemporaryDirectory() + "storyreader-list-\(UUID().uuidString.prefix(8))"
            defer { try? FileManager.default.removeItem(atPath: environment["STORYREADER_DATA_DIR"]!) }
            let result = try ExternalProcess.run(script, ["-qfec", command, "/dev/null"], environment: environment)
            #expect(result.status == 0, "\(result.standardError)")
            return result.standardOutput
        }
        let spanish = try table("es_ES.UTF-8")
        let header = try #require(spanish.split(separator: "\n").first { $0.contains("Título") }, "\(spanish)")
        #expect(header.contains("Edades") && header.contains("Idioma") && header.contains("Palabras") && header.contains("Temas"))
        let english = try table("C")
        #expect(english.split(separator: "\n").contains { $0.hasPrefix("Title") && $0.contains("Ages") && $0.contains("Words") }, "\(english)")
        #expect(!english.contains("Título"))
    }
}
