import ArgumentParser
import Foundation
import StoryKit
import StoryReader

/// `storyreader bench export`: the export against `espeak-ng -w` on the same text and rate, runs
/// interleaved (this machine is shared and noisy), best and median of each, CPU time and peak
/// memory of each process.
struct ExportBenchmark: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "export",
        abstract: helpMessages.tr("Time exporting a story (WAV, Opus, MP3; 1 and N jobs) against espeak-ng -w on its text."),
        discussion: helpMessages.tr(
            "Each run is a whole process, timed from outside (wall clock, and user + system CPU and peak memory from the kernel). The kinds of run take turns, --runs rounds, and the best and the median of each are printed. The limit is one espeak-ng -w per core, each on its share of the text, all at once. Example: {command}",
            [
                "command": #"storyreader bench export --stories Tests/Fixtures/corpus "The Cat That Walked by Himself""#
            ]))

    @OptionGroup var global: GlobalOptions

    @Argument(help: ArgumentHelp(helpMessages.tr("The story (default: the bundled story with the most words)."), valueName: "story"))
    var story: String?

    @Option(help: ArgumentHelp(helpMessages.tr("Rounds of runs (best and median shown).")))
    var runs = 5

    struct Sample {
        var wall: Double
        var cpu: Double
        var rss: Int
    }

    func run() throws {
        let library = global.loadLibrary()
        let chosen: Story
        if let story {
            chosen = try global.resolveStory(story, in: library)
        } else {
            guard let longest = library.entries.max(by: { $0.words < $1.words }) else { throw UserFailure(message: "no stories") }
            chosen = try global.resolveStory(longest.id, in: library)
        }
        let cores = ProcessInfo.processInfo.activeProcessorCount
        let root = URL(fileURLWithPath: NSTemporaryDirectory()).appendingPathComponent("storyreader-bench-export-\(getpid())")
        defer { try? FileManager.default.removeItem(at: root) }
        try FileManager.default.createDirectory(at: root, withIntermediateDirectories: true)
        // The text espeak-ng reads: the story's sentences as narrated, one a line.
        let narration = try Narration(story: chosen)
        let lines = narration.items.map { $0.prefix + $0.text.replacingOccurrences(of: "\n", with: " ") }
        let whole = root.appendingPathComponent("whole.txt")
        try lines.joined(separator: "\n").write(to: whole, atomically: true, encoding: .utf8)
        var shares: [URL] = []
        for (index, run) in ExportWorkers.split(narration, jobs: cores).enumerated() {
            let file = root.appendingPathComponent("share-\(index).txt")
            try lines[run].joined(separator: "\n").write(to: file, atomically: true, encoding: .utf8)
            shares.append(file)
        }
        let me = BundledStories.sibling("storyreader").path
        let voice = chosen.language
        let espeak = ["/usr/bin/espeak-ng"].first(where: FileManager.default.isExecutableFile(atPath:))
        let stories = global.storyFolders.flatMap { ["--stories", $0] }
        func export(_ name: String, _ extra: [String]) -> [String] {
            [me, "export"] + stories + [chosen.id, "--to", root.appendingPathComponent(name).path, "--force", "--quiet", "--rate", "175"] + extra
        }
        var kinds: [(String, [[String]])] = []
        if let espeak {
            kinds.append(("espeak-ng -w, whole", [[espeak, "-v", voice, "-s", "175", "-f", whole.path, "-w", root.appendingPathComponent("e.wav").path]]))
            kinds.append(
                (
                    "espeak-ng -w, one per core (the limit)",
                    shares.enumerated().map { index, file in
                        [espeak, "-v", voice, "-s", "175", "-f", file.path, "-w", root.appendingPathComponent("e\(index).wav").path]
                    }
                ))
        }
        kinds.append(("export WAV, --jobs 1", [export("a.wav", ["--jobs", "1"])]))
        kinds.append(("export WAV, --jobs \(cores)", [export("b.wav", ["--jobs", "\(cores)"])]))
        kinds.append(("export Opus, --jobs 1", [export("c.opus", ["--jobs", "1"])]))
        kinds.append(("export Opus, --jobs \(cores)", [export("f.opus", ["--jobs", "\(cores)"])]))
        kinds.append(("export MP3, --jobs 1", [export("d.mp3", ["--jobs", "1"])]))
        kinds.append(("export MP3, --jobs \(cores)", [export("g.mp3", ["--jobs", "\(cores)"])]))
        kinds.append(("export EPUB, --jobs \(cores)", [export("e.epub", ["--jobs", "\(cores)"])]))
        // One worker alone on the first share, for its own peak memory (a parent's peak from wait4
        // counts its workers' too).
        let firstShare = ExportWorkers.split(narration, jobs: cores).first ?? 0..<narration.items.count
        kinds.append(
            (
                "one export worker (its share)",
                [
                    [me, "export-worker"] + stories + [
                        chosen.id, "--first", "\(firstShare.lowerBound)",
                        "--end", "\(firstShare.upperBound)", "--rate", "175", "--pitch", "55", "--volume", "80", "--voice", voice,
                    ]
                ]
            ))
        var samples = Array(repeating: [Sample](), count: kinds.count)
        for _ in 0..<runs {
            for (index, kind) in kinds.enumerated() { samples[index].append(try Self.time(kind.1)) }
        }
        print(
            "export benchmark: “\(chosen.title)”, \(narration.items.reduce(0) { $0 + $1.words.count }) words, rate 175, \(cores) cores, \(runs) rounds, interleaved"
        )
        for (index, kind) in kinds.enumerated() {
            let wall = samples[index].map(\.wall).sorted()
            let cpu = samples[index].map(\.cpu).sorted()
            let rss = samples[index].map(\.rss).max() ?? 0
            let name = kind.0.padding(toLength: 40, withPad: " ", startingAt: 0)
            print(
                String(
                    format: "  %@ wall best %.3f s, median %.3f s · CPU best %.3f s, median %.3f s · peak RSS %d MB",
                    name as NSString, wall[0], Percentile.ofSorted(wall, 0.5), cpu[0], Percentile.ofSorted(cpu, 0.5), rss / 1024))
        }
        // Ratios of best wall times to their anchors, measured in the same rounds: the export
        // at N jobs against the limit (issue 32: within 1.15), each encoder against the WAV
        // export at the same jobs (Opus and MP3: within 1.5).
        func best(_ name: String) -> Double? { kinds.firstIndex { $0.0 == name }.flatMap { samples[$0].map(\.wall).min() } }
        let ratios: [(String, String, String)] = [
            ("export WAV, --jobs \(cores)", "espeak-ng -w, one per core (the limit)", "WAV --jobs \(cores) / the limit"),
            ("export WAV, --jobs 1", "espeak-ng -w, whole", "WAV --jobs 1 / espeak-ng -w whole"),
            ("export Opus, --jobs 1", "export WAV, --jobs 1", "Opus / WAV, --jobs 1"),
            ("export Opus, --jobs \(cores)", "export WAV, --jobs \(cores)", "Opus / WAV, --jobs \(cores)"),
            ("export MP3, --jobs 1", "export WAV, --jobs 1", "MP3 / WAV, --jobs 1"),
            ("export MP3, --jobs \(cores)", "export WAV, --jobs \(cores)", "MP3 / WAV, --jobs \(cores)"),
        ]
        for (measured, anchor, label) in ratios {
            guard let measured = best(measured), let anchor = best(anchor) else { continue }
            print(String(format: "  %@ %.2f×", label.padding(toLength: 40, withPad: " ", startingAt: 0) as NSString, measured / anchor))
        }
        // Words a second by jobs, from the best wall times: what more cores would give.
        let words = Double(narration.items.reduce(0) { $0 + $1.words.count })
        for (index, kind) in kinds.enumerated() where kind.0.hasPrefix("export WAV") || kind.0.hasPrefix("espeak-ng") {
            let best = samples[index].map(\.wall).min() ?? 1
            print(String(format: "  %@ %.0f words a second", kind.0.padding(toLength: 40, withPad: " ", startingAt: 0) as NSString, words / best))
        }
    }

    /// Runs the commands at once and waits for all; wall clock of the whole, CPU of all, the largest peak RSS (KB).
    static func time(_ commands: [[String]]) throws -> Sample {
        let start = DispatchTime.now().uptimeNanoseconds
        var pids: [pid_t] = []
        for command in commands {
            var pid: pid_t = 0
            let argv = command.map { strdup($0) } + [nil]
            defer { for argument in argv { free(argument) } }
            var actions: posix_spawn_file_actions_t = posix_spawn_file_actions_t()
            posix_spawn_file_actions_init(&actions)
            posix_spawn_file_actions_addopen(&actions, 1, "/dev/null", O_WRONLY, 0)
            posix_spawn_file_actions_addopen(&actions, 2, "/dev/null", O_WRONLY, 0)
            defer { posix_spawn_file_actions_destroy(&actions) }
            guard posix_spawn(&pid, command[0], &actions, nil, argv, environ) == 0 else {
                throw UserFailure(message: "cannot run \(command[0])")
            }
            pids.append(pid)
        }
        var cpu = 0.0
        var rss = 0
        for pid in pids {
            var status: Int32 = 0
            var usage = rusage()
            _ = wait4(pid, &status, 0, &usage)
            cpu += Double(usage.ru_utime.tv_sec) + Double(usage.ru_utime.tv_usec) / 1e6 + Double(usage.ru_stime.tv_sec) + Double(usage.ru_stime.tv_usec) / 1e6
            rss = max(rss, usage.ru_maxrss)
        }
        return Sample(wall: Double(DispatchTime.now().uptimeNanoseconds - start) / 1e9, cpu: cpu, rss: rss)
    }
}
