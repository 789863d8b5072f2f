import Foundation
import StoryKit

/// `storyreader kiosk --check`: reads this machine's facts and prints, for each way out that the
/// program cannot block, whether it is locked, with the fix when it is not.
enum KioskCheck {
    /// Prints the report; the exit status is 0 when everything is locked, else 1.
    static func run(messages: MessageCatalog = .english) -> Never {
        let items = KioskLockCheck.check(readFacts())
        print(report(items, messages: messages), terminator: "")
        Foundation.exit(items.allSatisfy { $0.state == .locked } ? 0 : 1)
    }

    /// In the language of `messages`: the frame, each way out's name, finding and fix; the commands
    /// to type, file names and settings stay as they are typed.
    static func report(_ items: [KioskLockCheck.Item], messages: MessageCatalog = .english) -> String {
        var text = messages.tr("What this machine locks for the kiosk (docs/kiosk.md explains each):") + "\n"
        let lockedWord = messages.tr("locked")
        let openWord = messages.tr("OPEN")
        let width = max(DisplayWidth.of(lockedWord), DisplayWidth.of(openWord))
        func padded(_ word: String) -> String { word + String(repeating: " ", count: width - DisplayWidth.of(word)) }
        let indent = String(repeating: " ", count: width + 2)
        for item in items {
            let line = messages.tr("{name}: {finding}", ["name": item.title.localized(messages), "finding": item.found.localized(messages)])
            text += "\(padded(item.state == .locked ? lockedWord : openWord))  \(line)\n"
            if let fix = item.remedy { text += indent + messages.tr("fix: {fix}", ["fix": fix.localized(messages)]) + "\n" }
        }
        let locked = items.filter { $0.state == .locked }.count
        text +=
            (locked == items.count
                ? messages.trn("All {count} locked.", "All {count} locked.", items.count)
                : messages.tr("{locked} of {count} locked.", ["locked": String(locked), "count": String(items.count)])) + "\n"
        return text
    }

    static func readFacts(environment: [String: String] = ProcessInfo.processInfo.environment) -> KioskLockCheck.MachineFacts {
        let logind = systemdSettings("/etc/systemd/logind.conf", keys: ["NAutoVTs", "ReserveVT"])
        let system = systemdSettings("/etc/systemd/system.conf", keys: ["CtrlAltDelBurstAction"])
        return KioskLockCheck.MachineFacts(
            sysrq: try? String(contentsOfFile: "/proc/sys/kernel/sysrq", encoding: .utf8),
            ctrlAltDelTargetLink: try? FileManager.default.destinationOfSymbolicLink(atPath: "/etc/systemd/system/ctrl-alt-del.target"),
            ctrlAltDelBurstAction: system["CtrlAltDelBurstAction"],
            autoVTs: logind["NAutoVTs"].flatMap { Int($0) },
            reserveVT: logind["ReserveVT"].flatMap { Int($0) },
            terminal: ttyname(STDIN_FILENO).map { String(cString: $0) },
            environment: environment.filter { ["TMUX", "STY", "TERM", "TERM_PROGRAM", "DISPLAY", "WAYLAND_DISPLAY", "SSH_CONNECTION"].contains($0.key) },
            ancestors: ancestors())
    }

    /// `Key=value` settings of a systemd configuration file and its drop-ins (`NAME.d/*.conf`, in
    /// name order, the last one winning, as systemd reads them).
    static func systemdSettings(_ path: String, keys: Set<String>) -> [String: String] {
        let dropIns = ((try? FileManager.default.contentsOfDirectory(atPath: path + ".d")) ?? [])
            .filter { $0.hasSuffix(".conf") }.sorted().map { path + ".d/" + $0 }
        var settings: [String: String] = [:]
        for file in [path] + dropIns {
            guard let text = try? String(contentsOfFile: file, encoding: .utf8) else { continue }
            for line in text.split(separator: "\n") {
                let parts = line.split(separator: "=", maxSplits: 1).map { $0.trimmingCharacters(in: .whitespaces) }
                if parts.count == 2, keys.contains(parts[0]) { settings[parts[0]] = parts[1] }
            }
        }
        return settings
    }

    /// The parent processes, nearest first, from /proc (their `comm` names and command lines).
    static func ancestors() -> [(name: String, commandLine: [String])] {
        var result: [(name: String, commandLine: [String])] = []
        var pid = getppid()
        while pid > 1, result.count < 32 {
            guard let stat = try? String(contentsOfFile: "/proc/\(pid)/stat", encoding: .utf8),
                let close = stat.lastIndex(of: ")")
            else { break }
            let name =
                (try? String(contentsOfFile: "/proc/\(pid)/comm", encoding: .utf8))?
                .trimmingCharacters(in: .whitespacesAndNewlines) ?? ""
            let commandLine = (FileManager.default.contents(atPath: "/proc/\(pid)/cmdline") ?? Data())
                .split(separator: 0).map { String(decoding: $0, as: UTF8.self) }
            result.append((name, commandLine))
            // After "(comm) ": the state, then the parent's id.
            let fields = stat[stat.index(after: close)...].split(separator: " ")
            guard fields.count > 1, let parent = Int32(fields[1]) else { break }
            pid = parent
        }
        return result
    }
}
