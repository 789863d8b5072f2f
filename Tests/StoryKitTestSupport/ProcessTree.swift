public import Foundation

/// Processes as /proc shows them: for tests that must find a program's children (export workers)
/// and check that none is left running.
public enum ProcessTree {
    /// The processes whose parent is `pid`.
    public static func children(of pid: Int32) -> [Int32] {
        let entries = (try? FileManager.default.contentsOfDirectory(atPath: "/proc")) ?? []
        return entries.compactMap(Int32.init).filter { parent(of: $0) == pid }.sorted()
    }

    /// The parent of `pid`, from /proc/PID/stat (the field after the command's closing parenthesis).
    public static func parent(of pid: Int32) -> Int32? {
        guard let stat = try? String(contentsOfFile: "/proc/\(pid)/stat", encoding: .utf8),
            let close = stat.lastIndex(of: ")")
        else { return nil }
        let fields = stat[stat.index(after: close)...].split(separator: " ")
        return fields.count > 1 ? Int32(fields[1]) : nil
    }

    /// The command line of a running process, arguments joined by spaces; empty once it has ended
    /// (a zombie's is empty too).
    public static func commandLine(_ pid: Int32) -> String {
        guard let data = FileManager.default.contents(atPath: "/proc/\(pid)/cmdline") else { return "" }
        return String(decoding: data, as: UTF8.self).split(separator: "\0").joined(separator: " ")
    }

    /// The children of `process` whose command line holds `marker`, once there are `count` of
    /// them (or `process` ended, or `seconds` passed: then fewer).
    public static func waitForChildren(of process: Process, running marker: String, count: Int, within seconds: Double = 10) -> [Int32] {
        var found: [Int32] = []
        let deadline = Date().addingTimeInterval(seconds)
        while Date() < deadline, found.count < count, process.isRunning {
            found = children(of: process.processIdentifier).filter { commandLine($0).contains(marker) }
            Thread.sleep(forTimeInterval: 0.01)
        }
        return found
    }

    /// Waits until none of `pids` runs a command line holding `marker` (or `seconds` passed);
    /// returns those still running it.
    public static func waitUntilGone(_ pids: [Int32], running marker: String, within seconds: Double = 10) -> [Int32] {
        let deadline = Date().addingTimeInterval(seconds)
        var left = pids
        while true {
            left = left.filter { commandLine($0).contains(marker) }
            if left.isEmpty || Date() >= deadline { return left }
            Thread.sleep(forTimeInterval: 0.05)
        }
    }
}
