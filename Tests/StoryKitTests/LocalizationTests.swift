import Foundation
import StoryKitTestSupport
import Testing

@testable import StoryKit

/// The interface's translations: `.po` files read as gettext reads them, plural forms by each
/// language's own rule, English wherever a translation is missing, and the language a run starts
/// in chosen from the environment as GNU programs choose it.
@Suite struct LocalizationTests {
    static let french = #"""
        # French translations of storyreader.
        msgid ""
        msgstr ""
        "Language: fr\n"
        "Plural-Forms: nplurals=2; plural=(n > 1);\n"
        "Content-Type: text/plain; charset=UTF-8\n"

        #. The kind of an element, spoken after its label.
        msgid "button"
        msgstr "bouton"

        msgctxt "screen title"
        msgid "Library"
        msgstr "Bibliothèque"

        msgid "Story: {title}"
        msgstr "Histoire : {title}"

        msgid "{count} story"
        msgid_plural "{count} stories"
        msgstr[0] "{count} histoire"
        msgstr[1] "{count} histoires"

        msgid "A long line "
        "that goes on."
        msgstr "Une longue ligne "
        "qui continue."

        msgid "Say \"hello\"\n"
        msgstr "Dis « bonjour »\n"

        #, fuzzy
        msgid "Favourites"
        msgstr "Favoris peut-être"

        msgid "Not translated yet"
        msgstr ""
        """#

    @Test func readsEntriesContextsPluralsContinuationsAndEscapes() throws {
        let file = try POFile(parsing: Self.french)
        #expect(file.language == "fr")
        #expect(file.pluralForms == "nplurals=2; plural=(n > 1);")
        #expect(file.entries.count == 8)
        #expect(file.entry("button")?.translations == ["bouton"])
        #expect(file.entry("button")?.notes == ["The kind of an element, spoken after its label."])
        #expect(file.entry("Library")?.translations == nil, "a context is part of the key")
        #expect(file.entry("Library", context: "screen title")?.translations == ["Bibliothèque"])
        #expect(file.entry("{count} story")?.pluralID == "{count} stories")
        #expect(file.entry("A long line that goes on.")?.translations == ["Une longue ligne qui continue."])
        #expect(file.entry("Say \"hello\"\n")?.translations == ["Dis « bonjour »\n"])
        #expect(file.entry("Favourites")?.isFuzzy == true)
        #expect(file.entry("Not translated yet")?.isTranslated == false)
    }

    @Test func writtenFilesReadBackTheSameAndPassMsgfmtCheck() throws {
        let file = try POFile(parsing: Self.french)
        let written = file.written()
        #expect(try POFile(parsing: written) == file)
        guard let msgfmt = RequiredTool.find("msgfmt", package: "gettext", for: "the msgfmt --check of a written catalog") else { return }
        let folder = try TemporaryFolder("po")
        defer { folder.remove() }
        let po = folder.url.appendingPathComponent("fr.po")
        try written.write(to: po, atomically: true, encoding: .utf8)
        let result = try ExternalProcess.run(msgfmt, ["--check", "-o", "/dev/null", po.path], environment: ProcessInfo.processInfo.environment)
        #expect(result.status == 0, "msgfmt --check: \(result.standardError)")
    }

    @Test func badFilesAreRefusedWithTheirLine() {
        let cases: [(String, Int, String)] = [
            ("msgid \"a\"\nmsgstr \"b\n", 2, "double quotes"),
            ("msgid \"a\"\nmsgstr \"b\\q\"\n", 2, "unknown escape"),
            ("msgid \"a\"\nmsgid_plural \"as\"\nmsgstr[1] \"b\"\n", 4, "msgstr[0]"),
            ("msgid \"a\"\n\"b\"\nmsgstr \"c\"\nmsgstr \"d\"\n", 4, "twice"),
            ("\"lonely\"\n", 1, "continues nothing"),
            ("msgid \"a\"\nmsgwhat \"b\"\n", 2, "unknown keyword"),
        ]
        for (text, line, words) in cases {
            #expect {
                try POFile(parsing: text)
            } throws: { error in
                guard let error = error as? POFile.ParseError else { return false }
                return error.line == line && error.reason.contains(words)
            }
        }
    }

    /// 0, 1, 2, 5 and 21 in each interface language, by the rules its `.po` header will carry.
    @Test func pluralFormsFollowEachLanguagesRule() throws {
        let rules = [
            "en": "nplurals=2; plural=(n != 1);",
            "de": "nplurals=2; plural=(n != 1);",
            "es": "nplurals=2; plural=(n != 1);",
            "fr": "nplurals=2; plural=(n > 1);",
        ]
        let expected: [String: [Int]] = ["en": [1, 0, 1, 1, 1], "de": [1, 0, 1, 1, 1], "es": [1, 0, 1, 1, 1], "fr": [0, 0, 1, 1, 1]]
        for (language, header) in rules {
            let rule = try PluralRule(header: header)
            #expect([0, 1, 2, 5, 21].map(rule.form(for:)) == expected[language], "\(language)")
        }
        // The rule is gettext's C expression, whatever the language: Russian's three forms.
        let russian = try PluralRule(header: "nplurals=3; plural=(n%10==1 && n%100!=11 ? 0 : n%10>=2 && n%10<=4 && (n%100<10 || n%100>=20) ? 1 : 2);")
        #expect([0, 1, 2, 5, 11, 21, 22, 112].map(russian.form(for:)) == [2, 0, 1, 2, 2, 0, 1, 2])
        #expect(throws: PluralRule.ParseError.self) { try PluralRule(header: "nplurals=2; plural=(n > );") }
        #expect(throws: PluralRule.ParseError.self) { try PluralRule(header: "nplurals=2;") }
    }

    @Test func aCatalogTranslatesFillsPlaceholdersAndFallsBackToEnglish() throws {
        let french = try MessageCatalog(POFile(parsing: Self.french))
        #expect(french.language == "fr")
        #expect(french.text("button") == "bouton")
        #expect(french.text("Story: {title}", ["title": "La petite étoile timide"]) == "Histoire : La petite étoile timide")
        #expect([0, 1, 2].map { french.text("{count} story", plural: "{count} stories", count: $0) } == ["0 histoire", "1 histoire", "2 histoires"])
        #expect([0, 1, 2].map { MessageCatalog.english.text("{count} story", plural: "{count} stories", count: $0) } == ["0 stories", "1 story", "2 stories"])
        // Missing, empty or fuzzy: the English source, never an empty string.
        #expect(french.text("Not translated yet") == "Not translated yet")
        #expect(french.text("Favourites") == "Favourites")
        #expect(french.text("Something new") == "Something new")
        #expect(!french.translates("Favourites") && french.translates("button"))
        #expect(MessageCatalog.placeholders("{count} of {total}, in {title}") == ["count", "total", "title"])
        #expect(MessageCatalog.fill("{a} and {b}", ["a": "1"]) == "1 and {b}")
    }

    @Test func theLanguageComesFromTheEnvironmentAsInGNUPrograms() {
        #expect(InterfaceLanguage.fromEnvironment([:]) == "en")
        #expect(InterfaceLanguage.fromEnvironment(["LANG": "es_ES.UTF-8"]) == "es")
        #expect(InterfaceLanguage.fromEnvironment(["LANG": "C"]) == "en")
        #expect(InterfaceLanguage.fromEnvironment(["LANG": "C.UTF-8"]) == "en")
        #expect(InterfaceLanguage.fromEnvironment(["LANG": "es_ES.UTF-8", "LC_MESSAGES": "fr_FR.UTF-8"]) == "fr")
        #expect(InterfaceLanguage.fromEnvironment(["LANG": "es_ES.UTF-8", "LC_MESSAGES": "fr_FR.UTF-8", "LC_ALL": "de_DE.UTF-8"]) == "de")
        #expect(InterfaceLanguage.fromEnvironment(["LC_ALL": "", "LANG": "fr_CA.UTF-8@euro"]) == "fr", "an empty variable is not set")
        #expect(InterfaceLanguage.fromEnvironment(["LANG": "de_DE.UTF-8", "LANGUAGE": "ja:fr:de"]) == "fr")
        #expect(InterfaceLanguage.fromEnvironment(["LANG": "C", "LANGUAGE": "fr"]) == "en", "the C locale wins over LANGUAGE, as in gettext")
        #expect(InterfaceLanguage.fromEnvironment(["LANG": "ja_JP.UTF-8"]) == "en")
        #expect(InterfaceLanguage.code(of: "Français") == "fr")
        #expect(InterfaceLanguage.code(of: "ES") == "es")
        #expect(InterfaceLanguage.code(of: "klingon") == nil)
    }
}
