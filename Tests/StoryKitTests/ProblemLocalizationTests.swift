import Foundation
import StoryKit
import StoryKitTestSupport
import Testing

/// StoryKit's problems made before a language is known (a folder's, a book's, config.toml's, an
/// age range's) and its speech and audio errors: one template translated where shown, its values
/// (and the messages among them) filled in; `description` stays English.
@Suite struct ProblemLocalizationTests {
    static func catalog(_ language: String) -> MessageCatalog { LanguageFixtures.languages.catalog(language) }

    @Test func aMissingFolderIsTranslatedAndItsDescriptionStaysEnglish() throws {
        let missing = "/no/such/folder-\(UUID().uuidString.prefix(6))"
        let library = StoryLibrary.load(folders: [missing], missingFoldersAreProblems: true)
        let problem = try #require(library.problems.first)
        #expect(problem.description == "\(missing): this folder does not exist: check the path given to --stories, or create the folder")
        #expect(problem.localized(Self.catalog("de")) == "\(missing): diesen Ordner gibt es nicht: prüfe den Pfad bei --stories oder lege den Ordner an")
    }

    @Test func anAgeRangesReasonKeepsItsTemplate() {
        guard case .failure(let reason) = StoryParser.parseAges("9-4") else {
            Issue.record("9-4 accepted")
            return
        }
        #expect(reason.description == "ages '9-4' goes backwards: write the younger age first, like 4-9")
        #expect(reason.localized(Self.catalog("es")) == "ages '9-4' va al revés: escribe primero la edad menor, como 4-9")
        do throws(StoryProblem) {
            _ = try StoryParser.parse(text: "---\ntitle: T\nages: 30\n---\n\nText.\n", path: "t.md")
            Issue.record("ages 30 accepted")
        } catch {
            #expect(error.kind == .badAges)
            #expect(error.localized(Self.catalog("fr")) == "t.md, ligne 3: ages '30' est hors limites : les âges vont de 0 à 18, comme 4-7")
        }
    }

    @Test func aConfigProblemIsTranslatedWithTheMessagesAmongItsValues() {
        func error(_ text: String) -> ConfigError? {
            do {
                _ = try ConfigFile.parse(text, path: "/c/config.toml", home: "/home/ana")
                return nil
            } catch { return error }
        }
        let kind = error("[kiosk]\nprofile = 7\n")
        #expect(kind?.description == "/c/config.toml, line 2: 'profile' must be text in quotes, not a number")
        #expect(kind?.localized(Self.catalog("de")) == "/c/config.toml, Zeile 2: 'profile' muss Text in Anführungszeichen sein, nicht eine Zahl")
        let section = error("[sound]\n")
        #expect(section?.message == "there is no section [sound]: use [braille] or [display] or [kiosk] or [reading], or none")
        #expect(
            section?.localized(Self.catalog("fr"))
                == "/c/config.toml, ligne 1: il n'y a pas de section [sound] : utilise [braille] ou [display] ou [kiosk] ou [reading], ou aucune")
        let top = error("[kiosk]\ndevice = \"hw:0\"\n")
        #expect(
            top?.localized(Self.catalog("es"))
                == "/c/config.toml, línea 2: 'device' no es un ajuste de [kiosk]: va al principio del archivo, antes de cualquier [sección]")
        let escape = error("device = \"C:\\path\"\n")
        #expect(escape?.message == "'\\p' is not an escape TOML knows: write \\\\ for a backslash, or use 'single quotes'")
        #expect(
            escape?.localized(Self.catalog("es"))
                == "/c/config.toml, línea 1: '\\p' no es un escape que TOML conozca: escribe \\\\ para una barra invertida, o usa 'comillas simples'")
    }

    @Test func aBooksProblemNestsItsChaptersProblem() {
        let chapter = BookProblem(N_("not well-formed XHTML (line {line})"), ["line": "4"])
        let skipped = BookProblem(
            N_("{book}, {path}: {problem} (chapter skipped)"), ["book": "b.epub", "path": "OEBPS/x.xhtml"], parts: ["problem": chapter.text])
        #expect(skipped.description == "b.epub, OEBPS/x.xhtml: not well-formed XHTML (line 4) (chapter skipped)")
        #expect(skipped.localized(Self.catalog("de")) == "b.epub, OEBPS/x.xhtml: kein wohlgeformtes XHTML (Zeile 4) (Kapitel übersprungen)")
        // A value is never looked up, even when it reads like a message.
        let verbatim = CatalogText.verbatim("not well-formed XHTML")
        #expect(verbatim.localized(Self.catalog("fr")) == "not well-formed XHTML")
    }

    @Test func speechAndAudioErrorsAreTranslatedTheirDescriptionsEnglish() {
        let device = AudioError.deviceUnavailable(device: "hw:9", reason: "No such device")
        #expect(device.description == "cannot open audio device 'hw:9': No such device")
        #expect(device.localized(Self.catalog("es")) == "no se puede abrir el dispositivo de sonido 'hw:9': No such device")
        #expect(
            Self.catalog("fr").describe(SpeechEngineError.voiceNotFound("zz"))
                == "eSpeak NG n'a pas de voix 'zz' : lance 'storyreader voices' pour voir les voix installées")
        #expect(NarrationError.nothingToSpeak(title: "Empty").localized(Self.catalog("de")) == "'Empty' hat nichts zum Vorlesen: es hat keine Wörter")
        // An error that cannot say itself in another language says its own words.
        #expect(Self.catalog("de").describe(CocoaError(.fileNoSuchFile)) == "\(CocoaError(.fileNoSuchFile))")
    }

    @Test func aDeviceThatCannotOpenGivesItsNoticeInTheLanguageAsked() {
        let (sink, notice) = AudioOutput.open(device: "storyreader-no-such-device", messages: Self.catalog("fr"))
        #expect(sink is PacedSilenceSink)
        #expect(notice?.hasPrefix("impossible d'ouvrir le périphérique audio 'storyreader-no-such-device' : ") == true, "\(notice ?? "")")
        #expect(notice?.hasSuffix(" ; lecture sans son (le texte est toujours surligné au rythme de la voix)") == true, "\(notice ?? "")")
    }

    @Test func aVoiceFallbackIsSaidInTheLanguageAsked() throws {
        let catalog = try EspeakEngine.shared.voices()
        #expect(catalog.resolve("xx", messages: Self.catalog("es")).notice == "no hay voz para el idioma 'xx': se lee con la voz por defecto 'en'")
        #expect(catalog.resolve("xx").notice == "no voice for language 'xx': reading with the default voice 'en'")
    }
}
