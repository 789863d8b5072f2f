import Foundation
import StoryKit
import StoryKitTestSupport
import Testing

/// The program a kiosk runs carries no benchmark: they are `storyreader-bench`, built beside it,
/// which `storyreader bench …` runs with the same words; an installed program (which has none
/// beside it) says where the benchmarks are and how to build them.
@Suite(.serialized) struct LeanProgramTests {
    /// Names that only the benchmarks' code has: its types, the temporary PostgreSQL it starts.
    static let benchmarkNames = [
        "ReplBenchmark", "SpeechBenchmark", "SyncKioskBenchmark", "CompletionBenchmark",
        "TemporaryPostgres", "StoryGenerator",
    ]

    /// How often `name` occurs in the file's bytes (Swift keeps type names in its metadata, so a
    /// type linked into a program is found by its name, in a debug or a release build).
    static func occurrences(of name: String, in file: URL) throws -> Int {
        let bytes = try Data(contentsOf: file, options: .alwaysMapped)
        let needle = Array(name.utf8)
        // memchr for the first byte, memcmp for the rest: a debug binary is 150 MB, which
        // Data.range(of:) took minutes to search (Glibc's module has no memmem).
        return bytes.withUnsafeBytes { haystack in
            guard let base = haystack.baseAddress, let first = needle.first else { return 0 }
            var count = 0
            var offset = 0
            while offset + needle.count <= haystack.count,
                let found = memchr(base + offset, Int32(first), haystack.count - offset - needle.count + 1)
            {
                let at = base.distance(to: UnsafeRawPointer(found))
                if memcmp(found, needle, needle.count) == 0 { count += 1 }
                offset = at + 1
            }
            return count
        }
    }

    @Test func theProgramHoldsNoBenchmarkAndTheBenchProgramHoldsThemAll() throws {
        let program = TestPaths.binary
        let bench = TestPaths.benchBinary
        #expect(FileManager.default.isExecutableFile(atPath: bench.path), "no \(bench.path): swift build builds it beside storyreader")
        for name in Self.benchmarkNames {
            #expect(try Self.occurrences(of: name, in: program) == 0, "\(program.path) holds \(name)")
            // The same search finds them where they are: it would see them if they were linked in.
            #expect(try Self.occurrences(of: name, in: bench) > 0, "\(bench.path) lacks \(name)")
        }
    }

    @Test func ffmpegIsOpenedWhenARecordingPlaysNotLinkedIntoEveryStart() throws {
        // Linked, FFmpeg's libraries brought some 180 more into every start of the program and of
        // each export worker; they are opened by CFFmpeg's loader instead (RecordedNarrationTests
        // play recordings through it).
        let readelf = try #require(RequiredTool.locate("readelf"), "readelf (binutils) is needed")
        let dynamic = try ExternalProcess.run(readelf, ["-d", TestPaths.binary.path], environment: ProcessInfo.processInfo.environment)
        #expect(dynamic.status == 0, "\(dynamic.standardError)")
        let needed = dynamic.standardOutput.split(separator: "\n").filter { $0.contains("(NEEDED)") }
        #expect(needed.contains { $0.contains("libespeak-ng") }, "readelf -d: \(needed)")
        for library in ["libavformat", "libavcodec", "libavfilter", "libswresample", "libavutil"] {
            #expect(!needed.contains { $0.contains(library) }, "\(library) is linked: \(needed)")
        }
    }

    @Test func benchHandsOverToTheBenchProgramWithTheSameWords() throws {
        let help = try StoryReaderProcess.run(["bench", "--help"])
        #expect(help.status == 0, "\(help.standardError)")
        #expect(help.standardOutput.hasPrefix("OVERVIEW: Run a benchmark and print its figures (use a release build)."))
        #expect(help.standardOutput.contains("USAGE: storyreader-bench <subcommand>"), "\(help.standardOutput)")
        // The words after `bench` arrive as typed: an unknown option is the bench program's to refuse.
        let wrong = try StoryReaderProcess.run(["bench", "library", "--no-such-option"])
        #expect(wrong.status == 2)
        #expect(wrong.standardError.contains("Unknown option '--no-such-option'"), "\(wrong.standardError)")
        #expect(wrong.standardError.contains("storyreader-bench library"), "\(wrong.standardError)")
        // The hidden kiosk of `bench sync` is the bench program's, and is found there.
        let kiosk = try StoryReaderProcess.run(["bench", "sync-kiosk", "--help"])
        #expect(kiosk.status == 0, "\(kiosk.standardError)")
    }

    @Test func theProgramsOwnHelpStillNamesBench() throws {
        let help = try StoryReaderProcess.run(["--help"])
        #expect(help.standardOutput.contains("bench"), "\(help.standardOutput)")
        let dump = try StoryReaderProcess.run(["--experimental-dump-help"])
        // The program's own tree has `bench` alone: its benchmarks are not in it.
        #expect(dump.standardOutput.contains("\"commandName\" : \"bench\""))
        #expect(!dump.standardOutput.contains("\"commandName\" : \"sync-kiosk\""))
    }

    @Test(arguments: ["en", "es"])
    func anInstalledProgramSaysWhereTheBenchmarksAreAndHowToBuildThem(_ language: String) throws {
        let installed = try InstallTests.Installation()
        defer { installed.remove() }
        // `make install` ships the program alone.
        let bin = installed.root.appendingPathComponent("bin")
        #expect(try FileManager.default.contentsOfDirectory(atPath: bin.path) == ["storyreader"])
        var environment = installed.cleanEnvironment
        environment["LANG"] = language == "es" ? "es_ES.UTF-8" : "C.UTF-8"
        let result = try ExternalProcess.run(
            installed.binary, ["bench", "library"], environment: environment,
            currentDirectory: installed.home.url)
        #expect(result.status == 1)
        let missing = bin.appendingPathComponent("storyreader-bench").path
        let catalog = LanguageFixtures.languages.catalog(language)
        let message = catalog.tr(
            "the benchmarks are a program of their own, {path}, which is not there: build it with 'make bench'",
            ["path": missing])
        #expect(result.standardError == "storyreader: \(message)\n")
        #expect(result.standardOutput == "")
    }
}
