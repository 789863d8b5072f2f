/// Moments in the live REPL and kiosk that may move. The Session names them (as effects, data
/// like the rest); the shell draws them with `MotionPolicy.liveFrames`, the same frames `preview`
/// plays, or one still frame with reduced motion.
public enum MotionCue: Sendable, Hashable {
    /// The reader opened on a story: its page appears a few lines at a time.
    case pageReveal
    /// The reader moved to another page.
    case pageTurn
    /// A story was finished.
    case celebration(title: String)
}

extension MotionPolicy {
    /// Whole terminal frames from the screen drawn (`from`) to the new one (`to`), both of them
    /// encoded lines of the same height. The last frame is always `to`, and with reduced motion it
    /// is the only one. Frames never blink (no SGR 5/6) and last about 400 ms at most in all.
    public func liveFrames(for cue: MotionCue, from: [String], to: [String], options: RenderOptions, width: Int) -> [MotionFrame] {
        if isReducedMotion || from.count != to.count || to.isEmpty { return [MotionFrame(lines: to, milliseconds: 0)] }
        switch cue {
        case .pageReveal:
            return frames(for: .pageReveal(lines: to), width: width)
        case .pageTurn:
            return frames(for: .pageTurn(from: from, to: to), width: width)
        case .celebration(let title):
            // Sparkles over the row under the screen's title; the message itself is on the screen.
            let builder = Builder(options: options, width: width, focus: nil)
            let row = min(1, to.count - 1)
            return frames(for: .celebration(title: title), width: width).map { frame in
                guard frame.milliseconds > 0, let sparkles = frame.lines.first else { return MotionFrame(lines: to, milliseconds: 0) }
                var lines = to
                lines[row] = builder.encodeLine("  " + sparkles, role: .focus)
                return MotionFrame(lines: lines, milliseconds: frame.milliseconds)
            }
        }
    }
}
