package import ArgumentParser
package import Foundation
package import StoryKit
import Synchronization

/// Options every command takes: where stories and data live.
package struct GlobalOptions: ParsableArguments {
    @Option(
        name: .customLong("stories"),
        help: ArgumentHelp(
            helpMessages.tr(
                "A folder of stories (repeatable). Default: the folders in config.toml's 'stories', else the bundled stories plus your own folder, <data-dir>/stories."
            ),
            valueName: "dir"), completion: .directory)
    package var storyFolders: [String] = []

    @Option(
        name: .customLong("data-dir"),
        help: ArgumentHelp(
            helpMessages.tr(
                "Where profiles, reading progress and your own stories are kept. Default: $STORYREADER_DATA_DIR, else config.toml's 'data-dir', else $XDG_DATA_HOME/storyreader, else ~/.local/share/storyreader."
            ),
            valueName: "dir"), completion: .directory)
    var dataDir: String?

    @Option(
        name: .customLong("lang"),
        help: ArgumentHelp(
            helpMessages.tr(
                "The language of the interface and of these messages: en, es, fr or de. Default: each profile's own, else $LC_ALL, $LC_MESSAGES or $LANG."),
            valueName: "language"))
    var lang: String?

    package init() {}

    package mutating func validate() throws {
        if let lang, InterfaceLanguage.code(of: lang) == nil {
            throw ValidationError(
                helpMessages.tr(
                    "no interface in '{language}': choose {languages}",
                    [
                        "language": Sanitizer.sanitizeLine(lang), "languages": InterfaceLanguage.supported.joined(separator: ", "),
                    ]))
        }
    }

    /// `--lang`, as a language code.
    var languageOverride: String? { lang.flatMap(InterfaceLanguage.code(of:)) }

    /// The language of this run's messages: `--lang`, else the environment's.
    var messageLanguage: String {
        languageOverride ?? InterfaceLanguage.fromEnvironment(ProcessInfo.processInfo.environment)
    }

    /// `options` with this run's languages: `--lang` over every profile's, and the system's.
    func languages(_ options: SessionOptions) -> SessionOptions {
        var options = options
        options.interfaceLanguage = languageOverride
        options.systemLanguage = InterfaceLanguage.fromEnvironment(ProcessInfo.processInfo.environment)
        for language in [options.interfaceLanguage ?? options.systemLanguage] where !Catalogs.languages.languages.contains(language) {
            Catalogs.sayMissing(language)
        }
        return options
    }

    /// The catalog of this run's command-line messages.
    package var messages: MessageCatalog { Catalogs.catalog(messageLanguage) }

    /// The data folder (not created here).
    func dataDirectory() -> URL {
        let environment = ProcessInfo.processInfo.environment
        if let dataDir, !dataDir.isEmpty { return URL(fileURLWithPath: dataDir) }
        if let value = environment["STORYREADER_DATA_DIR"], !value.isEmpty { return URL(fileURLWithPath: value) }
        if let xdg = environment["XDG_DATA_HOME"], xdg.hasPrefix("/") {
            return URL(fileURLWithPath: xdg).appendingPathComponent("storyreader")
        }
        let home = environment["HOME"].flatMap { $0.isEmpty ? nil : $0 } ?? NSHomeDirectory()
        return URL(fileURLWithPath: home).appendingPathComponent(".local/share/storyreader")
    }

    /// The user's own stories folder, where `import` copies stories.
    func userStoriesFolder() -> URL { dataDirectory().appendingPathComponent("stories") }

    /// The folders to read: those named with --stories, else the bundled ones and the user's.
    func storyFolderPaths() -> (folders: [String], named: Bool) {
        if !storyFolders.isEmpty { return (storyFolders, true) }
        var folders: [String] = []
        if let bundled = BundledStories.folder() { folders.append(bundled) }
        folders.append(userStoriesFolder().path)
        return (folders, false)
    }

    /// Loads the library; problems go to standard error, one line each.
    package func loadLibrary(reportProblems: Bool = true) -> StoryLibrary {
        let (library, named) = readLibrary()
        if reportProblems {
            for problem in library.problems {
                FileHandle.standardError.write(Data("storyreader: \(problem.localized(messages))\n".utf8))
            }
        }
        if !named, BundledStories.folder() == nil, library.entries.isEmpty {
            let message = messages.tr(
                "the bundled stories folder was not found (looked for {path}): reinstall with 'make install', set STORYREADER_STORIES_DIR or use --stories DIR",
                ["path": BundledStories.installedFolder().path])
            FileHandle.standardError.write(Data("storyreader: \(message)\n".utf8))
        }
        return library
    }

    /// The library, printing nothing (a shell completion prints only its candidates); `named`
    /// when the folders came from --stories.
    func readLibrary() -> (library: StoryLibrary, named: Bool) {
        let (folders, named) = storyFolderPaths()
        return (StoryLibrary.load(folders: folders, cache: storyCache(), missingFoldersAreProblems: named), named)
    }

    /// Where parsed stories are kept between runs.
    func storyCache() -> StoryCache { StoryCache(url: dataDirectory().appendingPathComponent("story-cache.v1")) }

    /// The whole story called `name` (an id, a title, or a unique prefix of either).
    package func resolveStory(_ name: String, in library: StoryLibrary? = nil) throws -> Story {
        let library = library ?? loadLibrary()
        switch library.resolve(name) {
        case .success(let entry):
            do {
                return try library.loadStory(entry)
            } catch {
                throw UserFailure(message: error.localized(messages))
            }
        case .failure(let error):
            throw UserFailure(message: error.localized(messages))
        }
    }
}

/// The catalog of `--help` and of argument errors: ArgumentParser reads the help texts before
/// `--lang` is parsed, so they follow the environment only (LC_ALL, LC_MESSAGES, LANG, LANGUAGE).
package let helpMessages: MessageCatalog = Catalogs.catalog(InterfaceLanguage.fromEnvironment(ProcessInfo.processInfo.environment))

/// The interface's catalogs (`po/*.po`), found as the bundled stories are and read once a run.
enum Catalogs {
    /// `$STORYREADER_PO_DIR`, else `../share/storyreader/po` beside the executable, else `po/` of
    /// the package the executable was built in.
    static func folder() -> String? {
        BundledStories.sharedFolder("po", environment: "STORYREADER_PO_DIR")
    }

    /// Every catalog, loaded at the first use (once: a screen never reads a file). For the
    /// sessions, which change language with the child.
    static let languages: InterfaceLanguages = load(only: nil)

    /// One language's catalog, for a command's messages and `--help`: English reads no file, any
    /// other language its own file alone, once (every start paid 40 ms for all three before).
    static func catalog(_ language: String) -> MessageCatalog {
        if language == "en" { return .english }
        return single.withLock { loaded in
            if let known = loaded[language] { return known }
            let catalog = load(only: language).catalog(language)
            loaded[language] = catalog
            if catalog.language != language { sayMissing(language) }
            return catalog
        }
    }

    private static let single = Mutex<[String: MessageCatalog]>([:])

    /// The languages already said to have no catalog.
    private static let saidMissing = Mutex<Set<String>>([])

    /// `--lang` or the locale asked for a language whose catalog is not found (an out-of-tree
    /// build, a wrong `$STORYREADER_PO_DIR`): said once a run on standard error, in English (the
    /// only language left), since the interface would otherwise be English without a word why.
    static func sayMissing(_ language: String) {
        guard language != "en", saidMissing.withLock({ $0.insert(language).inserted }) else { return }
        let message =
            folder().map {
                MessageCatalog.english.tr("no catalog for '{language}' in {folder}: the interface is in English", ["language": language, "folder": $0])
            }
            ?? MessageCatalog.english.tr(
                "no catalog for '{language}' was found (set STORYREADER_PO_DIR to the folder of the .po files): the interface is in English",
                ["language": language])
        FileHandle.standardError.write(Data("storyreader: \(message)\n".utf8))
    }

    private static func load(only language: String?) -> InterfaceLanguages {
        guard let folder = folder() else { return .englishOnly }
        let (languages, problems) = InterfaceLanguages.load(folder: folder, only: language)
        for problem in problems {
            FileHandle.standardError.write(Data("storyreader: \(problem) (that language falls back to English)\n".utf8))
        }
        return languages
    }
}

/// Finds the stories that come with the program.
package enum BundledStories {
    /// `$STORYREADER_STORIES_DIR`, else `../share/storyreader/stories` beside the executable (an
    /// install: `/usr/local/bin/storyreader` → `/usr/local/share/storyreader/stories`), else
    /// `stories/` of the package the executable was built in (`.build/debug/storyreader` → `stories/`).
    static func folder() -> String? {
        sharedFolder("stories", environment: "STORYREADER_STORIES_DIR")
    }

    /// `$variable`, else `../share/storyreader/NAME` beside the executable, else the package's `NAME/`.
    static func sharedFolder(_ name: String, environment variable: String) -> String? {
        let environment = ProcessInfo.processInfo.environment
        if let explicit = environment[variable], !explicit.isEmpty { return explicit }
        let installed = installedFolder(name)
        if isDirectory(installed.path) { return installed.path }
        // A build folder sits a few levels under the package (.build/x86_64-unknown-linux-gnu/debug).
        var directory = executableURL().deletingLastPathComponent()
        for _ in 0..<5 {
            let candidate = directory.appendingPathComponent(name)
            if FileManager.default.fileExists(atPath: directory.appendingPathComponent("Package.swift").path),
                isDirectory(candidate.path)
            {
                return candidate.path
            }
            directory.deleteLastPathComponent()
        }
        return nil
    }

    /// Where `make install` puts the stories, relative to the running executable (symbolic links
    /// resolved, so a link in ~/bin to an installed binary still finds them).
    static func installedFolder(_ name: String = "stories") -> URL {
        executableURL().deletingLastPathComponent().deletingLastPathComponent()
            .appendingPathComponent("share/storyreader/" + name).standardizedFileURL
    }

    /// The program `name` beside this one (`storyreader` and `storyreader-bench` are built side
    /// by side).
    package static func sibling(_ name: String) -> URL {
        executableURL().deletingLastPathComponent().appendingPathComponent(name)
    }

    package static func executableURL() -> URL {
        if let path = try? FileManager.default.destinationOfSymbolicLink(atPath: "/proc/self/exe") {
            return URL(fileURLWithPath: path)
        }
        return URL(fileURLWithPath: CommandLine.arguments[0]).standardizedFileURL
    }

    private static func isDirectory(_ path: String) -> Bool {
        var isDirectory: ObjCBool = false
        return FileManager.default.fileExists(atPath: path, isDirectory: &isDirectory) && isDirectory.boolValue
    }
}
