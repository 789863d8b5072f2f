import Foundation
import StoryKitTestSupport
import Testing

/// A private X server (Xvfb on a free display) and real terminal windows on it, driven with real
/// key events (xdotool) and photographed (ImageMagick's `import`). Shared by the screenshot tests.
final class XServer {
    let display: String
    private let process: Process
    /// Why the last `open` gave no window (the terminal's exit, or how long it was waited for, and
    /// whether Xvfb still runs): a failure message names it.
    private(set) var lastOpenFailure = ""

    /// The programs every X test drives, with their Debian packages.
    static let tools = [("Xvfb", "xvfb"), ("xdotool", "xdotool"), ("import", "imagemagick"), ("convert", "imagemagick")]

    private init(display: String, process: Process) {
        self.display = display
        self.process = process
    }

    /// An X server for a test that also needs `programs` (a terminal; name and Debian package):
    /// nil when a tool is missing (a failure recorded, naming the command that installs it) or
    /// Xvfb does not start (said).
    static func forTest(
        needing programs: [(name: String, package: String)], _ what: String,
        sourceLocation: SourceLocation = #_sourceLocation
    ) -> XServer? {
        guard RequiredTool.findAll(tools + programs, for: what, sourceLocation: sourceLocation) != nil else { return nil }
        guard let x = start() else {
            print("X tests skipped: Xvfb could not start a display")
            return nil
        }
        return x
    }

    /// Starts Xvfb on the first free display from :90; nil when it does not come up in 10 s.
    static func start() -> XServer? {
        for number in 90..<160 {
            let socket = "/tmp/.X11-unix/X\(number)"
            guard isFree(number) else { continue }
            let process = Process()
            process.executableURL = URL(fileURLWithPath: "/usr/bin/Xvfb")
            process.arguments = [":\(number)", "-screen", "0", "1280x1024x24", "-nolisten", "tcp"]
            process.standardOutput = FileHandle.nullDevice
            process.standardError = FileHandle.nullDevice
            guard (try? process.run()) != nil else { return nil }
            let deadline = Date().addingTimeInterval(10)
            while Date() < deadline, process.isRunning, !FileManager.default.fileExists(atPath: socket) { Thread.sleep(forTimeInterval: 0.05) }
            if FileManager.default.fileExists(atPath: socket), process.isRunning {
                // The socket comes before the server takes clients: wait until one is answered
                // (a terminal started at once exited, unable to open the display).
                let server = XServer(display: ":\(number)", process: process)
                while Date() < deadline, process.isRunning, server.run("/usr/bin/xdotool", ["getdisplaygeometry"]).isEmpty {
                    Thread.sleep(forTimeInterval: 0.05)
                }
                if process.isRunning { return server }
            }
            if process.isRunning { end(process) }
        }
        return nil
    }

    /// Ends the server and removes its lock and socket (Xvfb leaves them when it is killed).
    func stop() {
        Self.end(process)
        let number = display.dropFirst()
        try? FileManager.default.removeItem(atPath: "/tmp/.X\(number)-lock")
        try? FileManager.default.removeItem(atPath: "/tmp/.X11-unix/X\(number)")
    }

    /// Whether display `number` can be taken: no lock file, or one left by a server that is gone
    /// (an Xvfb killed with SIGKILL leaves its lock and socket; once every display from :90 was
    /// taken that way and every X test skipped). A stale lock and socket are removed.
    private static func isFree(_ number: Int) -> Bool {
        let lock = "/tmp/.X\(number)-lock"
        let socket = "/tmp/.X11-unix/X\(number)"
        guard let text = try? String(contentsOfFile: lock, encoding: .utf8) else {
            return !FileManager.default.fileExists(atPath: lock) && !FileManager.default.fileExists(atPath: socket)
        }
        guard let pid = pid_t(text.trimmingCharacters(in: .whitespacesAndNewlines)), pid > 0 else { return false }
        if kill(pid, 0) == 0 || errno != ESRCH { return false }
        try? FileManager.default.removeItem(atPath: lock)
        try? FileManager.default.removeItem(atPath: socket)
        return !FileManager.default.fileExists(atPath: lock)
    }

    /// Ends `process`: SIGTERM, then SIGKILL if it is still there after `grace` seconds. Never
    /// waits without bound (an X client that ignores SIGTERM once hung a whole test run).
    static func end(_ process: Process, grace: Double = 3) {
        if process.isRunning { process.terminate() }
        let deadline = Date().addingTimeInterval(grace)
        while process.isRunning, Date() < deadline { Thread.sleep(forTimeInterval: 0.05) }
        if process.isRunning { kill(process.processIdentifier, SIGKILL) }
        process.waitUntilExit()
    }

    /// Ends `process` if it has not finished within `seconds` (for tools that should be quick).
    static func watch(_ process: Process, seconds: Double) {
        let pid = process.processIdentifier
        DispatchQueue.global().asyncAfter(deadline: .now() + seconds) { [process] in
            if process.isRunning { kill(pid, SIGKILL) }
        }
    }

    /// Runs an X tool on this display; its standard output.
    @discardableResult
    func run(_ tool: String, _ arguments: [String]) -> String {
        let process = Process()
        process.executableURL = URL(fileURLWithPath: tool)
        process.arguments = arguments
        var environment = ProcessInfo.processInfo.environment
        environment["DISPLAY"] = display
        process.environment = environment
        let output = Pipe()
        process.standardOutput = output
        process.standardError = FileHandle.nullDevice
        guard (try? process.run()) != nil else { return "" }
        Self.watch(process, seconds: 20)
        let data = output.fileHandleForReading.readDataToEndOfFile()
        process.waitUntilExit()
        return String(decoding: data, as: UTF8.self)
    }

    /// The environment a terminal starts with: nothing that names another terminal or a size.
    func terminalEnvironment(_ extra: [String: String] = [:]) -> [String: String] {
        var environment = ProcessInfo.processInfo.environment
        for name in [
            "TMUX", "STY", "TERM_PROGRAM", "VTE_VERSION", "KITTY_WINDOW_ID", "WT_SESSION", "KONSOLE_VERSION", "XTERM_VERSION",
            "COLUMNS", "LINES", "NO_COLOR", "CLICOLOR_FORCE", "FORCE_COLOR", "ACCESSIBLE",
        ] {
            environment[name] = nil
        }
        environment["DISPLAY"] = display
        for (name, value) in extra { environment[name] = value }
        return environment
    }

    /// A terminal window running `command`; found by its unique title.
    func open(_ terminal: [String], title: String, environment: [String: String]) throws -> TerminalWindow? {
        let process = Process()
        process.executableURL = URL(fileURLWithPath: terminal[0])
        process.arguments = Array(terminal.dropFirst())
        process.environment = environment
        process.standardOutput = FileHandle.nullDevice
        // What the terminal says when it gives up is kept for the failure message.
        let errors = FileManager.default.temporaryDirectory.appendingPathComponent("terminal-\(UUID().uuidString.prefix(8)).err")
        _ = FileManager.default.createFile(atPath: errors.path, contents: nil)
        defer { try? FileManager.default.removeItem(at: errors) }
        process.standardError = try FileHandle(forWritingTo: errors)
        try process.run()
        // Generous: with the whole suite running on two cores, xterm once took over 15 s to map.
        let started = Date()
        let deadline = started.addingTimeInterval(40)
        while Date() < deadline, process.isRunning {
            let found = run("/usr/bin/xdotool", ["search", "--name", "^\(title)$"]).split(separator: "\n").first
            if let found { return TerminalWindow(x: self, process: process, window: String(found)) }
            Thread.sleep(forTimeInterval: 0.1)
        }
        let waited = String(format: "%.1f s", Date().timeIntervalSince(started))
        lastOpenFailure =
            process.isRunning
            ? "\(terminal[0]) still running but no window titled \(title) after \(waited)"
            : "\(terminal[0]) exited (status \(process.terminationStatus)) after \(waited) without a window"
        let said = (try? String(contentsOf: errors, encoding: .utf8))?.trimmingCharacters(in: .whitespacesAndNewlines) ?? ""
        if !said.isEmpty { lastOpenFailure += ", saying: \(said.prefix(400))" }
        lastOpenFailure += self.process.isRunning ? "; Xvfb \(display) running" : "; Xvfb \(display) has exited"
        Self.end(process)
        return nil
    }

    /// `open` tried up to `tries` times, waiting longer after each failure: the window, or nil
    /// with every try's failure in `lastOpenFailure`. xterm sometimes exits at once with status 1
    /// and an Xt error it will not print to root ("cannot be safely formatted"); in CI it did so
    /// twice running, 0.1 s each, so the tries are spread over several seconds.
    func opening(tries: Int = 4, _ open: () throws -> TerminalWindow?) rethrows -> TerminalWindow? {
        var failures: [String] = []
        for attempt in 0..<tries {
            if attempt > 0 { Thread.sleep(forTimeInterval: Double(2 * attempt - 1)) }
            if let window = try open() {
                if !failures.isEmpty { print("a terminal window appeared after \(failures.count) failed tries: \(failures.joined(separator: " | "))") }
                return window
            }
            failures.append(lastOpenFailure)
        }
        lastOpenFailure = failures.joined(separator: " | ")
        return nil
    }

    /// xterm at 80×24 in DejaVu Sans Mono, no inner border (the window is the text area), its own
    /// background `background`, and send-events allowed so that xdotool's keys are taken.
    func xterm(title: String, background: String, command: [String], environment: [String: String]) throws -> TerminalWindow? {
        try open(
            [
                "/usr/bin/xterm", "-geometry", "80x24+0+0", "-fa", "DejaVu Sans Mono", "-fs", "12", "-bg", background, "-fg", "#808080",
                "-b", "0", "-xrm", "XTerm*allowSendEvents: true", "-title", title, "-e",
            ] + command, title: title, environment: environment)
    }
}

/// One terminal window on an `XServer`.
struct TerminalWindow {
    let x: XServer
    let process: Process
    let window: String

    func type(_ text: String) { x.run("/usr/bin/xdotool", ["type", "--window", window, "--delay", "15", text]) }
    func key(_ names: String...) { x.run("/usr/bin/xdotool", ["key", "--window", window] + names) }

    /// Types a `:` command and Enter, then lets the screen settle.
    func command(_ text: String, settle: Double = 0.7) {
        type(":" + text)
        key("Return")
        Thread.sleep(forTimeInterval: settle)
    }

    /// A PNG of the window's contents.
    func screenshot(_ path: String) { x.run("/usr/bin/import", ["-window", window, path]) }

    func close() { XServer.end(process) }

    /// Pixels of any colour but the commonest one (the background): what is drawn on it.
    static func pixelsOffTheBackground(in path: String) -> Int {
        let counts = XServerTools.histogram(path).split(separator: "\n")
            .compactMap { Int($0.split(separator: ":").first?.trimmingCharacters(in: .whitespaces) ?? "") }
        return counts.reduce(0, +) - (counts.max() ?? 0)
    }

    /// Pixels of exactly `color` ("#FF00FF") in a PNG.
    static func pixels(of color: String, in path: String) -> Int {
        let histogram = XServerTools.histogram(path)
        return histogram.split(separator: "\n").filter { $0.uppercased().contains(color.uppercased()) }
            .compactMap { Int($0.split(separator: ":").first?.trimmingCharacters(in: .whitespaces) ?? "") }.reduce(0, +)
    }
}

enum XServerTools {
    static func histogram(_ path: String) -> String {
        let process = Process()
        process.executableURL = URL(fileURLWithPath: "/usr/bin/convert")
        process.arguments = [path, "-format", "%c", "histogram:info:-"]
        let output = Pipe()
        process.standardOutput = output
        process.standardError = FileHandle.nullDevice
        guard (try? process.run()) != nil else { return "" }
        XServer.watch(process, seconds: 20)
        let data = output.fileHandleForReading.readDataToEndOfFile()
        process.waitUntilExit()
        return String(decoding: data, as: UTF8.self)
    }
}
