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

    /// A finding or a fix: a message of the catalogs with its values (a command or a file name is a
    /// value, never translated), said in the language of whoever runs the check.
    public typealias Text = CatalogText

    public struct Item: Sendable, Equatable {
        /// The way out, as docs/kiosk.md names it.
        public var title: Text
        public var state: State
        /// What was found on this machine.
        public var found: Text
        /// What to do (only when open).
        public var remedy: Text?

        init(name: Text, state: State, finding: Text, fix: Text? = nil) {
            self.title = name
            self.state = state
            self.found = finding
            self.remedy = fix
        }

        /// In English, as docs/kiosk.md words them.
        public var name: String { title.localized(.english) }
        public var finding: String { found.localized(.english) }
        public var fix: String? { remedy?.localized(.english) }
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

        public init(
            sysrq: String?, ctrlAltDelTargetLink: String?, ctrlAltDelBurstAction: String?, autoVTs: Int?, reserveVT: Int?,
            terminal: String?, environment: [String: String], ancestors: [(name: String, commandLine: [String])]
        ) {
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
        let name = Text(N_("SysRq key"))
        let value = facts.sysrq?.trimmingCharacters(in: .whitespacesAndNewlines)
        if value == "0" { return Item(name: name, state: .locked, finding: Text(N_("kernel.sysrq is 0: Alt+SysRq does nothing."))) }
        return Item(
            name: name, state: .open,
            finding: value.map { Text(N_("kernel.sysrq is {value}: Alt+SysRq combinations can restart the machine or end the kiosk."), ["value": $0]) }
                ?? Text(N_("/proc/sys/kernel/sysrq could not be read, so SysRq may be on.")),
            fix: .verbatim("echo 'kernel.sysrq = 0' | sudo tee /etc/sysctl.d/90-storyreader-kiosk.conf && sudo sysctl --system"))
    }

    static func ctrlAltDel(_ facts: MachineFacts) -> Item {
        let name = Text(N_("Ctrl-Alt-Del"))
        let masked = facts.ctrlAltDelTargetLink == "/dev/null"
        let burstOff = facts.ctrlAltDelBurstAction?.lowercased() == "none"
        if masked && burstOff {
            return Item(name: name, state: .locked, finding: Text(N_("ctrl-alt-del.target is masked and CtrlAltDelBurstAction=none.")))
        }
        let mask = "sudo systemctl mask ctrl-alt-del.target"
        let burst =
            "sudo mkdir -p /etc/systemd/system.conf.d && printf '[Manager]\\nCtrlAltDelBurstAction=none\\n' | sudo tee /etc/systemd/system.conf.d/90-storyreader-kiosk.conf"
        let fix: Text =
            !masked && !burstOff
            ? Text(N_("{first}; then {second}"), ["first": mask, "second": burst])
            : .verbatim(masked ? burst : mask)
        return Item(
            name: name, state: .open,
            finding: masked
                ? Text(N_("ctrl-alt-del.target is masked, but pressed 7 times in 2 seconds the keys still restart the machine."))
                : Text(N_("ctrl-alt-del.target is not masked: the keys restart the machine.")),
            fix: fix)
    }

    static func vtSwitching(_ facts: MachineFacts) -> Item {
        let name = Text(N_("Switching consoles (Ctrl-Alt-F1…F6)"))
        let cage = facts.underCage
        if cage.found {
            return cage.allowsVTSwitching
                ? Item(
                    name: name, state: .open, finding: Text(N_("cage was started with -s, which allows switching consoles.")),
                    fix: Text(N_("start cage without -s")))
                : Item(name: name, state: .locked, finding: Text(N_("cage does not allow switching consoles.")))
        }
        if facts.autoVTs == 0 && facts.reserveVT == 0 {
            return Item(
                name: name, state: .locked,
                finding: Text(N_("no other console has a login prompt (logind NAutoVTs=0, ReserveVT=0): switching shows an empty screen.")))
        }
        return Item(
            name: name, state: .open,
            finding: Text(
                N_("logind puts login prompts on other consoles (NAutoVTs={autoVTs}, ReserveVT={reserveVT}): Ctrl-Alt-F2 reaches one."),
                ["autoVTs": String(facts.autoVTs ?? 6), "reserveVT": String(facts.reserveVT ?? 6)]),
            fix: Text(
                N_("{command}, then restart the machine"),
                [
                    "command":
                        "sudo mkdir -p /etc/systemd/logind.conf.d && printf '[Login]\\nNAutoVTs=0\\nReserveVT=0\\n' | sudo tee /etc/systemd/logind.conf.d/90-storyreader-kiosk.conf"
                ]))
    }

    static func multiplexer(_ facts: MachineFacts) -> Item {
        let name = Text(N_("tmux or screen"))
        let byVariable = facts.environment["TMUX"].map { _ in "tmux" } ?? facts.environment["STY"].map { _ in "screen" }
        let byParent = facts.ancestors.first { multiplexers.contains($0.name) }?.name
        if let found = byVariable ?? byParent {
            return Item(
                name: name, state: .open,
                finding: Text(N_("running inside {program}: its prefix key (Ctrl-B or Ctrl-A) opens windows with a shell."), ["program": found]),
                fix: Text(
                    N_("start the kiosk outside {program}: the systemd unit storyreader-kiosk.service runs it straight on tty1"),
                    ["program": found]))
        }
        return Item(name: name, state: .locked, finding: Text(N_("not inside tmux or screen.")))
    }

    static func terminalEmulator(_ facts: MachineFacts) -> Item {
        let name = Text(N_("Terminal emulator shortcuts"))
        if facts.onLinuxConsole {
            return Item(
                name: name, state: .locked,
                finding: Text(N_("on the Linux console ({terminal}): no emulator, no desktop."), ["terminal": facts.terminal ?? ""]))
        }
        if facts.underCage.found {
            return Item(name: name, state: .locked, finding: Text(N_("under cage, which shows only this terminal, with no desktop.")))
        }
        let fix = Text(
            N_("run the kiosk on the Linux console with the systemd unit storyreader-kiosk.service (docs/kiosk.md), or under cage ({command})"),
            ["command": "cage -- foot storyreader kiosk"])
        if facts.ancestors.contains(where: { $0.name == "sshd" }) || facts.environment["SSH_CONNECTION"] != nil {
            return Item(name: name, state: .open, finding: Text(N_("over ssh: whoever holds the other end can leave.")), fix: fix)
        }
        guard let terminal = facts.terminal else {
            return Item(
                name: name, state: .open,
                finding: Text(N_("standard input is not a terminal, so where the kiosk would show cannot be told.")),
                fix: Text(N_("run '{command}' on the kiosk's own screen"), ["command": "storyreader kiosk --check"]))
        }
        let emulator = facts.environment["TERM_PROGRAM"] ?? facts.ancestors.first { knownEmulators.contains($0.name) }?.name
        let desktop = facts.environment["WAYLAND_DISPLAY"] != nil || facts.environment["DISPLAY"] != nil
        let finding: Text =
            switch (emulator, desktop) {
            case (let emulator?, true):
                Text(N_("in {emulator} on a desktop: its shortcuts (new tab, close window, menus) and the desktop are reachable."), ["emulator": emulator])
            case (let emulator?, false): Text(N_("in {emulator}: its shortcuts are reachable."), ["emulator": emulator])
            case (nil, true):
                Text(
                    N_("in a terminal emulator ({terminal}) on a desktop: its shortcuts (new tab, close window, menus) and the desktop are reachable."),
                    ["terminal": terminal])
            case (nil, false): Text(N_("in a terminal emulator ({terminal}): its shortcuts are reachable."), ["terminal": terminal])
            }
        return Item(name: name, state: .open, finding: finding, fix: fix)
    }

    static let knownEmulators = [
        "xterm", "gnome-terminal-", "gnome-terminal-server", "konsole", "kitty", "alacritty", "foot",
        "xfce4-terminal", "lxterminal", "mate-terminal", "terminator", "tilix", "urxvt", "rxvt", "st", "wezterm-gui",
    ]
}
