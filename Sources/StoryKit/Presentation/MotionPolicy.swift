/// One picture of an animation: the lines to draw, and how long to show them.
public struct MotionFrame: Sendable, Hashable {
    public var lines: [String]
    /// How long this frame stays before the next one (0 for the last).
    public var milliseconds: Int

    public init(lines: [String], milliseconds: Int) {
        self.lines = lines
        self.milliseconds = milliseconds
    }
}

/// The moments that move when motion is allowed.
public enum MotionEffect: Sendable, Hashable {
    /// A new page appears: its lines revealed a few at a time.
    case pageReveal(lines: [String])
    /// Turning from one page to the next (the new page's lines say which page it is).
    case pageTurn(from: [String], to: [String])
    /// A story was finished.
    case celebration(title: String)
    /// Something is loading; `tick` counts redraws (the shell advances it on a timer).
    case loading(label: String)
}

/// Reduced motion: resolved from the preference and the environment, and what it allows.
///
/// With reduced motion, every effect is **one** static frame carrying the same meaning (the new
/// page, "Page 3 of 7", "★ The end", "Loading stories…"); no effect ever uses blinking (SGR 5/6);
/// the cursor is steady; and nothing is redrawn unless its content changed.
public struct MotionPolicy: Sendable, Hashable {
    public var isReducedMotion: Bool

    public init(isReducedMotion: Bool) {
        self.isReducedMotion = isReducedMotion
    }

    /// `on` and `off` are what they say; `auto` is on without a terminal, with `TERM=dumb`, or
    /// when `ACCESSIBLE` is set (to anything but empty).
    public static func resolve(_ preference: MotionPreference, environment: [String: String], isTTY: Bool) -> MotionPolicy {
        switch preference {
        case .on: return MotionPolicy(isReducedMotion: true)
        case .off: return MotionPolicy(isReducedMotion: false)
        case .auto:
            let accessible = environment["ACCESSIBLE"].map { !$0.isEmpty } ?? false
            return MotionPolicy(isReducedMotion: !isTTY || environment["TERM"] == "dumb" || accessible)
        }
    }

    /// What the settings screen and `preview` say.
    public var summary: String { isReducedMotion ? "reduced motion: on (no animation)" : "reduced motion: off" }

    /// DECSCUSR: a steady block cursor with reduced motion; nil leaves the user's cursor alone.
    public var cursorStyle: String? { isReducedMotion ? "\u{1B}[2 q" : nil }

    /// The frames of an effect. With reduced motion exactly one, the end state.
    public func frames(for effect: MotionEffect, width: Int) -> [MotionFrame] {
        switch effect {
        case .pageReveal(let lines):
            if isReducedMotion || lines.isEmpty { return [MotionFrame(lines: lines, milliseconds: 0)] }
            // Gentle: a few lines at a time, never character by character.
            let step = max(1, lines.count / 4)
            var frames: [MotionFrame] = []
            var shown = step
            while shown < lines.count {
                frames.append(MotionFrame(lines: Array(lines[0..<shown]) + Array(repeating: "", count: lines.count - shown), milliseconds: 60))
                shown += step
            }
            frames.append(MotionFrame(lines: lines, milliseconds: 0))
            return frames
        case .pageTurn(let from, let to):
            if isReducedMotion { return [MotionFrame(lines: to, milliseconds: 0)] }
            // A wipe from the top: the new page's lines replace the old page's, a few at a time.
            let rows = max(from.count, to.count)
            let step = max(1, rows / 4)
            var frames: [MotionFrame] = []
            for shown in stride(from: step, to: rows, by: step) {
                let lines = (0..<rows).map { row in
                    row < shown ? (row < to.count ? to[row] : "") : (row < from.count ? from[row] : "")
                }
                frames.append(MotionFrame(lines: lines, milliseconds: 50))
            }
            frames.append(MotionFrame(lines: to, milliseconds: 0))
            return frames
        case .celebration(let title):
            let message = "★ The end! You finished “\(title)”."
            if isReducedMotion { return [MotionFrame(lines: [message], milliseconds: 0)] }
            let sparkles = ["·", "✦", "★", "✦", "·"]
            var frames: [MotionFrame] = []
            for step in 0..<sparkles.count {
                let sparkle = sparkles[step]
                let pad = String(repeating: " ", count: step)
                // 5 × 70 ms: the whole effect stays under 400 ms.
                frames.append(MotionFrame(lines: ["\(pad)\(sparkle)  \(sparkle)  \(sparkle)", message], milliseconds: 70))
            }
            frames.append(MotionFrame(lines: [message], milliseconds: 0))
            return frames
        case .loading(let label):
            let still = "\(label)…"
            if isReducedMotion { return [MotionFrame(lines: [still], milliseconds: 0)] }
            return ["⠋", "⠙", "⠹", "⠸", "⠼", "⠴", "⠦", "⠧", "⠇", "⠏"].map {
                MotionFrame(lines: ["\($0) \(label)…"], milliseconds: 80)
            }
        }
    }

    /// Plays frames: writes each one and waits its time. With reduced motion the shell calls this
    /// with one frame, so there is one write. `write` and `sleep` are the shell's (tests count them).
    public func play(_ frames: [MotionFrame], write: ([String]) -> Void, sleep: (Int) -> Void) {
        var previous: [String]?
        for frame in frames {
            // Never redraw what did not change.
            if frame.lines != previous { write(frame.lines) }
            previous = frame.lines
            if frame.milliseconds > 0 { sleep(frame.milliseconds) }
        }
    }

    /// A progress line for long work: with reduced motion only when the shown percentage moves by a
    /// quarter, otherwise whenever the whole percentage changes; nil means "draw nothing now".
    public func progressLine(label: String, done: Int, total: Int, lastShownPercent: Int?) -> (line: String, percent: Int)? {
        let percent = total <= 0 ? 100 : min(100, done * 100 / total)
        let step = isReducedMotion ? 25 : 1
        if let lastShownPercent, percent / step == lastShownPercent / step, percent != 100 || lastShownPercent == 100 { return nil }
        return ("\(label): \(percent)%", percent)
    }
}
