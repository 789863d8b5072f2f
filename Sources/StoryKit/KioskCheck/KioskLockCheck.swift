import Foundation

/// What `storyreader kiosk --check` reports: for each way out of the kiosk that the program
/// itself cannot block (docs/kiosk.md, "What the program cannot block"), whether this machine has
/// closed it, and the fix when it has not.
///
/// The rules are a pure function of `MachineFacts`, so each is tested with made-up machines; the
/// executable reads the real facts (from /proc, /etc and the environment).
public enum KioskLockCheck {
    public enum State: String, Sendable, Equatable {
        case locked, open
    }

    public struct Item: Sendable, Equatable {
        /// The way out, as docs/kiosk.md names it.
        public var name: String
        public var state: State
        /// What was found on this machine.
        public var finding: String
        /// What to do (only when open).
        public var fix: String?
    }

    /// What the check reads from the machine.
    public struct MachineFacts: Sendable, Equatable {
        /// `/proc/sys/kernel/sysrq` (nil: not readable).
        public var sysrq: String?
        /// Where `/etc/systemd/system/ctrl-alt-del.target` links to (`/dev/null` when masked).
        public var ctrlAltDelTargetLink: String?
        /// `CtrlAltDelBurstAction=` from /etc/systemd/system.conf and its drop-ins (nil: the default, reboot-force).
        public var ctrlAltDelBurstAction: String?
        /// `NAutoVTs=` and `ReserveVT=` from /etc/systemd/logind.conf and its drop-ins (nil: the defaults, 6 and 6).
        public var autoVTs: Int?
        public var reserveVT: Int?
        /// The terminal on standard input: `/dev/tty1`, `/dev/pts/3`, or nil.
        public var terminal: String?
        /// The environment variables that tell where the program runs.
        public var environment: [String: String]
        /// The names of the parent processes, nearest first (`bash`, `xterm`, `cage`, `systemd`),
        /// with their command lines.
        public var ancestors: [(name: String, commandLine: [String])]

        public init(sysrq: String?, ctrlAltDelTargetLink: String?, ctrlAltDelBurstAction: String?, autoVTs: Int?, reserveVT: Int?,
                    terminal: String?, environment: [String: String], ancestors: [(name: String, commandLine: [String])]) {
            self.sysrq = sysrq
            self.ctrlAltDelTargetLink = ctrlAltDelTargetLink
            self.ctrlAltDelBurstAction = ctrlAltDelBurstAction
            self.autoVTs = autoVTs
            self.reserveVT = reserveVT
            self.terminal = terminal
            self.environment = environment
            self.ancestors = ancestors
        }

        public static func == (lhs: MachineFacts, rhs: MachineFacts) -> Bool {
            lhs.sysrq == rhs.sysrq && lhs.ctrlAltDelTargetLink == rhs.ctrlAltDelTargetLink
                && lhs.ctrlAltDelBurstAction == rhs.ctrlAltDelBurstAction && lhs.autoVTs == rhs.autoVTs
                && lhs.reserveVT == rhs.reserveVT && lhs.terminal == rhs.terminal && lhs.environment == rhs.environment
                && lhs.ancestors.map(\.name) == rhs.ancestors.map(\.name) && lhs.ancestors.map(\.commandLine) == rhs.ancestors.map(\.commandLine)
        }

        /// `cage` among the parents, started without `-s` (which would allow VT switching).
        var underCage: (found: Bool, allowsVTSwitching: Bool) {
            guard let cage = ancestors.first(where: { $0.name == "cage" }) else { return (false, false) }
            return (true, cage.commandLine.prefix { $0 != "--" }.contains("-s"))
        }

        /// A Linux virtual console (`/dev/tty1` … `/dev/tty63`).
        var onLinuxConsole: Bool {
            guard let terminal, terminal.hasPrefix("/dev/tty") else { return false }
            let number = terminal.dropFirst("/dev/tty".count)
            return !number.isEmpty && number.allSatisfy(\.isNumber)
        }
    }

    /// Terminal multiplexers, whose prefix key opens windows and shells.
    static let multiplexers = ["tmux", "screen", "tmux: server", "zellij", "byobu"]

    public static func check(_ facts: MachineFacts) -> [Item] {
        [sysrq(facts), ctrlAltDel(facts), vtSwitching(facts), multiplexer(facts), terminalEmulator(facts)]
    }

    static func sysrq(_ facts: MachineFacts) -> Item {
        let name = "SysRq key"
        let value = facts.sysrq?.trimmingCharacters(in: .whitespacesAndNewlines)
        if value == "0" { return Item(name: name, state: .locked, finding: "kernel.sysrq is 0: Alt+SysRq does nothing.") }
        return Item(name: name, state: .open,
                    finding: value.map { "kernel.sysrq is \($0): Alt+SysRq combinations can restart the machine or end the kiosk." }
                        ?? "/proc/sys/kernel/sysrq could not be read, so SysRq may be on.",
                    fix: "echo 'kernel.sysrq = 0' | sudo tee /etc/sysctl.d/90-storyreader-kiosk.conf && sudo sysctl --system")
    }

    static func ctrlAltDel(_ facts: MachineFacts) -> Item {
        let name = "Ctrl-Alt-Del"
        let masked = facts.ctrlAltDelTargetLink == "/dev/null"
        let burstOff = facts.ctrlAltDelBurstAction?.lowercased() == "none"
        if masked && burstOff {
            return Item(name: name, state: .locked, finding: "ctrl-alt-del.target is masked and CtrlAltDelBurstAction=none.")
        }
        var fixes: [String] = []
        if !masked { fixes.append("sudo systemctl mask ctrl-alt-del.target") }
        if !burstOff {
            fixes.append("sudo mkdir -p /etc/systemd/system.conf.d && printf '[Manager]\\nCtrlAltDelBurstAction=none\\n' | sudo tee /etc/systemd/system.conf.d/90-storyreader-kiosk.conf")
        }
        return Item(name: name, state: .open,
                    finding: masked ? "ctrl-alt-del.target is masked, but pressed 7 times in 2 seconds the keys still restart the machine."
                        : "ctrl-alt-del.target is not masked: the keys restart the machine.",
                    fix: fixes.joined(separator: "; then "))
    }

    static func vtSwitching(_ facts: MachineFacts) -> Item {
        let name = "Switching consoles (Ctrl-Alt-F1…F6)"
        let cage = facts.underCage
        if cage.found {
            return cage.allowsVTSwitching
                ? Item(name: name, state: .open, finding: "cage was started with -s, which allows switching consoles.",
                       fix: "start cage without -s")
                : Item(name: name, state: .locked, finding: "cage does not allow switching consoles.")
        }
        if facts.autoVTs == 0 && facts.reserveVT == 0 {
            return Item(name: name, state: .locked,
                        finding: "no other console has a login prompt (logind NAutoVTs=0, ReserveVT=0): switching shows an empty screen.")
        }
        return Item(name: name, state: .open,
                    finding: "logind puts login prompts on other consoles (NAutoVTs=\(facts.autoVTs ?? 6), ReserveVT=\(facts.reserveVT ?? 6)): Ctrl-Alt-F2 reaches one.",
                    fix: "sudo mkdir -p /etc/systemd/logind.conf.d && printf '[Login]\\nNAutoVTs=0\\nReserveVT=0\\n' | sudo tee /etc/systemd/logind.conf.d/90-storyreader-kiosk.conf, then restart the machine")
    }

    static func multiplexer(_ facts: MachineFacts) -> Item {
        let name = "tmux or screen"
        let byVariable = facts.environment["TMUX"].map { _ in "tmux" } ?? facts.environment["STY"].map { _ in "screen" }
        let byParent = facts.ancestors.first { multiplexers.contains($0.name) }?.name
        if let found = byVariable ?? byParent {
            return Item(name: name, state: .open,
                        finding: "running inside \(found): its prefix key (Ctrl-B or Ctrl-A) opens windows with a shell.",
                        fix: "start the kiosk outside \(found): the systemd unit storyreader-kiosk.service runs it straight on tty1")
        }
        return Item(name: name, state: .locked, finding: "not inside tmux or screen.")
    }

    static func terminalEmulator(_ facts: MachineFacts) -> Item {
        let name = "Terminal emulator shortcuts"
        if facts.onLinuxConsole {
            return Item(name: name, state: .locked, finding: "on the Linux console (\(facts.terminal ?? "")): no emulator, no desktop.")
        }
        if facts.underCage.found {
            return Item(name: name, state: .locked, finding: "under cage, which shows only this terminal, with no desktop.")
        }
        let fix = "run the kiosk on the Linux console with the systemd unit storyreader-kiosk.service (docs/kiosk.md), or under cage (cage -- foot storyreader kiosk)"
        if facts.ancestors.contains(where: { $0.name == "sshd" }) || facts.environment["SSH_CONNECTION"] != nil {
            return Item(name: name, state: .open, finding: "over ssh: whoever holds the other end can leave.", fix: fix)
        }
        guard let terminal = facts.terminal else {
            return Item(name: name, state: .open,
                        finding: "standard input is not a terminal, so where the kiosk would show cannot be told.",
                        fix: "run 'storyreader kiosk --check' on the kiosk's own screen")
        }
        let emulator = facts.environment["TERM_PROGRAM"] ?? facts.ancestors.first { knownEmulators.contains($0.name) }?.name
        let desktop = facts.environment["WAYLAND_DISPLAY"] != nil || facts.environment["DISPLAY"] != nil
        return Item(name: name, state: .open,
                    finding: (emulator.map { "in \($0)" } ?? "in a terminal emulator (\(terminal))")
                        + (desktop ? " on a desktop: its shortcuts (new tab, close window, menus) and the desktop are reachable." : ": its shortcuts are reachable."),
                    fix: fix)
    }

    static let knownEmulators = ["xterm", "gnome-terminal-", "gnome-terminal-server", "konsole", "kitty", "alacritty", "foot",
                                 "xfce4-terminal", "lxterminal", "mate-terminal", "terminator", "tilix", "urxvt", "rxvt", "st", "wezterm-gui"]
}

