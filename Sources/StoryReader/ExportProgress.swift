import Foundation
import StoryKit
import Synchronization

/// The progress line of an export, for a person at a terminal: nothing for the first two
/// seconds (a short export needs none), then "Exporting The Cat…: 42 % (1,700 of 4,043 words),
/// about 1 s left", redrawn at most five times a second. Nothing in a pipe or with --quiet.
final class ExportProgress: Sendable {
    private struct State {
        var title = ""
        var done = 0
        var drawn = -TimeInterval.infinity
        var shown = false
    }
    private let state = Mutex(State())
    private let total: Int
    private let clock: any MonotonicClock
    private let started: TimeInterval
    private let enabled: Bool

    init(totalWords: Int, enabled: Bool, clock: any MonotonicClock = SystemMonotonicClock()) {
        total = max(1, totalWords)
        self.enabled = enabled
        self.clock = clock
        started = clock.now()
    }

    func begin(_ title: String) { state.withLock { $0.title = title } }

    /// One more word made.
    func word() {
        guard enabled else { return }
        let line: String? = state.withLock { state in
            state.done += 1
            let now = clock.now()
            let elapsed = now - started
            guard elapsed >= 2, now - state.drawn >= 0.2 else { return nil }
            state.drawn = now
            state.shown = true
            let left = elapsed / Double(state.done) * Double(max(0, total - state.done))
            return
                "Exporting \(state.title): \(state.done * 100 / total) % (\(Self.grouped(state.done)) of \(Self.grouped(total)) words), about \(Self.seconds(left)) left"
        }
        if let line { StatusLine.show(line) }
    }

    /// Clears the line (before the summary or an error).
    func finish() {
        let shown = state.withLock { state in
            defer { state.shown = false }
            return state.shown
        }
        if shown { StatusLine.show("") }
    }

    static func grouped(_ number: Int) -> String {
        let digits = String(number)
        var out = ""
        for (index, digit) in digits.enumerated() {
            if index > 0, (digits.count - index) % 3 == 0 { out.append(",") }
            out.append(digit)
        }
        return out
    }

    static func seconds(_ value: Double) -> String {
        let whole = max(1, Int(value.rounded()))
        return whole >= 60 ? "\(whole / 60) min \(whole % 60) s" : "\(whole) s"
    }
}
