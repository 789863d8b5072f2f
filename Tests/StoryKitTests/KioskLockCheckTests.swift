import StoryKit
import Testing

/// `storyreader kiosk --check`: each way out the program cannot block is reported locked only
/// when this machine has closed it, and open with a fix otherwise.
struct KioskLockCheckTests {
    /// The machine docs/kiosk.md describes: everything closed, the kiosk on tty1 from systemd.
    static let lockedMachine = KioskLockCheck.MachineFacts(
        sysrq: "0\n", ctrlAltDelTargetLink: "/dev/null", ctrlAltDelBurstAction: "none", autoVTs: 0, reserveVT: 0,
        terminal: "/dev/tty1", environment: ["TERM": "linux"], ancestors: [("systemd", ["/sbin/init"])])

    /// A fresh Debian 12 desktop, the kiosk started in GNOME Terminal inside tmux.
    static let desktop = KioskLockCheck.MachineFacts(
        sysrq: "438\n", ctrlAltDelTargetLink: nil, ctrlAltDelBurstAction: nil, autoVTs: nil, reserveVT: nil,
        terminal: "/dev/pts/1", environment: ["TMUX": "/tmp/tmux-1000/default,1234,0", "DISPLAY": ":0", "TERM": "tmux-256color"],
        ancestors: [("bash", ["bash"]), ("tmux: server", ["tmux"]), ("bash", ["bash"]), ("gnome-terminal-", ["gnome-terminal-server"])])

    func item(_ items: [KioskLockCheck.Item], _ prefix: String) throws -> KioskLockCheck.Item {
        try #require(items.first { $0.name.hasPrefix(prefix) })
    }

    @Test func theMachineTheGuideDescribesIsLockedEverywhere() {
        let items = KioskLockCheck.check(Self.lockedMachine)
        #expect(items.map(\.name) == ["SysRq key", "Ctrl-Alt-Del", "Switching consoles (Ctrl-Alt-F1…F6)", "tmux or screen", "Terminal emulator shortcuts"])
        for item in items {
            #expect(item.state == .locked, "\(item.name): \(item.finding)")
            #expect(item.fix == nil)
        }
    }

    @Test func aDesktopInTmuxIsOpenEverywhereAndEachHasItsFix() throws {
        let items = KioskLockCheck.check(Self.desktop)
        for item in items {
            #expect(item.state == .open, "\(item.name)")
            #expect(item.fix?.isEmpty == false, "\(item.name) has no fix")
        }
        #expect(try item(items, "SysRq").finding.contains("kernel.sysrq is 438"))
        #expect(try item(items, "SysRq").fix?.contains("kernel.sysrq = 0") == true)
        #expect(try item(items, "Ctrl-Alt-Del").fix?.contains("systemctl mask ctrl-alt-del.target") == true)
        #expect(try item(items, "Switching").fix?.contains("NAutoVTs=0") == true)
        #expect(try item(items, "tmux").finding.contains("inside tmux"))
        #expect(try item(items, "Terminal").finding.contains("on a desktop"))
    }

    @Test func eachLockIsJudgedOnItsOwn() throws {
        var facts = Self.lockedMachine
        facts.sysrq = "1"
        #expect(try item(KioskLockCheck.check(facts), "SysRq").state == .open)

        // Masked, but seven presses in two seconds still restart the machine.
        facts = Self.lockedMachine
        facts.ctrlAltDelBurstAction = nil
        let ctrlAltDel = try item(KioskLockCheck.check(facts), "Ctrl-Alt-Del")
        #expect(ctrlAltDel.state == .open)
        #expect(ctrlAltDel.fix?.contains("CtrlAltDelBurstAction=none") == true)
        #expect(ctrlAltDel.fix?.contains("systemctl mask") == false)

        facts = Self.lockedMachine
        facts.reserveVT = nil
        #expect(try item(KioskLockCheck.check(facts), "Switching").state == .open)

        // screen is found by its variable, tmux also by its process when the variable was cleared.
        facts = Self.lockedMachine
        facts.environment["STY"] = "1234.tty1.host"
        #expect(try item(KioskLockCheck.check(facts), "tmux").finding.contains("inside screen"))
        facts = Self.lockedMachine
        facts.ancestors.insert(("tmux: server", ["tmux"]), at: 0)
        #expect(try item(KioskLockCheck.check(facts), "tmux").state == .open)

        facts = Self.lockedMachine
        facts.terminal = "/dev/pts/0"
        facts.environment["SSH_CONNECTION"] = "10.0.0.2 5000 10.0.0.1 22"
        #expect(try item(KioskLockCheck.check(facts), "Terminal").finding.contains("over ssh"))
    }

    @Test func cageLocksTheEmulatorAndConsolesUnlessStartedWithMinusS() throws {
        var facts = Self.desktop
        facts.environment = ["WAYLAND_DISPLAY": "wayland-0"]
        facts.ancestors = [("foot", ["foot", "storyreader", "kiosk"]), ("cage", ["cage", "--", "foot", "storyreader", "kiosk"])]
        facts.autoVTs = nil
        #expect(try item(KioskLockCheck.check(facts), "Terminal").state == .locked)
        #expect(try item(KioskLockCheck.check(facts), "Switching").state == .locked)
        facts.ancestors[1].commandLine = ["cage", "-s", "--", "foot", "storyreader", "kiosk"]
        #expect(try item(KioskLockCheck.check(facts), "Switching").state == .open)
        // A -s after `--` is the terminal's, not cage's.
        facts.ancestors[1].commandLine = ["cage", "--", "foot", "-s"]
        #expect(try item(KioskLockCheck.check(facts), "Switching").state == .locked)
    }
}
