import ArgumentParser
import Foundation
import StoryKit
import StoryReader

/// `storyreader bench completion`: how long a Tab takes, measured as the shell does it: a new
/// `storyreader ---completion …` process per Tab, on a generated library, with the story cache.
struct CompletionBenchmark: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "completion",
        abstract: helpMessages.tr("Time completing a story name in a generated library (a new process per Tab, as in the shell).")
    )

    @Option(help: ArgumentHelp(helpMessages.tr("How many story files to generate.")))
    var count = 1_000

    @Option(help: ArgumentHelp(helpMessages.tr("Timed completions (the median and the slowest are shown).")))
    var runs = 20

    func run() throws {
        let root = URL(fileURLWithPath: NSTemporaryDirectory()).appendingPathComponent("storyreader-bench-completion-\(getpid())")
        defer { try? FileManager.default.removeItem(at: root) }
        let stories = root.appendingPathComponent("stories")
        try StoryGenerator.write(count: count, words: 200, into: stories)
        let environment = [
            "STORYREADER_DATA_DIR": root.appendingPathComponent("data").path, "HOME": root.path,
            "XDG_CONFIG_HOME": root.appendingPathComponent("config").path, "PATH": "/usr/bin:/bin",
        ]
        // What bash passes for `storyreader show --stories DIR story-99<Tab>`.
        let typed = "story-99"
        let completion = [
            "---completion", "show", "--", "positional@0", "4", "\(typed.count)",
            "storyreader", "show", "--stories", stories.path, typed,
        ]
        let executable = BundledStories.sibling("storyreader")
        var candidates = 0
        let cold = try Clock.measure { candidates = try Self.lines(executable, completion, environment) }
        var warm: [Double] = []
        var startup: [Double] = []
        for _ in 0..<runs {
            warm.append(try Clock.measure { candidates = try Self.lines(executable, completion, environment) })
            startup.append(try Clock.measure { _ = try Self.lines(executable, ["--version"], environment) })
        }
        warm.sort()
        startup.sort()
        print(
            String(
                format:
                    "completion of '%@' in %d stories (%d candidates): first %.1f ms (no cache: parses and writes it), then median %.1f ms, slowest %.1f ms; the program starting alone (--version): median %.1f ms",
                typed, count, candidates, cold, Percentile.ofSorted(warm, 0.5), warm.last ?? 0, Percentile.ofSorted(startup, 0.5)))
    }

    /// Runs the program as a shell does (posix_spawn, no descriptor sweep: Foundation's Process
    /// costs tens of milliseconds more here) and counts the lines it printed.
    private static func lines(_ executable: URL, _ arguments: [String], _ environment: [String: String]) throws -> Int {
        var pipe: [Int32] = [0, 0]
        guard Glibc.pipe(&pipe) == 0 else { throw UserFailure(message: "bench completion: no pipe: \(String(cString: strerror(errno)))") }
        var actions = posix_spawn_file_actions_t()
        posix_spawn_file_actions_init(&actions)
        defer { posix_spawn_file_actions_destroy(&actions) }
        posix_spawn_file_actions_adddup2(&actions, pipe[1], STDOUT_FILENO)
        posix_spawn_file_actions_addclose(&actions, pipe[0])
        posix_spawn_file_actions_addclose(&actions, pipe[1])
        let argv = ([executable.path] + arguments).map { strdup($0) } + [nil]
        let envp = environment.map { strdup("\($0.key)=\($0.value)") } + [nil]
        defer { for pointer in argv + envp { free(pointer) } }
        var pid: pid_t = 0
        let status = posix_spawn(&pid, executable.path, &actions, nil, argv, envp)
        close(pipe[1])
        defer { close(pipe[0]) }
        guard status == 0 else { throw UserFailure(message: "bench completion: cannot start \(executable.path): \(String(cString: strerror(status)))") }
        var count = 0
        var buffer = [UInt8](repeating: 0, count: 65_536)
        while true {
            let read = Glibc.read(pipe[0], &buffer, buffer.count)
            if read <= 0 { break }
            count += buffer[0..<read].filter { $0 == UInt8(ascii: "\n") }.count
        }
        var exitStatus: Int32 = 0
        waitpid(pid, &exitStatus, 0)
        return count
    }
}
