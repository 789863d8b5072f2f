public import Foundation
import Synchronization

/// What the operator chose on the command line.
public struct KioskOptions: Sendable, Hashable {
    /// Seconds without a key before the reader resets to the library; nil or 0: never.
    public var idleTimeout: TimeInterval?
    /// Seconds of use allowed; nil: no limit.
    public var timeLimit: TimeInterval?
    /// What "add time" in the parent menu adds.
    public var addedTime: TimeInterval
    /// How long reading may go on after the time is up, to end its sentence, before it is cut.
    public var sentenceGrace: TimeInterval

    public init(
        idleTimeout: TimeInterval? = 300, timeLimit: TimeInterval? = nil, addedTime: TimeInterval = 600,
        sentenceGrace: TimeInterval = 20
    ) {
        self.idleTimeout = idleTimeout.flatMap { $0 > 0 ? $0 : nil }
        self.timeLimit = timeLimit.flatMap { $0 > 0 ? $0 : nil }
        self.addedTime = addedTime
        self.sentenceGrace = sentenceGrace
    }

    /// Spoken warnings before the time is up, in seconds left: 5 minutes and 1 minute, and for a
    /// limit under 5 minutes 1 minute and 30 seconds (a 1-minute limit still gets one).
    public static func warnings(forLimit limit: TimeInterval) -> [TimeInterval] {
        (limit > 300 ? [300, 60] : [60, 30]).filter { $0 < limit }
    }
}

/// The kiosk's running state: its clock reading, limits, and the log for parents.
public struct KioskState: Sendable, Hashable {
    public var options: KioskOptions
    /// The latest tick.
    public var now: TimeInterval
    /// The last key or command (narration being heard counts too).
    public var lastActivity: TimeInterval
    /// When the time limit ends (nil: no limit).
    public var endsAt: TimeInterval?
    /// How long the current limit was when it started (warnings longer than it are not said).
    public var limitLength: TimeInterval?
    /// Warnings already said (seconds left).
    public var warned: Set<Int> = []
    public var isTimeUp = false
    /// The time is up while a sentence is being read: it ends first (since when).
    public var timeUpPendingSince: TimeInterval?
    /// The speed the parent set: the child may move it ±20 %.
    public var baseRate: Int
    /// The recording tempo the parent set: the child may move it ±20 % too.
    public var baseTempo: Double = 1
    /// The right PIN was typed: the parent menu and the profiles screen are open.
    public var parentUnlocked = false
    /// The parent chose "leave the kiosk".
    public var leaving = false
    /// It ended from the parent menu (not a signal or closed input).
    public var leftWithPIN = false
    /// While the store's PIN lockout lasts (monotonic seconds).
    public var pinLockedUntil: TimeInterval?

    // The log for parents.
    public var blockedKeys = 0
    /// Stories opened for reading, in order, each once.
    public var storiesRead: [String] = []
    /// Profiles used, in order (more than one when the parent switched).
    public var profilesUsed: [String] = []

    public init(options: KioskOptions, now: TimeInterval, baseRate: Int, profile: String?) {
        self.options = options
        self.now = now
        lastActivity = now
        endsAt = options.timeLimit.map { now + $0 }
        limitLength = options.timeLimit
        self.baseRate = baseRate
        profilesUsed = [profile ?? ChildProfile.guest.name]
    }

    /// Seconds left before the time is up (nil: no limit).
    public var remaining: TimeInterval? { endsAt.map { max(0, $0 - now) } }

    /// The speeds a child may choose: the parent's speed ±20 %.
    public var rateRange: ClosedRange<Int> {
        let low = max(SpeechSettings.rateRange.lowerBound, Int((Double(baseRate) * 0.8).rounded(.up)))
        let high = min(SpeechSettings.rateRange.upperBound, Int((Double(baseRate) * 1.2).rounded(.down)))
        return low...max(low, high)
    }

    /// The recording tempos a child may choose: the parent's tempo ±20 %, in hundredths.
    public var tempoRange: ClosedRange<Double> {
        let low = max(RecordingTempo.range.lowerBound, (baseTempo * 80).rounded(.up) / 100)
        let high = min(RecordingTempo.range.upperBound, (baseTempo * 120).rounded(.down) / 100)
        return low...max(low, high)
    }
}

extension SettingName {
    /// What a child may change in a locked session.
    /// Reading comfort (text size, motion, theme, the reading aids) and the speed within limits.
    public static let childSettings: Set<SettingName> = [.textSize, .motion, .theme, .rate, .lineFocus, .syllables, .spacing, .recordingTempo]
}

extension SessionOptions {
    /// The kiosk's allowlist: the child's commands, plus the child's settings screen and `set`
    /// (which refuses every setting but text size, reduced motion, theme, the reading aids and speed).
    public static let kioskCommands: Set<String> = childCommands.union(["settings", "set"])
}

extension Key {
    /// The parent key: F12 (`CSI 24~`, with or without modifiers), or Ctrl-] (byte 0x1D) where
    /// there is no F12.
    public var isParentKey: Bool {
        switch self {
        case .unknown(let name): name == "29" || name == "CSI 24~" || (name.hasPrefix("CSI 24;") && name.hasSuffix("~"))
        case .control("]"): true
        default: false
        }
    }

    /// Keys that do nothing in a kiosk and are counted for the log: control keys (Ctrl-C, Ctrl-Z,
    /// Ctrl-\, Ctrl-D, Ctrl-S, Ctrl-Q …, all but Ctrl-W, "where am I") and escape sequences the
    /// reader does not know (function keys, Alt combinations it cannot read).
    public var isBlockedInKiosk: Bool {
        switch self {
        case .control(let character): character != "w"
        case .unknown: !isParentKey
        default: false
        }
    }
}
