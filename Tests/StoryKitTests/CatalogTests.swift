import Foundation
import StoryKitTestSupport
import Testing

@testable import StoryKit

/// The shipped catalogs (`po/*.po`) against the sources: every English message the code says
/// through `tr`, `trn` or `N_` is translated in every language, no catalog keeps a message the
/// code no longer says, placeholders match, and gettext's own `msgfmt --check` accepts each file.
@Suite struct CatalogTests {
    static let languages = ["es", "fr", "de"]

    typealias Message = CatalogSources.Message

    /// Every literal passed to `tr(`, `trn(` (both forms) and `N_(` in Sources/.
    static var messages: [Message] { CatalogSources.messages }

    static func file(_ language: String) throws -> POFile {
        try POFile(parsing: String(contentsOf: LanguageFixtures.folder.appendingPathComponent(language + ".po"), encoding: .utf8))
    }

    @Test func theSourcesSayEnoughMessagesForTheScanToBeReal() {
        let ids = Set(Self.messages.map(\.id))
        // The scan finds the core flows' words; a broken pattern would find none of them.
        for id in ["Story: {title}", "Paused at {place}.", "button", "heading", "Who is reading?", "{count} profile", "Title"] {
            #expect(ids.contains(id), "\(id) not found by the scan")
        }
        #expect(ids.count > 250)
    }

    @Test func noMessageIsBuiltByInterpolation() {
        // `tr("Hello \(name)")` can never be translated: the key changes with the name.
        let interpolated = Self.messages.filter { $0.id.contains("\\(") || ($0.plural?.contains("\\(") ?? false) }
        #expect(interpolated.isEmpty, "\(interpolated.map { "\($0.file): \($0.id)" })")
    }

    @Test(arguments: languages) func everyMessageIsTranslated(_ language: String) throws {
        let file = try Self.file(language)
        let catalog = try MessageCatalog(file)
        var missing: [String] = []
        for message in Set(Self.messages) where !catalog.translates(message.id) {
            missing.append("\(message.file): \(message.id)")
        }
        #expect(missing.isEmpty, "\(language).po lacks \(missing.count): \(missing.sorted())")
        // A plural message is a plural entry there too, with a form for each of the language's plural forms.
        for message in Self.messages where message.plural != nil {
            let entry = file.entry(message.id)
            #expect(entry?.pluralID == message.plural, "\(language).po: \(message.id) must have msgid_plural \(message.plural!)")
            #expect(entry?.translations.count == catalog.pluralRule.count, "\(language).po: \(message.id)")
        }
    }

    @Test(arguments: languages) func noCatalogKeepsAMessageTheCodeNoLongerSays(_ language: String) throws {
        let used = Set(Self.messages.map(\.id))
        let unused = try Self.file(language).entries.map(\.id).filter { !used.contains($0) }
        #expect(unused.isEmpty, "\(language).po has unused messages: \(unused)")
    }

    @Test(arguments: languages) func placeholdersMatchInNumberAndOrder(_ language: String) throws {
        for entry in try Self.file(language).entries {
            for (index, form) in entry.translations.enumerated() {
                let english = index == 0 ? entry.id : (entry.pluralID ?? entry.id)
                var expected = MessageCatalog.placeholders(english)
                var actual = MessageCatalog.placeholders(form)
                // A singular form may say its count in words ("once", "une fois").
                if entry.pluralID != nil {
                    expected.removeAll { $0 == "count" }
                    actual.removeAll { $0 == "count" }
                }
                #expect(actual == expected, "\(language).po: \(form) for \(english)")
            }
            if let plural = entry.pluralID, let last = entry.translations.last {
                #expect(
                    MessageCatalog.placeholders(last).contains("count") == MessageCatalog.placeholders(plural).contains("count"),
                    "\(language).po: the plural of \(entry.id) must say {count}")
            }
        }
    }

    @Test(arguments: languages) func msgfmtChecksEveryFile(_ language: String) throws {
        let msgfmt = try #require(ExternalProcess.find("msgfmt"), "msgfmt is missing: scripts/setup.sh --test installs gettext")
        let path = LanguageFixtures.folder.appendingPathComponent(language + ".po").path
        let result = try ExternalProcess.run(
            msgfmt, ["--check", "--statistics", "-o", "/dev/null", path],
            environment: ["PATH": "/usr/bin:/bin", "LC_ALL": "C"])
        #expect(result.status == 0, "\(result.standardError)")
        // Every message translated: no fuzzy, no untranslated (msgfmt counts them on stderr).
        #expect(!result.standardError.contains("fuzzy") && !result.standardError.contains("untranslated"), "\(result.standardError)")
    }

    /// `po/storyreader.pot`, the template a translator starts a new language from, holds every
    /// message the code says and no other, plurals as plurals, nothing translated
    /// (`scripts/pot.py` brings it up to date).
    @Test func theTemplateHoldsEveryMessage() throws {
        let template = try POFile(
            parsing: String(contentsOf: LanguageFixtures.folder.appendingPathComponent("storyreader.pot"), encoding: .utf8))
        let ids = Set(template.entries.map(\.id))
        let said = Set(Self.messages.map(\.id))
        #expect(said.subtracting(ids).isEmpty, "scripts/pot.py adds: \(said.subtracting(ids).sorted())")
        #expect(ids.subtracting(said).isEmpty, "scripts/pot.py drops: \(ids.subtracting(said).sorted())")
        for message in Self.messages where message.plural != nil {
            #expect(template.entry(message.id)?.pluralID == message.plural, "storyreader.pot: \(message.id)")
        }
        #expect(template.entries.allSatisfy { $0.translations.allSatisfy(\.isEmpty) })
    }

    @Test func theProgramLoadsEveryShippedCatalog() {
        let (languages, problems) = InterfaceLanguages.load(folder: LanguageFixtures.folder.path)
        #expect(problems.isEmpty, "\(problems)")
        #expect(languages.languages == ["en", "de", "es", "fr"])
        #expect(languages.catalog("fr").tr("button") == "bouton")
        #expect(languages.catalog("xx").tr("button") == "button", "a language without a catalog is English")
    }

    /// "{count} stories" by each language's own rule: French says 0 and 1 in the singular.
    @Test func pluralFormsFor0_1_2_5_21() {
        let expected: [String: [String]] = [
            "en": ["contains 0 stories", "contains 1 story", "contains 2 stories", "contains 5 stories", "contains 21 stories"],
            "es": ["tiene 0 historias", "tiene 1 historia", "tiene 2 historias", "tiene 5 historias", "tiene 21 historias"],
            "fr": ["contient 0 histoire", "contient 1 histoire", "contient 2 histoires", "contient 5 histoires", "contient 21 histoires"],
            "de": ["enthält 0 Geschichten", "enthält 1 Geschichte", "enthält 2 Geschichten", "enthält 5 Geschichten", "enthält 21 Geschichten"],
        ]
        for (language, forms) in expected {
            let catalog = LanguageFixtures.languages.catalog(language)
            let said = [0, 1, 2, 5, 21].map { catalog.trn("contains {count} story", "contains {count} stories", $0) }
            #expect(said == forms, "\(language)")
        }
        let french = LanguageFixtures.languages.catalog("fr")
        #expect(
            [0, 1, 2, 5, 21].map { french.trn("read once", "read {count} times", $0) }
                == ["lue une fois", "lue une fois", "lue 2 fois", "lue 5 fois", "lue 21 fois"])
    }

    /// A key's abbreviated cap ("Suppr", "Maj") is read badly by eSpeak NG and screen readers
    /// ("süpr"): a translation spells the key out unless the English itself abbreviates it there
    /// (the compact hint bar's "Esc" and "PgUp", the universal "Ctrl-Alt-Del").
    @Test func keyNamesAreSpelledOutWhereTheEnglishIs() throws {
        // Each abbreviation, with the English abbreviation that allows it (nil: never).
        let abbreviations: [String: [String: String?]] = [
            "fr": ["Suppr": "Del", "Échap": "Esc", "Maj": nil, "PgPréc": "PgUp", "PgSuiv": "PgDn", "Ctrl": "Ctrl"],
            "es": ["Supr": "Del", "Esc": "Esc", "Mayús": nil, "RePág": "PgUp", "AvPág": "PgDn", "Ctrl": "Ctrl"],
            "de": ["Entf": "Del", "Esc": "Esc", "Einfg": nil, "Strg": "Ctrl", "Umsch": nil],
        ]
        func hasWord(_ word: String, _ text: String) -> Bool {
            text.range(of: "(?<![\\p{L}\\p{N}])" + NSRegularExpression.escapedPattern(for: word) + "(?![\\p{L}\\p{N}])", options: .regularExpression) != nil
        }
        #expect(hasWord("Suppr", "Ctrl-Alt-Suppr") && !hasWord("Suppr", "Supprimer"), "the word match must be real")
        var abbreviated: [String] = []
        for (language, table) in abbreviations {
            for entry in try Self.file(language).entries {
                for form in entry.translations {
                    for (short, english) in table where hasWord(short, form) && !(english.map { hasWord($0, entry.id) } ?? false) {
                        abbreviated.append("\(language): \(short) in \(form)")
                    }
                }
            }
        }
        #expect(abbreviated.isEmpty, "\(abbreviated.sorted())")
    }
}
