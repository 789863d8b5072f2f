import Foundation
import StoryKitTestSupport
import Testing

/// `storyreader kiosk --check` on this machine: it needs no PIN and no terminal, prints one line
/// per way out, and its exit status says whether all are locked.
struct KioskCheckCommandTests {
    @Test func reportsEveryWayOutAndTmuxWhenInsideIt() throws {
        let result = try StoryReaderProcess.run(["kiosk", "--check"], environment: ["TMUX": "/tmp/tmux-0/default,1,0"])
        #expect(result.standardError == "")
        let lines = result.standardOutput.split(separator: "\n").map(String.init)
        for name in ["SysRq key", "Ctrl-Alt-Del", "Switching consoles", "tmux or screen", "Terminal emulator shortcuts"] {
            #expect(lines.contains { ($0.hasPrefix("locked  ") || $0.hasPrefix("OPEN    ")) && $0.dropFirst(8).hasPrefix(name) }, "no line for \(name)")
        }
        #expect(lines.contains { $0.hasPrefix("OPEN    tmux or screen: running inside tmux") })
        // Something is open (tmux at least), so the status says so, and every open line has its fix.
        #expect(result.status == 1)
        #expect(lines.filter { $0.hasPrefix("OPEN") }.count == lines.filter { $0.hasPrefix("        fix: ") }.count)
        #expect(lines.last?.hasSuffix(" of 5 locked.") == true)
    }
}
