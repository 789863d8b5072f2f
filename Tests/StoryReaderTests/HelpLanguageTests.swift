import Foundation
import StoryKit
import StoryKitTestSupport
import Testing

/// `--help` whole in the parent's language: each command's summary, its long description (every
/// paragraph, the headings of its examples) and its options' help, for the built binary run with
/// LANG=es_ES.UTF-8, LANG=fr_FR.UTF-8 and LC_MESSAGES=de_DE.UTF-8; LANG=C keeps the English.
/// ArgumentParser wraps the help to the width, so texts are compared with their spaces collapsed.
@Suite(.serialized) struct HelpLanguageTests {
    /// The environments and the language each stands for.
    static let environments: [(language: String, environment: [String: String])] = [
        ("es", ["LANG": "es_ES.UTF-8"]),
        ("fr", ["LANG": "fr_FR.UTF-8"]),
        ("de", ["LC_MESSAGES": "de_DE.UTF-8"]),
    ]
    static let english: [String: String] = ["LANG": "C"]

    static func environment(_ language: String) -> [String: String] {
        environments.first { $0.language == language }!.environment
    }

    /// One space for every run of spaces and line breaks.
    static func collapsed(_ text: String) -> String {
        text.split(whereSeparator: { $0 == " " || $0 == "\n" || $0 == "\t" }).joined(separator: " ")
    }

    /// `arguments --help`, collapsed.
    static func help(_ arguments: [String], _ environment: [String: String]) throws -> String {
        let result = try StoryReaderProcess.run(arguments + ["--help"], environment: environment)
        #expect(result.status == 0, "\(arguments) --help: \(result.standardError)")
        return collapsed(result.standardOutput)
    }

    static func catalog(_ language: String) -> MessageCatalog { LanguageFixtures.languages.catalog(language) }

    // MARK: - Paragraphs written out

    /// Paragraphs of `read --help`, word for word.
    static let readParagraphs: [String: [String]] = [
        "en": [
            "Without a terminal it takes the REPL's commands, one a line (pause, resume, sentence next, paragraph prev, page next, where, stop, wait N…), and prints every utterance and every sentence heard as a caption line; at the end of the input the story is read to its end.",
            "On a terminal the word being heard is highlighted. Keys while reading:",
            "Space or Enter pause, and go on from the word where it paused",
            "{\"type\":\"page\",\"page\":N,\"of\":N,\"ms\":N} (a new page starts)",
        ],
        "es": [
            "Sin terminal acepta los comandos del REPL, uno por línea (pause, resume, sentence next, paragraph prev, page next, where, stop, wait N…), y muestra todo lo que se dice y cada frase que se oye como una línea de subtítulo; al final de la entrada, la historia se lee hasta el final.",
            "En un terminal se resalta la palabra que se oye. Teclas mientras se lee:",
            "Espacio o Intro pausa, y sigue desde la palabra donde paró",
            "{\"type\":\"page\",\"page\":N,\"of\":N,\"ms\":N} (empieza una página nueva)",
        ],
        "fr": [
            "Sans terminal, il prend les commandes du REPL, une par ligne (pause, resume, sentence next, paragraph prev, page next, where, stop, wait N…), et affiche tout ce qui est dit et chaque phrase entendue comme une ligne de sous-titre ; à la fin de l'entrée, l'histoire est lue jusqu'au bout.",
            "Dans un terminal, le mot entendu est mis en évidence. Touches pendant la lecture :",
            "Espace ou Entrée pause, et reprend au mot où elle s'est arrêtée",
            "{\"type\":\"page\",\"page\":N,\"of\":N,\"ms\":N} (une nouvelle page commence)",
        ],
        "de": [
            "Ohne Terminal nimmt er die Befehle des REPL, einen je Zeile (pause, resume, sentence next, paragraph prev, page next, where, stop, wait N…), und gibt alles Gesagte und jeden gehörten Satz als Untertitelzeile aus; am Ende der Eingabe wird die Geschichte bis zu ihrem Ende gelesen.",
            "Im Terminal wird das gehörte Wort hervorgehoben. Tasten beim Lesen:",
            "Leertaste oder Eingabe Pause, und weiter ab dem Wort, wo sie stand",
            "{\"type\":\"page\",\"page\":N,\"of\":N,\"ms\":N} (eine neue Seite beginnt)",
        ],
    ]

    /// The summaries of the commands for servers and developers, as `--help` begins.
    static let overviews: [String: [String: String]] = [
        "bench": [
            "en": "OVERVIEW: Run a benchmark and print its figures (use a release build).",
            "es": "OVERVIEW: Ejecuta una prueba de rendimiento y muestra sus cifras (usa una compilación release).",
            "fr": "OVERVIEW: Lance un banc d'essai et affiche ses chiffres (utilise une compilation release).",
            "de": "OVERVIEW: Führt einen Benchmark aus und gibt seine Zahlen aus (nimm einen Release-Build).",
        ],
        "sync": [
            "en": "OVERVIEW: Share profiles, read counts, places and kiosk logs with a site's server.",
            "es":
                "OVERVIEW: Comparte los perfiles, cuántas veces se ha leído cada historia, los puntos de lectura y los registros del quiosco con el servidor de un sitio.",
            "fr": "OVERVIEW: Partage les profils, les nombres de lectures, les places et les journaux de la borne avec le serveur d'un site.",
            "de": "OVERVIEW: Teilt Profile, wie oft gelesen wurde, Lesestellen und Kiosk-Protokolle mit dem Server eines Standorts.",
        ],
        "serve": [
            "en": "OVERVIEW: Run the sync server that a site's kiosks share (PostgreSQL behind an HTTP API).",
            "es": "OVERVIEW: Ejecuta el servidor de sincronización que comparten los quioscos de un sitio (PostgreSQL detrás de una API HTTP).",
            "fr": "OVERVIEW: Lance le serveur de synchronisation que partagent les bornes d'un site (PostgreSQL derrière une API HTTP).",
            "de": "OVERVIEW: Startet den Abgleich-Server, den sich die Kiosks eines Standorts teilen (PostgreSQL hinter einer HTTP-API).",
        ],
    ]

    @Test(arguments: ["es", "fr", "de"])
    func readHelpSaysItsParagraphsInTheParentsLanguage(_ language: String) throws {
        let help = try Self.help(["read"], Self.environment(language))
        for paragraph in Self.readParagraphs[language]! {
            #expect(help.contains(Self.collapsed(paragraph)), "\(language): read --help lacks \(paragraph)\n\(help)")
        }
        for paragraph in Self.readParagraphs["en"]! {
            #expect(!help.contains(Self.collapsed(paragraph)), "\(language): read --help still says \(paragraph)")
        }
        // The commands of the examples stay as typed.
        #expect(help.contains("{\"type\":\"word\",\"text\":\"…\",\"start\":N,\"end\":N,\"ms\":N,\"source\":\"recording\"|\"synthesis\"}"))
    }

    @Test func readHelpStaysEnglishInTheCLocale() throws {
        let help = try Self.help(["read"], Self.english)
        for paragraph in Self.readParagraphs["en"]! {
            #expect(help.contains(Self.collapsed(paragraph)), "read --help lacks \(paragraph)")
        }
        for language in ["es", "fr", "de"] {
            #expect(!help.contains(Self.collapsed(Self.readParagraphs[language]![0])))
        }
    }

    @Test(arguments: ["es", "fr", "de", "en"])
    func benchSyncAndServeSummariesInTheParentsLanguage(_ language: String) throws {
        let environment = language == "en" ? Self.english : Self.environment(language)
        for (command, texts) in Self.overviews {
            let help = try Self.help([command], environment)
            #expect(help.hasPrefix(texts[language]!), "\(language): \(command) --help begins \(help.prefix(160))")
        }
        // A benchmark's option help and a server's example heading come from the catalog too.
        let sync = try Self.help(["bench", "sync"], environment)
        #expect(sync.contains(Self.catalog(language).tr("Simulated kiosks.")))
        let serve = try Self.help(["serve"], environment)
        #expect(serve.contains(Self.catalog(language).tr("Examples:") + " storyreader serve --database"), "\(serve)")
    }

    // MARK: - Every command, from the catalogs

    /// Every command path the program has, hidden ones too, from its own help dump, and the
    /// benchmarks' (`storyreader bench …` runs the bench program, whose dump it gives).
    static func commandPaths() throws -> [[String]] {
        try commandPaths(under: []) + commandPaths(under: ["bench"]).dropFirst()
    }

    static func commandPaths(under prefix: [String]) throws -> [[String]] {
        let dump = try StoryReaderProcess.run(prefix + ["--experimental-dump-help"], environment: english)
        let tool = try #require(try JSONSerialization.jsonObject(with: Data(dump.standardOutput.utf8)) as? [String: Any])
        var paths: [[String]] = [prefix]
        func collect(_ command: [String: Any], path: [String]) {
            for sub in command["subcommands"] as? [[String: Any]] ?? [] {
                let name = sub["commandName"] as? String ?? "?"
                if name == "help" { continue }
                paths.append(path + [name])
                collect(sub, path: path + [name])
            }
        }
        collect(try #require(tool["command"] as? [String: Any]), path: prefix)
        return paths
    }

    /// The catalog's messages that can be looked for in a help text: no placeholder, long enough
    /// not to be found inside another message.
    static let searchableMessages: [String] = Array(Set(CatalogSources.messages.filter { $0.plural == nil }.map(\.id)))
        .filter { !$0.contains("{") && $0.count >= 20 }.sorted()

    /// Whatever catalog message the English `--help` of any command shows, the help in each
    /// language shows translated, and not in English.
    @Test(arguments: ["es", "fr", "de"])
    func everyCommandsHelpIsTranslatedWhole(_ language: String) throws {
        let paths = try Self.commandPaths()
        #expect(paths.contains(["bench", "sync"]) && paths.contains(["bench", "log", "record-read"]) && paths.contains(["generate-manual"]))
        let catalog = Self.catalog(language)
        var checked = 0
        for path in paths {
            let english = try Self.help(path, Self.english)
            let translated = try Self.help(path, Self.environment(language))
            let found = Self.searchableMessages.filter { english.contains(Self.collapsed($0)) }
            // A message found only as part of a longer one ("previous and next sentence" inside a
            // key's description) is that longer message's words.
            let shown = found.filter { message in !found.contains { $0 != message && $0.contains(message) } }
            let name = (["storyreader"] + path).joined(separator: " ")
            // Every command has a summary, found here.
            #expect(!shown.isEmpty || [["export-worker"], ["export-standby"]].contains(path), "\(name): no catalog message found in its English help")
            for message in shown {
                let translation = catalog.tr(message)
                #expect(translation != message, "\(language).po does not translate \(message)")
                #expect(translated.contains(Self.collapsed(translation)), "\(language): \(name) --help lacks \(translation)")
                #expect(!translated.contains(Self.collapsed(message)), "\(language): \(name) --help still says \(message)")
                checked += 1
            }
        }
        #expect(checked > 150, "only \(checked) messages found in the help")
    }
}
