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

    /// For a librarian whose `LANG` is French: each way out, what was found and the fix in French;
    /// the commands to type stay as they are typed.
    @Test func reportsInTheParentsLanguage() throws {
        let result = try StoryReaderProcess.run(
            ["kiosk", "--check"],
            environment: ["TMUX": "/tmp/tmux-0/default,1,0", "LANG": "fr_FR.UTF-8", "SSH_CONNECTION": "10.0.0.2 5 10.0.0.1 22"])
        #expect(result.standardError == "")
        let lines = result.standardOutput.split(separator: "\n").map(String.init)
        #expect(lines.first == "Ce que cette machine verrouille pour la borne (docs/kiosk.md explique chaque point) :")
        #expect(
            lines.contains("OUVERT      tmux ou screen : lancé dans tmux : sa touche préfixe (Ctrl-B ou Ctrl-A) ouvre des fenêtres avec un shell."),
            "\(lines)")
        #expect(lines.contains("            solution : lance la borne hors de tmux : l'unité systemd storyreader-kiosk.service la lance directement sur tty1"))
        #expect(lines.contains("OUVERT      Raccourcis de l'émulateur de terminal : par ssh : qui tient l'autre bout peut sortir."))
        for name in ["Touche SysRq", "Ctrl-Alt-Suppr", "Changer de console"] {
            #expect(
                lines.contains { ($0.hasPrefix("verrouillé  ") || $0.hasPrefix("OUVERT      ")) && $0.dropFirst(12).hasPrefix(name) },
                "no line for \(name)")
        }
        for english in ["running inside", "start the kiosk", "Terminal emulator", "whoever holds", "locked  ", "fix: "] {
            #expect(!result.standardOutput.contains(english), "English left: \(english)")
        }
    }
}
