import Foundation
import StoryKit
import StoryKitTestSupport
import Testing

/// The problems that were still English, in the parent's language, end to end with the built
/// binary: a folder given to --stories, an age range in a story's header (also when the library's
/// cache gives it back), an EPUB as a whole and the file named before a refusal in `import`,
/// config.toml, and narration, speech engine and audio errors. LANG=C stays English.
@Suite(.serialized) struct ProblemLanguageTests {
    static let spanish = ["LANG": "es_ES.UTF-8"]
    static let french = ["LANG": "fr_FR.UTF-8"]
    static let german = ["LC_MESSAGES": "de_DE.UTF-8"]
    static let english = ["LANG": "C"]

    /// English phrases of the messages these tests reach: none may be left in another language.
    static let englishPhrases = [
        "this folder does not exist", "leads back to itself", "leads back to a folder already read", "goes backwards",
        "is not an age range", "Media Overlays (a recorded narration)", "chapter skipped", "not well-formed",
        "is not an EPUB", "empty spine", "not imported", "is not a value", "must be", "is not a setting", "no section",
        "cannot open audio device", "reading without sound", "no voice for language", "nothing to read aloud", "cannot write",
    ]

    static func expectNoEnglish(_ text: String, _ sourceLocation: SourceLocation = #_sourceLocation) {
        for phrase in englishPhrases {
            #expect(!text.contains(phrase), "English left: '\(phrase)' in \(text)", sourceLocation: sourceLocation)
        }
    }

    // MARK: - Folders given to --stories

    @Test func aMissingStoriesFolderIsSaidInTheParentsLanguage() throws {
        let expected = [
            (Self.spanish, "storyreader: /no/such/folder: esta carpeta no existe: comprueba la ruta que diste a --stories, o crea la carpeta\n"),
            (Self.french, "storyreader: /no/such/folder: ce dossier n'existe pas : vérifie le chemin donné à --stories, ou crée le dossier\n"),
            (Self.german, "storyreader: /no/such/folder: diesen Ordner gibt es nicht: prüfe den Pfad bei --stories oder lege den Ordner an\n"),
            (Self.english, "storyreader: /no/such/folder: this folder does not exist: check the path given to --stories, or create the folder\n"),
        ]
        for (environment, line) in expected {
            for command in [["list"], ["show", "fox"], ["read", "fox", "--no-audio"]] {
                let result = try StoryReaderProcess.run(command + ["--stories", "/no/such/folder"], environment: environment)
                #expect(result.standardError.hasPrefix(line), "\(command) \(environment): \(result.standardError)")
                if environment != Self.english { Self.expectNoEnglish(result.standardError) }
            }
        }
    }

    /// A link loop, a folder that leads back to one already read and an age range written
    /// backwards: in Spanish, again in Spanish from the library's cache, then in German from it.
    @Test func linkLoopsAndABackwardsAgeRangeAreSaidInSpanishAndGermanAlsoFromTheCache() throws {
        let folder = try TemporaryFolder("problem-folder")
        defer { folder.remove() }
        let data = try TemporaryFolder("problem-data")
        defer { data.remove() }
        try folder.write("backwards.md", "---\ntitle: T\nages: 7-4\n---\n\nText.\n")
        try folder.write("good.md", "---\ntitle: Good\n---\n\nOnce.\n")
        try FileManager.default.createSymbolicLink(atPath: folder.path + "/loop.md", withDestinationPath: "loop.md")
        try FileManager.default.createDirectory(atPath: folder.path + "/sub", withIntermediateDirectories: true)
        try FileManager.default.createSymbolicLink(atPath: folder.path + "/sub/back", withDestinationPath: "..")
        let spanish = [
            "storyreader: \(folder.path)/loop.md: aviso: es un enlace que lleva a sí mismo: se omite",
            "storyreader: \(folder.path)/sub/back: aviso: lleva a una carpeta ya leída (un bucle de enlaces): se omite",
            "storyreader: \(folder.path)/backwards.md, línea 3: ages '7-4' va al revés: escribe primero la edad menor, como 4-7",
        ]
        for run in 1...2 {
            let result = try StoryReaderProcess.run(["list", "--stories", folder.path], environment: Self.spanish, dataDirectory: data.path)
            #expect(result.status == 0)
            #expect(result.standardError.split(separator: "\n").map(String.init) == spanish, "run \(run): \(result.standardError)")
        }
        #expect(FileManager.default.fileExists(atPath: data.path + "/story-cache.v1"), "the second run read the cache")
        let german = try StoryReaderProcess.run(["list", "--stories", folder.path], environment: Self.german, dataDirectory: data.path)
        #expect(
            german.standardError.split(separator: "\n").map(String.init) == [
                "storyreader: \(folder.path)/loop.md: Warnung: ist ein Link, der auf sich selbst zurückführt: übersprungen",
                "storyreader: \(folder.path)/sub/back: Warnung: führt zu einem schon gelesenen Ordner zurück (eine Link-Schleife): übersprungen",
                "storyreader: \(folder.path)/backwards.md, Zeile 3: ages '7-4' ist verkehrt herum: schreib das jüngere Alter zuerst, wie 4-7",
            ], "\(german.standardError)")
        let english = try StoryReaderProcess.run(["list", "--stories", folder.path], environment: Self.english, dataDirectory: data.path)
        #expect(
            english.standardError.split(separator: "\n").map(String.init) == [
                "storyreader: \(folder.path)/loop.md: warning: is a link that leads back to itself: skipped",
                "storyreader: \(folder.path)/sub/back: warning: leads back to a folder already read (a link loop): skipped",
                "storyreader: \(folder.path)/backwards.md, line 3: ages '7-4' goes backwards: write the younger age first, like 4-7",
            ], "\(english.standardError)")
    }

    /// `import` of a story whose age range is not one refuses it in French.
    @Test func anAgeRangeThatIsNotOneRefusesAnImportInFrench() throws {
        let data = try TemporaryFolder("problem-ages")
        defer { data.remove() }
        let bad = try data.write("bad.md", "---\ntitle: Bad\nages: abc\n---\n\nText.\n")
        let result = try StoryReaderProcess.run(["import", bad.path], environment: Self.french, dataDirectory: data.path)
        #expect(result.status == 1)
        #expect(
            result.standardError == """
                storyreader: \(bad.path), ligne 3: ages 'abc' n'est pas une tranche d'âge : écris deux âges comme 4-7 (pas importé)
                storyreader: 0 importée, 1 refusée

                """, "\(result.standardError)")
    }

    // MARK: - Books

    /// A picture book with Media Overlays and a broken chapter, imported in French: both warnings
    /// in French, in the dry run's list too.
    @Test func aBooksWarningsAreSaidInFrench() throws {
        let data = try TemporaryFolder("problem-epub")
        defer { data.remove() }
        let manifest =
            #"<item id="nav" href="nav.xhtml" properties="nav" media-type="application/xhtml+xml"/><item id="p1" href="p1.xhtml" media-type="application/xhtml+xml" media-overlay="s1"/><item id="s1" href="p1.smil" media-type="application/smil+xml"/><item id="p2" href="broken.xhtml" media-type="application/xhtml+xml"/>"#
        let opf = """
            <?xml version="1.0"?><package xmlns="http://www.idpf.org/2007/opf" version="3.0" xmlns:dc="http://purl.org/dc/elements/1.1/">
            <metadata><dc:title>Bear</dc:title><dc:language>en</dc:language></metadata>
            <manifest>\(manifest)</manifest><spine><itemref idref="p1"/><itemref idref="p2"/></spine></package>
            """
        let url = try EPUBFixtures.make(
            data.url.appendingPathComponent("bear.epub"), opf: opf,
            files: [
                ("OEBPS/nav.xhtml", EPUBFixtures.xhtml("")),
                ("OEBPS/p1.xhtml", EPUBFixtures.xhtml("<p>The bear walks in the snow.</p>")),
                ("OEBPS/broken.xhtml", "<html><body><p a=>x</p></body></html>"),
            ])
        let overlays = "bear.epub contient des Media Overlays (une narration enregistrée) qui ne peuvent pas être joués : son texte est lu par eSpeak NG"
        let skipped = "bear.epub, OEBPS/broken.xhtml : XHTML mal formé (ligne 1) (chapitre ignoré)"
        let dry = try StoryReaderProcess.run(["import", "--dry-run", url.path], environment: Self.french, dataDirectory: data.path)
        #expect(dry.status == 0, "\(dry.standardError)")
        #expect(dry.standardError == "storyreader: \(overlays)\nstoryreader: \(skipped)\n", "\(dry.standardError)")
        #expect(dry.standardOutput.contains("  attention : \(overlays)\n  attention : \(skipped)\n"), "\(dry.standardOutput)")
        Self.expectNoEnglish(dry.standardOutput + dry.standardError)
        let english = try StoryReaderProcess.run(["import", "--dry-run", url.path], environment: Self.english, dataDirectory: data.path)
        #expect(
            english.standardError == """
                storyreader: bear.epub has Media Overlays (a recorded narration) that cannot be played: its text is read by eSpeak NG
                storyreader: bear.epub, OEBPS/broken.xhtml: not well-formed XHTML (line 1) (chapter skipped)

                """, "\(english.standardError)")
        let imported = try StoryReaderProcess.run(["import", url.path], environment: Self.french, dataDirectory: data.path)
        #expect(imported.status == 0, "\(imported.standardError)")
        #expect(imported.standardError == "storyreader: \(overlays)\nstoryreader: \(skipped)\n", "\(imported.standardError)")
    }

    /// Books that cannot be read are refused in German, each naming its file; a file that is no
    /// story is refused in French after its name (a plain colon after a path, in every language).
    @Test func refusedBooksAndTheFileBeforeARefusalAreInTheParentsLanguage() throws {
        let data = try TemporaryFolder("problem-bad-epub")
        defer { data.remove() }
        let notZip = try data.write("not-a-zip.epub", "hello")
        let noContainer = try EPUBFixtures.make(data.url.appendingPathComponent("no-container.epub"), opf: "<package/>", files: [], container: false)
        let emptySpine = try EPUBFixtures.make(data.url.appendingPathComponent("empty.epub"), opf: "<package><manifest/><spine/></package>", files: [])
        let german = try StoryReaderProcess.run(["import", notZip.path, noContainer.path, emptySpine.path], environment: Self.german, dataDirectory: data.path)
        #expect(german.status == 1)
        #expect(
            german.standardError == """
                storyreader: not-a-zip.epub ist kein EPUB (kein Zip-Archiv) (nicht importiert)
                storyreader: no-container.epub ist kein EPUB: es hat keine META-INF/container.xml (nicht importiert)
                storyreader: empty.epub: das Paket nennt kein Dokument zum Lesen (ein leerer Spine) (nicht importiert)
                storyreader: 0 importiert, 3 abgelehnt

                """, "\(german.standardError)")
        let notes = try data.write("notes.doc", "hello")
        let french = try StoryReaderProcess.run(["import", notes.path], environment: Self.french, dataDirectory: data.path)
        #expect(
            french.standardError.hasPrefix(
                "storyreader: \(notes.path): pas importé : un fichier d'histoire finit par .md, .markdown ou .txt, un livre par .epub, et un livre DAISY est un dossier ou un .zip\n"
            ),
            "\(french.standardError)")
        let english = try StoryReaderProcess.run(["import", notes.path], environment: Self.english, dataDirectory: data.path)
        #expect(
            english.standardError.hasPrefix(
                "storyreader: \(notes.path): not imported: a story file ends in .md, .markdown or .txt, a book in .epub, a DAISY book is a folder or a .zip\n"),
            "\(english.standardError)")
    }

    // MARK: - config.toml

    static func configFolder(_ text: String) throws -> (folder: TemporaryFolder, file: String) {
        let folder = try TemporaryFolder("problem-config")
        try folder.write("storyreader/config.toml", text)
        return (folder, folder.url.appendingPathComponent("storyreader/config.toml").path)
    }

    @Test func aBadConfigLineIsSaidInGermanAndSpanishAndTypedLangWins() throws {
        let (bad, file) = try Self.configFolder("[display]\ntheme = \"dark\"\ntext-size = huge\n")
        defer { bad.remove() }
        let environment = ["XDG_CONFIG_HOME": bad.path]
        let german = try StoryReaderProcess.run(["list"], environment: environment.merging(Self.german) { $1 })
        #expect(german.status == 1)
        #expect(
            german.standardError
                == "storyreader: \(file), Zeile 3: 'huge' ist kein Wert: Text gehört in Anführungszeichen (\"huge\"), sonst nimm eine Zahl, true oder false\n")
        // --lang as typed wins over the environment, before the arguments are parsed.
        let typed = try StoryReaderProcess.run(["list", "--lang", "fr"], environment: environment.merging(Self.german) { $1 })
        #expect(
            typed.standardError
                == "storyreader: \(file), ligne 3: 'huge' n'est pas une valeur : le texte va entre guillemets (\"huge\"), ou utilise un nombre, true ou false\n"
        )
        let english = try StoryReaderProcess.run(["list"], environment: environment.merging(Self.english) { $1 })
        #expect(
            english.standardError == "storyreader: \(file), line 3: 'huge' is not a value: text goes in quotes (\"huge\"), or use a number, true or false\n")

        // A value of the wrong kind: both kinds said in Spanish.
        let (wrongKind, kindFile) = try Self.configFolder("[kiosk]\nprofile = 7\n")
        defer { wrongKind.remove() }
        let spanish = try StoryReaderProcess.run(["list"], environment: ["XDG_CONFIG_HOME": wrongKind.path].merging(Self.spanish) { $1 })
        #expect(spanish.standardError == "storyreader: \(kindFile), línea 2: 'profile' debe ser texto entre comillas, no un número\n")
        // A section that does not exist: its list of sections joined in German.
        let (section, sectionFile) = try Self.configFolder("[sound]\n")
        defer { section.remove() }
        let noSection = try StoryReaderProcess.run(["list"], environment: ["XDG_CONFIG_HOME": section.path].merging(Self.german) { $1 })
        #expect(
            noSection.standardError
                == "storyreader: \(sectionFile), Zeile 1: es gibt keinen Abschnitt [sound]: nimm [braille] oder [display] oder [kiosk] oder [reading] oder keinen\n"
        )
    }

    // MARK: - Narration, speech and audio

    /// No sound card here: a device that cannot be opened falls back to paced silence with one
    /// notice, in Spanish, for `read` and the REPL.
    @Test func aDeviceThatCannotBeOpenedIsSaidInSpanish() throws {
        let read = try StoryReaderProcess.run(["read", "pip-and-the-puddle", "--from", "43", "--device", "no-such-device"], environment: Self.spanish)
        #expect(read.status == 0, "\(read.standardError)")
        let notice =
            "no se puede abrir el dispositivo de sonido 'no-such-device': \(Self.alsaReason); se lee sin sonido (el texto se sigue resaltando al ritmo de la voz)"
        #expect(read.standardError.components(separatedBy: "storyreader: \(notice)\n").count - 1 == 1, "\(read.standardError)")
        Self.expectNoEnglish(read.standardError)

        let fixture = try ReplFixture(withProfiles: false)
        defer { fixture.remove() }
        let repl = try StoryReaderProcess.run(
            ["--stories", fixture.stories, "--data-dir", fixture.data, "--device", "no-such-device"],
            input: "quit\n", environment: Self.spanish, dataDirectory: fixture.data)
        #expect(repl.status == 0, "\(repl.standardError)")
        #expect(repl.standardOutput.contains(notice + "\n"), "\(repl.standardOutput)")
        Self.expectNoEnglish(repl.standardOutput)

        let english = try StoryReaderProcess.run(["read", "pip-and-the-puddle", "--from", "43", "--device", "no-such-device"], environment: Self.english)
        #expect(
            english.standardError.contains(
                "storyreader: cannot open audio device 'no-such-device': \(Self.alsaReason); reading without sound (the text is still highlighted at speaking pace)\n"
            ),
            "\(english.standardError)")
    }

    /// What ALSA says of a device it does not know (its own words, in English).
    static let alsaReason = "No such file or directory"

    @Test func aLanguageWithoutAVoiceIsSaidInFrench() throws {
        let result = try StoryReaderProcess.run(["read", "pip-and-the-puddle", "--no-audio", "--voice", "zz", "--from", "43"], environment: Self.french)
        #expect(result.status == 0)
        #expect(
            result.standardError.contains("storyreader: pas de voix pour la langue 'zz' : lecture avec la voix par défaut 'en'\n"), "\(result.standardError)")
        Self.expectNoEnglish(result.standardError)
    }

    @Test func aStoryWithNothingToSayIsSaidInGerman() throws {
        let folder = try TemporaryFolder("problem-empty")
        defer { folder.remove() }
        try folder.write("empty.txt", "Title: Empty\nLanguage: en\n\n— … —\n")
        let german = try StoryReaderProcess.run(["read", "--stories", folder.path, "empty", "--no-audio"], environment: Self.german)
        #expect(german.status == 1)
        #expect(german.standardError == "storyreader: 'Empty' hat nichts zum Vorlesen: es hat keine Wörter\n", "\(german.standardError)")
        let export = try StoryReaderProcess.run(["export", "--stories", folder.path, "empty", "--to", folder.path + "/empty.wav"], environment: Self.german)
        #expect(export.status == 1)
        #expect(export.standardError == "storyreader: „Empty“: 'Empty' hat nichts zum Vorlesen: es hat keine Wörter\n", "\(export.standardError)")
        let english = try StoryReaderProcess.run(["read", "--stories", folder.path, "empty", "--no-audio"], environment: Self.english)
        #expect(english.standardError == "storyreader: 'Empty' has nothing to read aloud: it has no words\n", "\(english.standardError)")
    }

    @Test func anExportThatCannotBeWrittenIsSaidInSpanish() throws {
        let result = try StoryReaderProcess.run(["export", "pip", "--to", "/proc/nope.wav"], environment: Self.spanish)
        #expect(result.status == 1)
        #expect(result.standardError == "storyreader: no se puede escribir /proc/nope.wav: \(Self.procReason)\n", "\(result.standardError)")
    }

    /// What the system says of creating a file in /proc (its own words, in English).
    static let procReason = "No such file or directory"
}
