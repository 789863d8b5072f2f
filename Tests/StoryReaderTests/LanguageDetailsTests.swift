import Foundation
import StoryKit
import StoryKitTestSupport
import Testing

/// The smaller things a language changes beyond its words: how a date is written in `history`.
@Suite struct LanguageDetailsTests {
    /// One finished read, listed by `history` with the parent's `LANG`: the date is written the
    /// language's way (German day.month.year), English keeps the sortable ISO order.
    @Test func historyWritesTheDateTheLanguagesWay() throws {
        let folder = try TemporaryFolder("history-dates")
        defer { folder.remove() }
        let recorded = try StoryReaderProcess.run(
            ["bench", "log", "record-read", "--profile", "Reader", "--story", "the-lighthouse-cat"],
            dataDirectory: folder.url.path)
        #expect(recorded.status == 0, "\(recorded.standardError)")
        func firstLine(_ environment: [String: String]) throws -> String {
            let result = try StoryReaderProcess.run(["history"], environment: environment, dataDirectory: folder.url.path)
            #expect(result.status == 0, "\(result.standardError)")
            return String(result.standardOutput.split(separator: "\n").first ?? "")
        }
        func parse(_ line: String, _ pattern: String) -> Date? {
            let formatter = DateFormatter()
            formatter.locale = Locale(identifier: "en_US_POSIX")
            formatter.dateFormat = pattern
            return formatter.date(from: String(line.prefix(16)))
        }
        let german = try firstLine(["LANG": "de_DE.UTF-8"])
        #expect(german.range(of: #"^\d\d\.\d\d\.\d{4} \d\d:\d\d  Reader  "#, options: .regularExpression) != nil, "\(german)")
        let spanish = try firstLine(["LANG": "es_ES.UTF-8"])
        #expect(spanish.range(of: #"^\d\d/\d\d/\d{4} \d\d:\d\d  Reader  "#, options: .regularExpression) != nil, "\(spanish)")
        let english = try firstLine(["LANG": "C"])
        #expect(english.range(of: #"^\d{4}-\d\d-\d\d \d\d:\d\d  Reader  The Lighthouse Cat$"#, options: .regularExpression) != nil, "\(english)")
        // The same moment each way (day and month not swapped), and it is now.
        let iso = try #require(parse(english, "yyyy-MM-dd HH:mm"))
        #expect(parse(german, "dd.MM.yyyy HH:mm") == iso && parse(spanish, "dd/MM/yyyy HH:mm") == iso)
        #expect(abs(iso.timeIntervalSinceNow) < 600)
    }

    /// An argument out of range is refused in the parent's language, by ArgumentParser's own
    /// validation (before any command runs), the server's too.
    @Test func argumentErrorsInTheParentsLanguage() throws {
        let preview = try StoryReaderProcess.run(["preview", "library", "--width", "5"], environment: ["LANG": "de_DE.UTF-8"])
        #expect(preview.status != 0)
        #expect(preview.standardError.contains("--width 5 liegt außerhalb: nimm 12 bis 1000 Spalten"), "\(preview.standardError)")
        let site = try StoryReaderProcess.run(
            ["serve", "site", "add", "Rama Norte", "--database", "postgres://x@localhost/x"],
            environment: ["LANG": "es_ES.UTF-8"])
        #expect(site.status != 0)
        #expect(
            site.standardError.contains("nombre de sitio 'Rama Norte': usa letras minúsculas, números y '-' (40 como mucho)"),
            "\(site.standardError)")
        let english = try StoryReaderProcess.run(["preview", "library", "--page", "0"], environment: ["LANG": "C"])
        #expect(english.standardError.contains("--page 0 is out of range: pages count from 1"), "\(english.standardError)")
    }

    /// A new database's first profile is named in the language of whoever started it; an existing
    /// one keeps its name whatever the language later.
    @Test func theFirstProfileIsNamedInTheParentsLanguage() throws {
        for (lang, name) in [("es_ES.UTF-8", "Lector"), ("fr_FR.UTF-8", "Lecteur"), ("de_DE.UTF-8", "Leser"), ("C", "Reader")] {
            let folder = try TemporaryFolder("first-profile")
            defer { folder.remove() }
            let list = try StoryReaderProcess.run(["profile", "list"], environment: ["LANG": lang], dataDirectory: folder.url.path)
            #expect(list.status == 0, "\(list.standardError)")
            #expect(list.standardOutput.contains(name), "\(lang): \(list.standardOutput)")
            let later = try StoryReaderProcess.run(
                ["profile", "list"], environment: ["LANG": lang == "C" ? "de_DE.UTF-8" : "C"],
                dataDirectory: folder.url.path)
            #expect(later.standardOutput.contains(name), "kept: \(later.standardOutput)")
        }
    }
}
