import Foundation
import StoryKit
import StoryKitTestSupport
import Testing

/// A parent gets the command line's messages in their LANG: the built binary run with
/// LANG=es_ES.UTF-8, LANG=fr_FR.UTF-8, LC_MESSAGES=de_DE.UTF-8 and LANG=C, each message checked
/// word for word against its translation in po/*.po (an English message left over fails).
@Suite(.serialized) struct CommandLanguageTests {
    /// The environments and the language each stands for.
    static let environments: [(language: String, environment: [String: String])] = [
        ("es", ["LANG": "es_ES.UTF-8"]),
        ("fr", ["LANG": "fr_FR.UTF-8"]),
        ("de", ["LC_MESSAGES": "de_DE.UTF-8"]),
        ("en", ["LANG": "C"]),
    ]

    /// The exact sentences, by language.
    static let expected: [String: [String: String]] = [
        "unknown": [
            "es": "storyreader: ninguna historia se llama 'zzzz': mira las historias con 'storyreader list'\n",
            "fr": "storyreader: aucune histoire ne s'appelle 'zzzz' : vois les histoires avec 'storyreader list'\n",
            "de": "storyreader: keine Geschichte heißt 'zzzz': die Geschichten zeigt 'storyreader list'\n",
            "en": "storyreader: no story is called 'zzzz': see the stories with 'storyreader list'\n",
        ],
        "ambiguous": [
            "es": "storyreader: 'fox' coincide con 2 historias: Fox One (fox-one), Fox Two (fox-two). Escribe más del nombre o usa el id\n",
            "fr": "storyreader: 'fox' correspond à 2 histoires : Fox One (fox-one), Fox Two (fox-two). Tape plus du nom ou utilise l'id\n",
            "de": "storyreader: 'fox' passt zu 2 Geschichten: Fox One (fox-one), Fox Two (fox-two). Tippe mehr vom Namen oder nimm die ID\n",
            "en": "storyreader: 'fox' matches 2 stories: Fox One (fox-one), Fox Two (fox-two). Type more of the name or use the id\n",
        ],
        "history": [
            "es": "Todavía no se ha terminado ninguna historia.\n",
            "fr": "Aucune histoire n'a encore été finie.\n",
            "de": "Noch keine Geschichte wurde zu Ende gelesen.\n",
            "en": "No story has been finished yet.\n",
        ],
        "noPIN": [
            "es": "storyreader: no hay ningún PIN de los padres: usa `storyreader pin set` para poner uno\n",
            "fr": "storyreader: aucun code PIN des parents n'est défini : utilise `storyreader pin set` pour en choisir un\n",
            "de": "storyreader: es ist keine Eltern-PIN gesetzt: setze eine mit `storyreader pin set`\n",
            "en": "storyreader: no parental PIN is set: use `storyreader pin set` to set one\n",
        ],
        "pinSet": [
            "es": "El PIN de los padres está puesto: ahora se pide para añadir, cambiar y borrar perfiles.\n",
            "fr": "Le code PIN des parents est défini : ajouter, modifier et supprimer des profils le demande maintenant.\n",
            "de": "Die Eltern-PIN ist gesetzt: Profile anlegen, bearbeiten und löschen fragt jetzt danach.\n",
            "en": "The parental PIN is set: adding, editing and removing profiles now asks for it.\n",
        ],
        "wrongPIN": [
            "es": "storyreader: PIN: PIN incorrecto: quedan 4 intentos antes del bloqueo: escribe otra vez el PIN de los padres\n",
            "fr": "storyreader: code PIN : mauvais code PIN : il reste 4 essais avant le blocage : tape encore le code PIN des parents\n",
            "de": "storyreader: PIN: falsche PIN: noch 4 Versuche bis zur Sperre: gib die Eltern-PIN noch einmal ein\n",
            "en": "storyreader: PIN: wrong PIN: 4 tries left before a lockout: type the parental PIN again\n",
        ],
        "shortPIN": [
            "es": "storyreader: PIN: 2 cifras son muy pocas: escribe de 4 a 8 cifras\n",
            "fr": "storyreader: code PIN : 2 chiffres, c'est trop court : tape de 4 à 8 chiffres\n",
            "de": "storyreader: PIN: 2 Ziffern sind zu kurz: gib 4 bis 8 Ziffern ein\n",
            "en": "storyreader: PIN: 2 digits is too short: type 4 to 8 digits\n",
        ],
        "profiles": [
            "es": "Lector, 6 años\n",
            "fr": "Lecteur, 6 ans\n",
            "de": "Leser, 6 Jahre\n",
            "en": "Reader, age 6\n",
        ],
        "import": [
            "es": ": no se puede leer: ese archivo no existe; revisa su nombre y su carpeta (no se importó)\nstoryreader: 0 importadas, 1 rechazada\n",
            "fr": ": illisible : ce fichier n'existe pas ; vérifie son nom et son dossier (pas importé)\nstoryreader: 0 importée, 1 refusée\n",
            "de": ": nicht lesbar: diese Datei gibt es nicht; prüfe Namen und Ordner (nicht importiert)\nstoryreader: 0 importiert, 1 abgelehnt\n",
            "en": ": cannot be read: there is no such file; check its name and folder (not imported)\nstoryreader: 0 imported, 1 refused\n",
        ],
        "export": [
            "es": " ya existe: añade --force para reemplazarlo\n",
            "fr": " existe déjà : ajoute --force pour le remplacer\n",
            "de": " gibt es schon: gib --force an, um die Datei zu ersetzen\n",
            "en": " already exists: give --force to replace it\n",
        ],
        "readHelp": [
            "es": "OVERVIEW: Lee una historia en voz alta, resaltando la palabra que se oye.",
            "fr": "OVERVIEW: Lit une histoire à voix haute, en mettant en évidence le mot entendu.",
            "de": "OVERVIEW: Liest eine Geschichte vor und hebt das gehörte Wort hervor.",
            "en": "OVERVIEW: Read a story aloud, with the word being heard highlighted.",
        ],
        "readHelpOption": [
            "es": "Empieza en esta frase (1 es la primera).",
            "fr": "Commence à cette phrase (1 est la première).",
            "de": "Beginnt bei diesem Satz (1 ist der erste).",
            "en": "Start at this sentence (1 is the first).",
        ],
    ]

    /// Two stories whose names both begin with "fox".
    func stories() throws -> TemporaryFolder {
        let folder = try TemporaryFolder("command-language")
        try folder.write("stories/fox-one.md", "---\ntitle: Fox One\nages: 3-6\n---\n\nThe fox ran.\n")
        try folder.write("stories/fox-two.md", "---\ntitle: Fox Two\nages: 3-6\n---\n\nThe fox sat.\n")
        return folder
    }

    func run(_ arguments: [String], _ environment: [String: String], in folder: TemporaryFolder, input: String? = nil) throws -> ProcessResult {
        let data = folder.url.appendingPathComponent("data").path
        return try StoryReaderProcess.run(
            arguments + ["--stories", folder.url.appendingPathComponent("stories").path],
            input: input, environment: environment, dataDirectory: data)
    }

    func text(_ key: String, _ language: String) -> String { Self.expected[key]![language]! }

    /// Runs `arguments` and expects its exit status and, on standard error when it failed (else on
    /// standard output), exactly the expected text `key` in `language`.
    func expect(
        _ arguments: [String], input: String? = nil, status: Int32, says key: String, _ language: String,
        _ environment: [String: String], in folder: TemporaryFolder, sourceLocation: SourceLocation = #_sourceLocation
    ) throws {
        let result = try run(arguments, environment, in: folder, input: input)
        #expect(result.status == status, "\(result.standardError)", sourceLocation: sourceLocation)
        #expect((status == 0 ? result.standardOutput : result.standardError) == text(key, language), sourceLocation: sourceLocation)
    }

    @Test(arguments: environments.map(\.language))
    func storyErrorsAndHistoryInTheParentsLanguage(_ language: String) throws {
        let environment = Self.environments.first { $0.language == language }!.environment
        let folder = try stories()
        defer { folder.remove() }
        try expect(["show", "zzzz"], status: 1, says: "unknown", language, environment, in: folder)
        try expect(["show", "fox"], status: 1, says: "ambiguous", language, environment, in: folder)
        try expect(["history"], status: 0, says: "history", language, environment, in: folder)
    }

    @Test(arguments: environments.map(\.language))
    func pinAndProfileMessagesInTheParentsLanguage(_ language: String) throws {
        let environment = Self.environments.first { $0.language == language }!.environment
        let folder = try stories()
        defer { folder.remove() }
        try expect(["pin", "clear"], input: "1234\n", status: 1, says: "noPIN", language, environment, in: folder)
        try expect(["pin", "set"], input: "12\n", status: 1, says: "shortPIN", language, environment, in: folder)
        try expect(["pin", "set"], input: "1234\n", status: 0, says: "pinSet", language, environment, in: folder)
        try expect(["pin", "clear"], input: "9999\n", status: 1, says: "wrongPIN", language, environment, in: folder)
        try expect(["profile", "list"], status: 0, says: "profiles", language, environment, in: folder)
    }

    @Test(arguments: environments.map(\.language))
    func importExportAndHelpInTheParentsLanguage(_ language: String) throws {
        let environment = Self.environments.first { $0.language == language }!.environment
        let folder = try stories()
        defer { folder.remove() }
        let missing = folder.url.appendingPathComponent("missing.md").path
        let imported = try run(["import", missing], environment, in: folder)
        #expect(imported.status == 1)
        #expect(imported.standardError == "storyreader: " + missing + text("import", language))
        let existing = try folder.write("fox-one.wav", "not audio")
        let exported = try run(["export", "fox-one", "--to", existing.path], environment, in: folder)
        #expect(exported.status == 1)
        #expect(exported.standardError == "storyreader: " + existing.path + text("export", language))
        let help = try run(["read", "--help"], environment, in: folder)
        #expect(help.status == 0)
        #expect(help.standardOutput.hasPrefix(text("readHelp", language) + "\n"), "\(help.standardOutput.prefix(200))")
        #expect(help.standardOutput.contains(text("readHelpOption", language)))
    }

    /// `--lang` reaches every message but not `--help`, which ArgumentParser builds before it reads
    /// `--lang`: the help follows the environment.
    @Test func theLangOptionWinsForMessagesNotForHelp() throws {
        let folder = try stories()
        defer { folder.remove() }
        let unknown = try run(["show", "zzzz", "--lang", "fr"], ["LANG": "de_DE.UTF-8"], in: folder)
        #expect(unknown.standardError == text("unknown", "fr"))
        let help = try run(["read", "--help", "--lang", "fr"], ["LANG": "de_DE.UTF-8"], in: folder)
        #expect(help.standardOutput.hasPrefix(text("readHelp", "de")))
    }

    /// Problems in a story file are said in the parent's language too: a refused import, and a
    /// warning on a story that loads, both when the file is read and when the library's cache
    /// gives it back on the next run.
    @Test func storyFileProblemsInTheParentsLanguage() throws {
        let folder = try stories()
        defer { folder.remove() }
        let untitled = try folder.write("untitled.md", "---\nages: 3-6\n---\n\nNo title here.\n")
        let spanish = ["LANG": "es_ES.UTF-8"]
        let refused = try run(["import", untitled.path], spanish, in: folder)
        #expect(refused.status == 1)
        #expect(
            refused.standardError.contains(
                untitled.path + ", línea 1: una historia necesita un título: añade una línea 'title:' a la cabecera (no se importó)"),
            "\(refused.standardError)")
        try folder.write("stories/owl.md", "---\ntitle: Owl\ncolour: brown\n---\n\nThe owl hooted.\n")
        let owl = folder.url.appendingPathComponent("stories/owl.md").path
        let german = ["LC_MESSAGES": "de_DE.UTF-8"]
        // The first run reads the file, the second takes it from the cache: both say it in German.
        for _ in 0..<2 {
            let listed = try run(["list"], german, in: folder)
            #expect(listed.status == 0)
            #expect(
                listed.standardError.contains(owl + ", Zeile 3: Warnung: unbekannter Schlüssel 'colour' übergangen (bekannte Schlüssel: "),
                "\(listed.standardError)")
        }
        let english = try run(["list"], ["LANG": "C"], in: folder)
        #expect(english.standardError.contains(owl + ", line 3: warning: unknown key 'colour' ignored (known keys: "), "\(english.standardError)")
    }
}
