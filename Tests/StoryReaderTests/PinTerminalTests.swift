import Foundation
import Testing
import StoryKitTestSupport
@testable import StoryKit

/// The PIN and the profile form on a real terminal, under tmux: the PIN is not echoed, and the form
/// asks field by field with label, hint and constraint.
@Suite(.serialized) struct PinTerminalTests {
    static let hasTmux = FileManager.default.isExecutableFile(atPath: "/usr/bin/tmux")

    struct Session {
        let name = "storyreader-test-\(UUID().uuidString.prefix(8))"
        /// A tmux server of its own (`-L`), so other tmux users on the machine are never touched.
        var socket: String { name }

        func start(_ command: String) throws {
            try tmux(["new-session", "-d", "-s", name, "-x", "160", "-y", "40", command], capture: false)
            let deadline = Date().addingTimeInterval(10)
            while Date() < deadline, !(try tmux(["list-sessions", "-F", "#{session_name}"]).contains(name)) {
                Thread.sleep(forTimeInterval: 0.05)
            }
        }

        func type(_ text: String) throws {
            try tmux(["send-keys", "-t", name, "-l", text])
            try tmux(["send-keys", "-t", name, "Enter"])
        }

        func screen() throws -> String { try tmux(["capture-pane", "-p", "-t", name]) }

        /// Waits until the screen contains `text` (or 10 s pass) and returns the screen.
        @discardableResult
        func wait(for text: String) throws -> String {
            let deadline = Date().addingTimeInterval(10)
            var last = ""
            while Date() < deadline {
                last = try screen()
                if last.contains(text) { return last }
                Thread.sleep(forTimeInterval: 0.05)
            }
            Issue.record("timed out waiting for \(text.debugDescription); screen:\n\(last)")
            return last
        }

        /// Ends the pane's processes (they may ignore SIGHUP, inherited from the test runner, and
        /// then kill-server alone would leave the server waiting for them) and the server.
        func stop() {
            let panes = (try? tmux(["list-panes", "-a", "-F", "#{pane_pid}"])) ?? ""
            for pid in panes.split(separator: "\n").compactMap({ Int32($0) }) where pid > 1 { kill(pid, SIGKILL) }
            _ = try? tmux(["kill-server"])
        }

        @discardableResult
        private func tmux(_ arguments: [String], capture: Bool = true) throws -> String {
            let process = Process()
            process.executableURL = URL(fileURLWithPath: "/usr/bin/tmux")
            process.arguments = ["-L", socket, "-f", "/dev/null"] + arguments
            process.standardInput = FileHandle.nullDevice
            process.standardError = FileHandle.nullDevice
            guard capture else {
                // Not waited for: the server this forks inherits Foundation's exit-watching
                // descriptor, so waitUntilExit would wait for the server too. `start` polls instead.
                process.standardOutput = FileHandle.nullDevice
                try process.run()
                return ""
            }
            let output = Pipe()
            process.standardOutput = output
            try process.run()
            let data = output.fileHandleForReading.readDataToEndOfFile()
            process.waitUntilExit()
            return String(decoding: data, as: UTF8.self)
        }
    }

    func command(_ arguments: String, folder: TemporaryFolder) -> String {
        "\(TestPaths.binary.path) \(arguments) --data-dir \(folder.path); echo EXIT=$?; sleep 10"
    }

    @Test(.enabled(if: hasTmux)) func aPINTypedOnATerminalIsNotShown() throws {
        let folder = try TemporaryFolder("pin-tty")
        defer { folder.remove() }
        let session = Session()
        defer { session.stop() }
        try session.start(command("pin set", folder: folder))
        try session.wait(for: "New PIN (4 to 8 digits):")
        try session.type("97531")
        try session.wait(for: "Type the new PIN again:")
        try session.type("97531")
        let screen = try session.wait(for: "EXIT=")
        #expect(screen.contains("The parental PIN is set"))
        #expect(screen.contains("EXIT=0"))
        #expect(!screen.contains("97531"))
        #expect(try StoryStore(dataDirectory: folder.url, pinCost: .testing).isPINSet())
    }

    @Test(.enabled(if: hasTmux)) func theFormOnATerminalAsksFieldByFieldAndExplainsMistakes() throws {
        let folder = try TemporaryFolder("form-tty")
        defer { folder.remove() }
        let session = Session()
        defer { session.stop() }
        try session.start(command("profile add", folder: folder))
        try session.wait(for: "Name, the name shown and spoken to your child (1 to 40 characters, not used by another profile):")
        try session.type("reader")
        try session.wait(for: "Name: a profile named \"Reader\" already exists")
        try session.type("Ada")
        try session.wait(for: "Age, your child's age in years")
        try session.type("6.5")
        try session.wait(for: "Age: \"6.5\" is not a whole number: type a whole number of years from 2 to 12")
        try session.type("8")
        try session.wait(for: "Interests,")
        try session.type("space, robots")
        for label in ["Voice,", "Rate,", "Pitch,", "Volume,", "Text size,", "Reduced motion,", "Theme,", "Hints,", "Step mode,"] {
            try session.wait(for: label)
            try session.type("")
        }
        try session.wait(for: "Save or Cancel?")
        try session.type("save")
        let screen = try session.wait(for: "EXIT=")
        #expect(screen.contains("Added Ada, age 8."))
        let ada = try StoryStore(dataDirectory: folder.url, pinCost: .testing).requireProfile(named: "ada")
        #expect(ada.age == 8)
        #expect(ada.interests == ["space", "robots"])
        #expect(ada.settings == .default)
    }

    @Test(.enabled(if: hasTmux)) func cancellingTheFormWithChangesAsksFirst() throws {
        let folder = try TemporaryFolder("form-tty")
        defer { folder.remove() }
        let session = Session()
        defer { session.stop() }
        try session.start(command("profile edit Reader", folder: folder))
        try session.wait(for: "Name,")
        try session.type("")
        try session.wait(for: "Age,")
        try session.type("9")
        for label in ["Interests,", "Voice,", "Rate,", "Pitch,", "Volume,", "Text size,", "Reduced motion,", "Theme,", "Hints,", "Step mode,"] {
            try session.wait(for: label)
            try session.type("")
        }
        try session.wait(for: "Save or Cancel?")
        try session.type("cancel")
        try session.wait(for: "Discard the changes to this profile?")
        try session.type("yes")
        let screen = try session.wait(for: "EXIT=")
        #expect(screen.contains("Cancelled: Reader was not changed."))
        #expect(try StoryStore(dataDirectory: folder.url, pinCost: .testing).requireProfile(named: "Reader").age == 6)
    }
}
