import ArgumentParser
import Foundation
import StoryKit
import StoryReader

/// `storyreader-bench …` (also run as `storyreader bench …`): benchmarks that print figures
/// (build with -c release for real numbers), a program of their own beside `storyreader`.
struct BenchCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "storyreader-bench",
        abstract: helpMessages.tr("Run a benchmark and print its figures (use a release build)."),
        subcommands: [
            LibraryBenchmark.self, ReplBenchmark.self, StoreBenchmark.self, SpeechBenchmark.self, CompletionBenchmark.self, ImportBenchmark.self,
            ExportBenchmark.self,
            SyncBenchmark.self, SyncServerBenchmark.self, WebPageBenchmark.self, SyncKioskBenchmark.self, BrailleBenchmark.self, RecordingBenchmark.self,
            CoachBenchmark.self,
            LogCommand.self,
        ]
    )
}

struct LibraryBenchmark: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "library",
        abstract: helpMessages.tr("Time loading generated story folders, cold (no cache) and warm (cache), and peak memory.")
    )

    @Option(help: ArgumentHelp(helpMessages.tr("How many story files to generate (repeatable).")))
    var count: [Int] = [1_000, 10_000]

    @Option(help: ArgumentHelp(helpMessages.tr("Words per generated story.")))
    var words = 400

    @Option(help: ArgumentHelp(helpMessages.tr("Timed runs per measurement (the median is shown).")))
    var runs = 5

    func run() throws {
        let root = URL(fileURLWithPath: NSTemporaryDirectory()).appendingPathComponent("storyreader-bench-\(getpid())")
        defer { try? FileManager.default.removeItem(at: root) }
        print("library benchmark: \(ProcessInfo.processInfo.activeProcessorCount) cores, \(words) words a story, \(runs) rounds, interleaved")
        print("  anchors: 'stat all' walks the folders and stats every file (what a warm load must at least do);")
        print("  'read all' also reads every file's bytes (what a cold load must at least do before parsing)")
        for total in count {
            let folder = root.appendingPathComponent("stories-\(total)")
            try StoryGenerator.write(count: total, words: words, into: folder)
            let cache = StoryCache(url: root.appendingPathComponent("cache-\(total)"))
            var cold: [Double] = []
            var warm: [Double] = []
            var statAll: [Double] = []
            var readAll: [Double] = []
            var loaded = 0
            for _ in 0..<runs {
                statAll.append(Clock.measure { _ = FileWalk.total(folder.path, reading: false) })
                readAll.append(Clock.measure { _ = FileWalk.total(folder.path, reading: true) })
                try? FileManager.default.removeItem(at: cache.url)
                cold.append(Clock.measure { loaded = StoryLibrary.load(folders: [folder.path], cache: cache).entries.count })
                warm.append(Clock.measure { loaded = StoryLibrary.load(folders: [folder.path], cache: cache).entries.count })
            }
            let none = Clock.measure { _ = StoryLibrary.load(folders: [folder.path]) }
            func line(_ name: String, _ samples: [Double], anchor: [Double]? = nil) -> String {
                var text = String(
                    format: "    %@ best %.1f ms, median %.1f ms", name.padding(toLength: 10, withPad: " ", startingAt: 0), samples.min() ?? 0,
                    Percentile.median(samples))
                if let anchor, let best = anchor.min(), best > 0 {
                    text += String(format: " (%.1f× the anchor's best)", (samples.min() ?? 0) / best)
                }
                return text
            }
            print("  \(total) stories (\(loaded) loaded):")
            print(line("stat all", statAll))
            print(line("read all", readAll))
            print(line("cold", cold, anchor: readAll) + " — no cache file, writes it")
            print(line("warm", warm, anchor: statAll) + " — from the cache")
            print(String(format: "    parse only %.1f ms (no cache at all); peak RSS %.1f MB", none, Memory.peakResidentMegabytes()))
        }
    }
}

/// The anchors of the library benchmark: a plain recursive walk with `stat` on every entry, and
/// optionally every file read, in C calls with nothing else done.
enum FileWalk {
    /// Bytes of every regular file below `path` (read, or as `stat` says).
    static func total(_ path: String, reading: Bool) -> Int {
        guard let directory = opendir(path) else { return 0 }
        defer { closedir(directory) }
        var sum = 0
        var buffer = [UInt8](repeating: 0, count: 1 << 16)
        while let entry = readdir(directory) {
            let name = withUnsafePointer(to: entry.pointee.d_name) { String(cString: UnsafeRawPointer($0).assumingMemoryBound(to: CChar.self)) }
            if name.hasPrefix(".") { continue }
            let child = path + "/" + name
            var info = stat()
            guard stat(child, &info) == 0 else { continue }
            if (info.st_mode & S_IFMT) == S_IFDIR {
                sum += total(child, reading: reading)
            } else if !reading {
                sum += Int(info.st_size)
            } else {
                let descriptor = open(child, O_RDONLY)
                guard descriptor >= 0 else { continue }
                while true {
                    let count = read(descriptor, &buffer, buffer.count)
                    if count <= 0 { break }
                    sum += count
                }
                close(descriptor)
            }
        }
        return sum
    }
}

enum Clock {
    /// Milliseconds taken by `body`.
    static func measure(_ body: () throws -> Void) rethrows -> Double {
        let start = DispatchTime.now().uptimeNanoseconds
        try body()
        return Double(DispatchTime.now().uptimeNanoseconds - start) / 1_000_000
    }
}

enum Memory {
    /// VmHWM from /proc/self/status, in MB.
    static func peakResidentMegabytes() -> Double {
        guard let status = try? String(contentsOfFile: "/proc/self/status", encoding: .utf8) else { return 0 }
        for line in status.split(separator: "\n") where line.hasPrefix("VmHWM:") {
            let kilobytes = line.split(separator: " ").compactMap { Double($0) }.first ?? 0
            return kilobytes / 1024
        }
        return 0
    }
}

/// Writes generated stories for benchmarks.
enum StoryGenerator {
    static let vocabulary = [
        "the", "fox", "ran", "over", "a", "little", "hill", "and", "saw", "moon", "said", "“Hello,”",
        "Pip’s", "bright", "star-shaped", "kite", "under", "sky", "café", "3,000", "whispered", "owl",
    ]

    static func write(count: Int, words: Int, into folder: URL) throws {
        try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
        var generator = SplitMix(seed: 42)
        for index in 0..<count {
            var body = ""
            for word in 0..<words {
                body += vocabulary[Int(generator.next() % UInt64(vocabulary.count))]
                if word % 12 == 11 { body += ". " } else { body += " " }
                if word % 60 == 59 { body += "\n\n" }
            }
            let subfolder = folder.appendingPathComponent("shelf-\(index / 500)")
            if index % 500 == 0 { try FileManager.default.createDirectory(at: subfolder, withIntermediateDirectories: true) }
            let text =
                "---\ntitle: Generated Story \(index)\nauthor: Bench\nages: 4-8\ntags: animals, space\nsummary: A generated story.\n---\n\n# Chapter\n\n\(body)\n"
            try Data(text.utf8).write(to: subfolder.appendingPathComponent("story-\(index).md"))
        }
    }
}

/// A small seeded random generator (deterministic benchmarks and tests).
struct SplitMix: RandomNumberGenerator {
    var state: UInt64
    init(seed: UInt64) { state = seed }
    mutating func next() -> UInt64 {
        state &+= 0x9E37_79B9_7F4A_7C15
        var z = state
        z = (z ^ (z >> 30)) &* 0xBF58_476D_1CE4_E5B9
        z = (z ^ (z >> 27)) &* 0x94D0_49BB_1331_11EB
        return z ^ (z >> 31)
    }
}
