import StoryKitTestSupport
import Testing

@testable import StoryKit

@Suite struct MotionTests {
    static let page = (1...12).map { "Line \($0) of the new page." }
    static let oldPage = (1...12).map { "Line \($0) of the old page." }
    static let effects: [MotionEffect] = [
        .pageReveal(lines: page), .pageTurn(from: oldPage, to: page),
        .celebration(title: "The Lighthouse Cat"), .loading(label: "Loading stories"),
    ]

    @Test func resolveOnOffAuto() {
        let terminal = ["TERM": "xterm-256color"]
        #expect(MotionPolicy.resolve(.on, environment: terminal, isTTY: true).isReducedMotion)
        #expect(!MotionPolicy.resolve(.off, environment: ["ACCESSIBLE": "1"], isTTY: false).isReducedMotion)
        #expect(!MotionPolicy.resolve(.auto, environment: terminal, isTTY: true).isReducedMotion)
        #expect(MotionPolicy.resolve(.auto, environment: terminal, isTTY: false).isReducedMotion)
        #expect(MotionPolicy.resolve(.auto, environment: ["TERM": "dumb"], isTTY: true).isReducedMotion)
        #expect(MotionPolicy.resolve(.auto, environment: ["TERM": "xterm", "ACCESSIBLE": "1"], isTTY: true).isReducedMotion)
        #expect(!MotionPolicy.resolve(.auto, environment: ["TERM": "xterm", "ACCESSIBLE": ""], isTTY: true).isReducedMotion)
    }

    /// Reduced motion: every effect is exactly one write, the end state, with the same meaning.
    @Test(arguments: effects.indices)
    func reducedMotionWritesOnce(_ index: Int) {
        let effect = Self.effects[index]
        let policy = MotionPolicy(isReducedMotion: true)
        let frames = policy.frames(for: effect, width: 40)
        var writes: [[String]] = []
        var slept = 0
        policy.play(frames, write: { writes.append($0) }, sleep: { slept += $0 })
        #expect(writes.count == 1)
        #expect(slept == 0)
        switch effect {
        case .pageReveal(let lines), .pageTurn(_, let lines): #expect(writes.first == lines)
        case .celebration(let title): #expect(writes.first?.joined().contains("The end") == true && writes.first?.joined().contains(title) == true)
        case .loading(let label): #expect(writes.first == ["\(label)…"])
        }
    }

    /// With motion, each effect animates (more than one write) and ends where reduced motion starts.
    @Test(arguments: effects.indices)
    func motionAnimatesAndEndsTheSame(_ index: Int) {
        let effect = Self.effects[index]
        let moving = MotionPolicy(isReducedMotion: false).frames(for: effect, width: 40)
        let still = MotionPolicy(isReducedMotion: true).frames(for: effect, width: 40)
        var writes = 0
        MotionPolicy(isReducedMotion: false).play(moving, write: { _ in writes += 1 }, sleep: { _ in })
        #expect(writes > 1)
        if case .loading = effect { return }  // the spinner loops until loading ends
        #expect(moving.last?.lines == still.last?.lines)
    }

    @Test func noBlinkingAnywhere() {
        for reduced in [true, false] {
            for effect in Self.effects {
                for frame in MotionPolicy(isReducedMotion: reduced).frames(for: effect, width: 40) {
                    #expect(!frame.lines.contains(where: TerminalText.blinks))
                }
            }
        }
        #expect(TerminalText.blinks("\u{1B}[5mhi"))
        #expect(TerminalText.blinks("\u{1B}[0;1;6mhi"))
        #expect(!TerminalText.blinks("\u{1B}[38;5;5;48;2;5;6;5mhi"))
    }

    @Test func steadyCursor() {
        #expect(MotionPolicy(isReducedMotion: true).cursorStyle == "\u{1B}[2 q")
        #expect(MotionPolicy(isReducedMotion: false).cursorStyle == nil)
    }

    @Test func noRedrawWithoutChange() {
        var writes = 0
        let same = MotionFrame(lines: ["Loading…"], milliseconds: 10)
        MotionPolicy(isReducedMotion: false).play([same, same, same], write: { _ in writes += 1 }, sleep: { _ in })
        #expect(writes == 1)
    }

    /// Progress: with reduced motion a line only at each quarter; otherwise at each whole percent.
    @Test func progressLines() {
        func count(_ policy: MotionPolicy) -> [String] {
            var shown: Int?
            var lines: [String] = []
            for done in 0...1000 {
                if let next = policy.progressLine(label: "Loading", done: done, total: 1000, lastShownPercent: shown) {
                    lines.append(next.line)
                    shown = next.percent
                }
            }
            return lines
        }
        #expect(count(MotionPolicy(isReducedMotion: true)) == ["Loading: 0%", "Loading: 25%", "Loading: 50%", "Loading: 75%", "Loading: 100%"])
        #expect(count(MotionPolicy(isReducedMotion: false)).count == 101)
    }

    // MARK: The live REPL and kiosk

    static let cues: [MotionCue] = [.pageReveal, .pageTurn, .celebration(title: "The Lantern")]

    /// Live frames are whole terminal frames: one (the new screen) with reduced motion; with
    /// motion a few, ending on the new screen, within about 400 ms, never blinking.
    @Test(arguments: cues)
    func liveFramesEndOnTheNewScreenWithinFourHundredMilliseconds(_ cue: MotionCue) {
        let options = RenderOptions(style: .trueColor)
        let still = MotionPolicy(isReducedMotion: true).liveFrames(for: cue, from: Self.oldPage, to: Self.page, options: options, width: 40)
        #expect(still == [MotionFrame(lines: Self.page, milliseconds: 0)])
        let moving = MotionPolicy(isReducedMotion: false).liveFrames(for: cue, from: Self.oldPage, to: Self.page, options: options, width: 40)
        #expect(moving.count > 1)
        #expect(moving.last?.lines == Self.page)
        #expect(moving.map(\.milliseconds).reduce(0, +) <= 400)
        #expect(moving.allSatisfy { $0.lines.count == Self.page.count })
        #expect(!moving.contains { $0.lines.contains(where: TerminalText.blinks) })
    }

    /// The session names the moments: opening the reader, turning a page, finishing.
    @Test func theSessionCuesARevealAPageTurnAndACelebration() throws {
        var session = Session(catalog: SessionFixtures.catalog, snapshot: SessionSnapshot(), profile: nil)
        _ = session.start()
        let opened = session.handle(.command(.read("pip")))
        #expect(opened.contains(.motion(.pageReveal)))
        let turned = session.handle(.key(.pageDown))
        #expect(turned.contains(.motion(.pageTurn)))
        #expect(!session.handle(.key(.right)).contains { if case .motion = $0 { true } else { false } }, "a sentence on the same page does not move")
        let finished = session.handle(.narration(.finished))
        #expect(finished.contains(.motion(.celebration(title: "Pip and the Puddle"))))
        #expect(session.screen.elements.contains { $0.id == "the-end" && $0.value == "you finished Pip and the Puddle" })
    }
}
