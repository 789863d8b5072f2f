import Foundation
import StoryKitTestSupport
import Testing

@testable import StoryKit
@testable import StoryReader

@Suite struct ReadTerminalTests {
    /// The keys `read` maps, as the shared decoder gives them.
    @Test func theKeysReadUsesAreDecoded() {
        var decoder = KeyDecoder()
        #expect(decoder.feed(Array("\u{1B}[A\u{1B}[B\u{1B}[C\u{1B}[D".utf8)) == [.up, .down, .right, .left])
        #expect(
            decoder.feed([0x20, 0x71, 0x2B, 0x2D, 0x73, 0x03]) == [.space, .character("q"), .character("+"), .character("-"), .character("s"), .control("c")])
        #expect(decoder.feed([0x1B]) == [])
        #expect(decoder.flush() == [.escape])
    }

    /// A half sequence read together with the next keys (a busy machine read late: the kiosk's
    /// random burst under load) ends where a byte cannot belong to it: the Escapes and Ctrl-W
    /// after it are keys, not parameters of one long unknown sequence.
    @Test func aBrokenSequenceDoesNotSwallowTheKeysAfterIt() {
        var decoder = KeyDecoder()
        #expect(decoder.feed([0x1B, 0x5B, 0x31, 0x1B, 0x1B, 0x1B, 0x17]) == [.unknown("ESC"), .escape, .escape, .escape, .control("w")])
        #expect(decoder.feed([0x1B, 0x5B, 0x31, 0x7E]) == [.home])
        #expect(decoder.feed([0x1B, 0x5B, 0x32, 0x31, 0x3B, 0x32, 0x7E]) == [.unknown("CSI 21;2~")])
        #expect(decoder.feed([0x1B, 0x5B, 0x33, 0x0D]) == [.unknown("ESC"), .enter])
        #expect(decoder.feed([0x1B, 0x5B, 0x31]) == [])
        #expect(decoder.flush() == [.unknown("ESC")])
    }

    /// The real terminal, under tmux: `read` is the Session's reader (the REPL's screen and keys):
    /// the highlight shows, Space pauses at the word and says where, Space goes on, Right moves on
    /// a sentence, q stops and ends the program, and the terminal is back in its normal mode
    /// afterwards. Also a SIGTERM mid-story restores it.
    @Test func readingUnderTmuxHighlightsPausesQuitsAndRestores() throws {
        guard TmuxSession.isInstalled(for: "reading under tmux") else { return }
        let session = "sr-read-\(getpid())"
        let folder = try TemporaryFolder("tmux")
        defer {
            _ = try? tmux(["kill-server"])
            folder.remove()
        }
        let binary = TestPaths.binary.path
        let command =
            "cd \(folder.path) && NO_COLOR=1 STORYREADER_DATA_DIR=\(folder.path) \(binary) read pip-and-the-puddle --device no-such-device 2>/dev/null; echo EXIT=$?; stty -a | tr '\\n' ' ' > stty.txt; echo DONE"
        try startSession(session, command)
        #expect(waitForPane(session, timeout: 30) { Self.showsTheWordHighlighted($0) }, "a word is shown in reverse video")
        #expect(waitForPane(session) { $0.contains("reading") })
        #expect(waitForPane(session) { $0.contains("cannot open audio device 'no-such-device'") }, "the fallback notice is shown")
        #expect(waitForPane(session) { $0.contains("Space pause") }, "the reading keys are shown")
        try tmux(["send-keys", "-t", session, " "])
        #expect(waitForPane(session) { $0.contains("Paused at ‘") && $0.contains("paused") }, "Space pauses and says the word")
        try tmux(["send-keys", "-t", session, " "])
        #expect(waitForPane(session) { $0.contains("▶ reading") }, "Space goes on")
        try tmux(["send-keys", "-t", session, "Right"])
        try tmux(["send-keys", "-t", session, "w"])
        #expect(waitForPane(session) { $0.contains("Pip and the Puddle, reading at ‘") && $0.contains("sentence ") }, "w says where, while reading")
        try tmux(["send-keys", "-t", session, "q"])
        #expect(waitForPane(session) { $0.contains("DONE") }, "q quits")
        let pane = try capture(session)
        #expect(pane.contains("EXIT=0"), "\(pane)")
        let stty = (try? String(contentsOfFile: folder.url.appendingPathComponent("stty.txt").path, encoding: .utf8)) ?? ""
        #expect(stty.contains(" icanon") && stty.contains(" echo") && !stty.contains("-icanon"), "terminal restored: \(stty)")

        // SIGTERM while reading: the terminal is restored too.
        try tmux(["kill-session", "-t", session])
        try? FileManager.default.removeItem(atPath: folder.url.appendingPathComponent("stty.txt").path)
        // A new session name: the old one may still be closing on a loaded machine.
        let second = session + "-term"
        try startSession(second, command)
        #expect(waitForPane(second, timeout: 30) { Self.showsTheWordHighlighted($0) })
        let pids = try shell("pgrep -f '^\(binary) read pip-and-the-puddle --device no-such-device' | head -1")
        if let pid = Int32(pids.trimmingCharacters(in: .whitespacesAndNewlines)) { kill(pid, SIGTERM) }
        #expect(waitForPane(second, timeout: 30) { $0.contains("DONE") })
        #expect(try capture(second).contains("EXIT=143"))
        let stty2 = (try? String(contentsOfFile: folder.url.appendingPathComponent("stty.txt").path, encoding: .utf8)) ?? ""
        #expect(stty2.contains(" icanon") && !stty2.contains("-icanon") && !stty2.contains("-echo "), "terminal restored after SIGTERM: \(stty2)")
    }

    /// The word being heard is drawn in reverse video (with bold and underline, so that it shows
    /// without colour too).
    static func showsTheWordHighlighted(_ pane: String) -> Bool {
        pane.components(separatedBy: "\u{1B}[").contains { $0.hasPrefix("7m") || $0.contains(";7m") || $0.contains(";7;") }
    }

    /// A tmux server of our own, so that other tests' sessions and ours never meet.
    let socket = "storyreader-read-\(getpid())"

    /// Starts a detached session. The tmux server it may start must not inherit the pipes other
    /// tests running in parallel have open (their reads would never end), so bash closes every
    /// descriptor above 2 before it becomes tmux (dash cannot name descriptors above 9).
    func startSession(_ session: String, _ command: String) throws {
        let process = Process()
        process.executableURL = URL(fileURLWithPath: "/bin/bash")
        let closeAll = "for fd in $(ls /proc/$$/fd); do [ \"$fd\" -gt 2 ] 2>/dev/null && eval \"exec $fd>&-\"; done; "
        process.arguments = [
            "-c", closeAll + "exec /usr/bin/tmux -L \"$0\" new-session -d -s \"$1\" -x 80 -y 24 sh -c \"$2\"",
            socket, session, command + "; sleep 30",
        ]
        process.standardOutput = FileHandle.nullDevice
        process.standardError = FileHandle.nullDevice
        process.standardInput = FileHandle.nullDevice
        try process.run()
        process.waitUntilExit()
    }

    @discardableResult
    func tmux(_ arguments: [String]) throws -> String { try run("/usr/bin/tmux", ["-L", socket] + arguments) }
    func capture(_ session: String) throws -> String { try tmux(["capture-pane", "-e", "-p", "-t", session]) }
    func shell(_ command: String) throws -> String { try run("/bin/sh", ["-c", command]) }

    func run(_ path: String, _ arguments: [String]) throws -> String {
        let process = Process()
        process.executableURL = URL(fileURLWithPath: path)
        process.arguments = arguments
        let pipe = Pipe()
        process.standardOutput = pipe
        process.standardError = FileHandle.nullDevice
        try process.run()
        let data = pipe.fileHandleForReading.readDataToEndOfFile()
        process.waitUntilExit()
        return String(decoding: data, as: UTF8.self)
    }

    func waitForPane(_ session: String, timeout: Double = 5, until condition: (String) -> Bool) -> Bool {
        let deadline = Date().addingTimeInterval(timeout)
        while Date() < deadline {
            if let pane = try? capture(session), condition(pane) { return true }
            usleep(50_000)
        }
        return false
    }
}
