public import Foundation
public import StoryKit

/// Where things are, for tests: the repository, its test fixtures, the built binary.
public enum TestPaths {
    /// The repository root (the folder holding Package.swift).
    public static let repository: URL = {
        var url = URL(fileURLWithPath: #filePath)
        for _ in 0..<3 { url.deleteLastPathComponent() }  // Tests/StoryKitTestSupport/TestPaths.swift
        return url
    }()

    /// The bundled stories.
    public static var stories: URL { repository.appendingPathComponent("stories") }

    /// The test data kept in the repository (`Tests/Fixtures`, its README gives sources and
    /// licences): a clone with nothing beside it has all its tests need.
    public static var fixtures: URL { repository.appendingPathComponent("Tests/Fixtures") }

    /// The 58 public-domain stories of the corpus (`Tests/Fixtures/corpus`).
    public static var corpus: URL { fixtures.appendingPathComponent("corpus") }

    /// The real books for import tests (`Tests/Fixtures/books`): two EPUBs and a Gutenberg text.
    public static var books: URL { fixtures.appendingPathComponent("books") }

    /// The sanitizer's attack strings and what must remain of them.
    public static var sanitizeVectors: URL { fixtures.appendingPathComponent("sanitize-vectors.json") }

    /// The corpus story files (`NN-name.txt`), sorted. Empty only if the fixtures are gone, which
    /// `CorpusTests.theCorpusIsThere` reports as a failure.
    public static var corpusFiles: [URL] {
        let names = (try? FileManager.default.contentsOfDirectory(atPath: corpus.path)) ?? []
        return names.filter { $0.hasSuffix(".txt") }.sorted().map { corpus.appendingPathComponent($0) }
    }

    /// The `storyreader` executable built beside the tests (`$STORYREADER_BINARY` overrides).
    public static var binary: URL {
        if let explicit = ProcessInfo.processInfo.environment["STORYREADER_BINARY"], !explicit.isEmpty {
            return URL(fileURLWithPath: explicit)
        }
        // The test bundle runs from .build/<triple>/debug; the executable is built there too.
        let candidates = [
            Bundle.main.bundleURL.appendingPathComponent("storyreader"),
            Bundle.main.bundleURL.deletingLastPathComponent().appendingPathComponent("storyreader"),
            repository.appendingPathComponent(".build/debug/storyreader"),
        ]
        return candidates.first { FileManager.default.isExecutableFile(atPath: $0.path) } ?? candidates[2]
    }

    /// The benchmarks' program, `storyreader-bench`, built beside `storyreader` (where
    /// `storyreader bench …` looks for it).
    public static var benchBinary: URL {
        binary.deletingLastPathComponent().appendingPathComponent("storyreader-bench")
    }
}

/// A folder under the system's temporary folder, removed when the value is released by `remove()`.
public struct TemporaryFolder: Sendable {
    public let url: URL

    public init(_ label: String = "test") throws {
        url = URL(fileURLWithPath: NSTemporaryDirectory())
            .appendingPathComponent("storyreader-\(label)-\(UUID().uuidString.prefix(8))")
        try FileManager.default.createDirectory(at: url, withIntermediateDirectories: true)
    }

    /// Writes `text` to `name` (folders created) and returns its URL.
    @discardableResult
    public func write(_ name: String, _ text: String) throws -> URL {
        try write(name, Data(text.utf8))
    }

    @discardableResult
    public func write(_ name: String, _ data: Data) throws -> URL {
        let file = url.appendingPathComponent(name)
        try FileManager.default.createDirectory(at: file.deletingLastPathComponent(), withIntermediateDirectories: true)
        try data.write(to: file)
        return file
    }

    public var path: String { url.path }

    public func remove() { try? FileManager.default.removeItem(at: url) }
}

/// What a run of the built `storyreader` printed.
public struct ProcessResult: Sendable {
    public var status: Int32
    public var standardOutput: String
    public var standardError: String
}

/// Runs the built `storyreader` as a user would: no TTY, a fixed width, an isolated data folder
/// unless the arguments name one.
public enum StoryReaderProcess {
    /// `currentDirectory` is where relative paths in `arguments` start (default: the repository).
    /// `unprivileged`: as a user file permissions apply to (see ``Unprivileged``). `timeout`: a
    /// run still going after this many seconds is stopped and fails. `tracer`: a program and its
    /// options that run the program (strace), when not `unprivileged`.
    public static func run(
        _ arguments: [String], input: String? = nil, environment extra: [String: String] = [:],
        dataDirectory: String? = nil, currentDirectory: URL? = nil, unprivileged: Bool = false,
        timeout: Double = 900, tracer: [String] = []
    ) throws -> ProcessResult {
        var environment = ProcessInfo.processInfo.environment
        environment["COLUMNS"] = "80"
        environment["NO_COLOR"] = "1"
        // English unless the test asks for another language: the machine's locale never shapes a transcript.
        for name in ["LC_ALL", "LC_MESSAGES", "LANGUAGE"] { environment.removeValue(forKey: name) }
        environment["LANG"] = "C.UTF-8"
        // A data folder of its own unless the test names one; removed after the run (no test can
        // reach it, and thousands were left behind in the temporary folder).
        let ownData = dataDirectory == nil ? NSTemporaryDirectory() + "storyreader-e2e-\(UUID().uuidString.prefix(8))" : nil
        defer { if let ownData { try? FileManager.default.removeItem(atPath: ownData) } }
        environment["STORYREADER_DATA_DIR"] = dataDirectory ?? ownData
        environment.removeValue(forKey: "STORYREADER_STORIES_DIR")
        // Never the developer's own config.toml: a folder that does not exist holds none.
        environment["XDG_CONFIG_HOME"] = (dataDirectory ?? ownData ?? NSTemporaryDirectory()) + "/no-config-here"
        for (key, value) in extra { environment[key] = value }
        var (executable, prefix) = unprivileged ? Unprivileged.command : (TestPaths.binary, [])
        if !unprivileged, let program = tracer.first {
            (executable, prefix) = (URL(fileURLWithPath: program), Array(tracer.dropFirst()) + [TestPaths.binary.path])
        }
        return try ExternalProcess.run(
            executable, prefix + arguments, environment: environment,
            currentDirectory: currentDirectory ?? TestPaths.repository, input: input, timeout: timeout)
    }
}

/// Fixtures for session tests: the bundled stories as a catalog.
public enum SessionFixtures {
    public static let library: StoryLibrary = StoryLibrary.load(folders: [TestPaths.stories.path])
}

extension SessionFixtures {
    public static var catalog: StoryCatalog { StoryCatalog(library: library) }
}

/// A small story folder and data folder for end-to-end REPL tests: three short stories, the
/// database with its default profile (Reader, 6), and optionally two more (Maya, 5, likes
/// animals; Sam, 9).
public struct ReplFixture: Sendable {
    public let folder: TemporaryFolder
    public var stories: String { folder.url.appendingPathComponent("stories").path }
    public var data: String { folder.url.appendingPathComponent("data").path }

    public init(withProfiles: Bool) throws {
        folder = try TemporaryFolder("repl")
        try folder.write(
            "stories/tiny-fox.md",
            """
            ---
            title: The Tiny Fox
            ages: 3-6
            tags: animals
            summary: A tiny fox looks for the moon.
            ---

            The tiny fox woke up. She looked for the moon.

            The moon was in the pond. The fox said goodnight.
            """)
        try folder.write(
            "stories/big-owl.md",
            """
            ---
            title: The Big Owl
            ages: 4-7
            tags: animals, bedtime
            summary: An owl who cannot sleep.
            ---

            The big owl could not sleep. So she counted stars.
            """)
        try folder.write(
            "stories/rocket-ride.md",
            """
            ---
            title: Rocket Ride
            ages: 5-8
            tags: space
            summary: A rocket goes up and comes down.
            ---

            Five, four, three, two, one. Up went the rocket!
            """)
        let store = try openStore()
        if withProfiles {
            let parent = try store.authorize(pin: nil)
            try store.addProfile(ChildProfile(name: "Maya", age: 5, interests: ["animals"]), authorization: parent)
            try store.addProfile(ChildProfile(name: "Sam", age: 9), authorization: parent)
        }
    }

    /// The real database in the fixture's data folder (the one `storyreader` opens), with a cheap
    /// PIN hash for PINs set here.
    public func openStore() throws -> StoryStore {
        try StoryStore(dataDirectory: URL(fileURLWithPath: data), pinCost: .testing)
    }

    /// The arguments that point storyreader at the fixture.
    public var arguments: [String] { ["--no-audio", "--stories", stories, "--data-dir", data] }

    public func remove() { folder.remove() }
}

/// The interface's catalogs, as the program loads them (`po/` of the repository).
public enum LanguageFixtures {
    public static var folder: URL { TestPaths.repository.appendingPathComponent("po") }
    public static let languages: InterfaceLanguages = InterfaceLanguages.load(folder: folder.path).languages
}
