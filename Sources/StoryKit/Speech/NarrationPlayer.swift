import Foundation
import Synchronization

/// Reads a `Narration` aloud into a `PCMSink` and takes controls while it does: pause and resume in
/// place, stop, next/previous sentence and paragraph, faster/slower from the next sentence, and a
/// step mode that reads one sentence and waits.
///
/// It needs no terminal: the terminal (or a test) sends `Command`s and listens to `Event`s, which
/// are delivered when they are *heard*, i.e. when the sink's playback clock reaches them. Events
/// are delivered one at a time, in order, on the player's threads.
public final class NarrationPlayer: Sendable {
    /// What the player is told. Moving in the story is the Session's (one reader for REPL, kiosk
    /// and `read`): it starts a player at the new place rather than steering this one.
    public enum Command: Sendable, Hashable {
        case pause, resume, stop
        /// New settings (rate, pitch, volume), from the next sentence.
        case settings(SpeechSettings)
        case setStepMode(StepMode)
    }

    /// Step mode: read one sentence (or one page), then wait for `.resume`.
    public enum StepMode: Sendable, Hashable { case off, sentence, page }

    public enum State: Sendable, Hashable {
        case idle, playing, paused, waitingForStep, finished, stopped
        case failed(String)
    }

    /// Something heard, at `frame` samples from the start of the story's audio.
    public struct Event: Sendable, Hashable {
        public enum Kind: Sendable, Hashable {
            /// Sentence `sentence` of the narration starts.
            case sentence(Int)
            /// Word `word` of sentence `sentence` starts.
            case word(sentence: Int, word: Int)
            /// The last sentence was heard to its end.
            case end
            /// Reading was stopped.
            case stopped
            /// Reading paused at the given position, or resumed from it.
            case paused(sentence: Int, word: Int)
            case resumed(sentence: Int, word: Int)
            /// The rate changed (it applies from the next sentence).
            case settingsChanged(SpeechSettings)
            case stepModeChanged(StepMode)
            /// Step mode: sentence `Int` was read; waiting for `.resume`.
            case waitingForStep(Int)
        }
        public var kind: Kind
        public var frame: Int

        public init(kind: Kind, frame: Int) {
            self.kind = kind
            self.frame = frame
        }

        /// Milliseconds from the start of the story's audio.
        public var milliseconds: Int { frame * 1000 / SpeechAudioFormat.sampleRate }
    }

    /// Hooks for the rest of the app (reading log, UI). Called on the player's threads, in order.
    public struct Hooks: Sendable {
        /// Every event, when heard.
        public var onEvent: @Sendable (Event) -> Void
        /// A sentence started being heard (its index): for saving the reading position.
        public var onPositionChanged: @Sendable (Int) -> Void
        /// The last sentence was heard: the story was read to the end.
        public var onFinished: @Sendable () -> Void

        public init(
            onEvent: @escaping @Sendable (Event) -> Void = { _ in },
            onPositionChanged: @escaping @Sendable (Int) -> Void = { _ in },
            onFinished: @escaping @Sendable () -> Void = {}
        ) {
            self.onEvent = onEvent
            self.onPositionChanged = onPositionChanged
            self.onFinished = onFinished
        }
    }

    /// The word being heard.
    public struct Position: Sendable, Hashable {
        public var sentence: Int
        /// Index in the sentence; nil before its first word is heard.
        public var word: Int?
    }

    private struct Control {
        var state: State = .idle
        var pending: [Command] = []
        var interrupting = false
        var settings: SpeechSettings
        var stepMode = StepMode.off
        var stop = StopToken()
        /// Why it failed, to be said in the parent's language (`failure(in:)`).
        var failure: (any Error)?
    }

    private struct Heard {
        /// Events synthesised but not heard yet, in order.
        var pending: [Event] = []
        var position = Position(sentence: 0, word: nil)
        var finishedPumping = false
    }

    public let narration: Narration
    private let engine: any SpeechEngine
    private let sink: any PCMSink
    private let hooks: Hooks
    private let control: Mutex<Control>
    private let heard: Mutex<Heard>
    /// Serialises hook calls so events arrive in order.
    private let delivery = Mutex<Void>(())
    private let wakeUp = NSCondition()
    private let done = DispatchSemaphore(value: 0)

    /// - Parameters:
    ///   - settings: rate, pitch, volume and the resolved voice (`settings.voice`).
    public init(narration: Narration, engine: any SpeechEngine, sink: any PCMSink, settings: SpeechSettings, hooks: Hooks = Hooks()) {
        self.narration = narration
        self.engine = engine
        self.sink = sink
        self.hooks = hooks
        control = Mutex(Control(settings: settings))
        heard = Mutex(Heard())
    }

    /// Starts reading from sentence `sentence`, word `word` (0-based) on a new thread.
    /// A player reads once: later calls do nothing.
    public func start(sentence: Int = 0, word: Int = 0, stepMode: StepMode = .off) {
        let fresh = control.withLock { control -> Bool in
            guard control.state == .idle else { return false }
            control.state = .playing
            control.stepMode = stepMode
            return true
        }
        guard fresh else { return }
        let first = min(max(0, sentence), narration.items.count)
        heard.withLock { $0.position = Position(sentence: first, word: nil) }
        let player = Thread { [self] in
            self.run(sentence: first, word: word)
            self.done.signal()
        }
        player.name = "storyreader.player"
        player.start()
        if sink.isRealTime {
            let monitor = Thread { [self] in
                while !heard.withLock({ $0.finishedPumping }) {
                    pump()
                    usleep(5_000)
                }
            }
            monitor.name = "storyreader.player.clock"
            monitor.start()
        }
    }

    /// Blocks until reading has finished, stopped or failed; returns the final state.
    @discardableResult
    public func wait() -> State {
        done.wait()
        done.signal()
        return state
    }

    public var state: State { control.withLock { $0.state } }

    /// Why reading failed in the language of `messages` (the state's own message is English);
    /// nil unless it failed.
    public func failure(in messages: MessageCatalog) -> String? {
        control.withLock { control in
            guard case .failed(let message) = control.state else { return nil }
            return control.failure.map(messages.describe) ?? message
        }
    }
    public var settings: SpeechSettings { control.withLock { $0.settings } }
    public var stepMode: StepMode { control.withLock { $0.stepMode } }
    public var isStepMode: Bool { stepMode != .off }
    /// The word being heard now.
    public var position: Position {
        pump()
        return heard.withLock { $0.position }
    }

    /// Sends a control; navigation, pause and stop cut the current sentence off at once.
    public func send(_ command: Command) {
        let interrupts: Bool
        switch command {
        case .settings, .setStepMode, .resume: interrupts = false
        default: interrupts = true
        }
        wakeUp.lock()
        // Only sound being played is cut off; while paused or waiting, the command just queues.
        let cutOff = control.withLock { control -> Bool in
            control.pending.append(command)
            guard interrupts && control.state == .playing else { return false }
            control.interrupting = true
            control.stop.stop()
            return true
        }
        if cutOff { sink.interrupt() }
        wakeUp.signal()
        wakeUp.unlock()
    }

    // MARK: - Delivering what was heard

    private func schedule(_ event: Event) {
        heard.withLock { $0.pending.append(event) }
    }

    /// Delivers every scheduled event the playback clock has reached.
    private func pump(all: Bool = false) {
        delivery.withLock { _ in
            let played = sink.framesPlayed
            let due: [Event] = heard.withLock { heard in
                let count = all ? heard.pending.count : (heard.pending.firstIndex { $0.frame > played } ?? heard.pending.count)
                let due = Array(heard.pending.prefix(count))
                heard.pending.removeFirst(count)
                for event in due {
                    switch event.kind {
                    case .sentence(let sentence): heard.position = Position(sentence: sentence, word: nil)
                    case .word(let sentence, let word): heard.position = Position(sentence: sentence, word: word)
                    default: break
                    }
                }
                return due
            }
            for event in due {
                hooks.onEvent(event)
                if case .sentence(let sentence) = event.kind { hooks.onPositionChanged(sentence) }
                if case .end = event.kind { hooks.onFinished() }
            }
        }
    }

    /// Delivers a control event at once (it is not part of the audio).
    private func announce(_ kind: Event.Kind) {
        pump()
        delivery.withLock { _ in hooks.onEvent(Event(kind: kind, frame: sink.framesPlayed)) }
    }

    // MARK: - The reading loop (player thread)

    private enum Next { case play(sentence: Int, word: Int), finish, stop }

    private func run(sentence first: Int, word firstWord: Int) {
        var next = Next.play(sentence: first, word: firstWord)
        loop: while true {
            switch next {
            case .stop:
                break loop
            case .finish:
                try? sink.drain()
                if takeInterruption() != nil || state != .playing {
                    // A stop during the last words.
                    next = .stop
                    continue loop
                }
                schedule(Event(kind: .end, frame: sink.framesWritten))
                pump(all: true)
                control.withLock { $0.state = .finished }
                finishPumping()
                return
            case .play(let sentence, let word):
                guard sentence < narration.items.count else {
                    next = .finish
                    continue loop
                }
                applySettingCommands()
                let completed: Bool
                do {
                    completed = try speak(sentence: sentence, fromWord: word)
                } catch {
                    control.withLock {
                        $0.state = .failed("\(error)")
                        $0.failure = error
                    }
                    sink.drop()
                    finishPumping()
                    return
                }
                if completed {
                    // A step-mode key pressed during this sentence counts now.
                    applySettingCommands()
                    if shouldWaitForStep(after: sentence) {
                        try? sink.drain()
                        if takeInterruption() == nil {
                            pump(all: true)
                            next = waitForStep(after: sentence)
                            continue loop
                        }
                    } else {
                        next = .play(sentence: sentence + 1, word: 0)
                        continue loop
                    }
                }
                next = handleInterruption()
            }
        }
        sink.drop()
        heard.withLock { $0.pending.removeAll { $0.frame > sink.framesPlayed } }
        pump(all: true)
        control.withLock { $0.state = .stopped }
        schedule(Event(kind: .stopped, frame: sink.framesPlayed))
        pump(all: true)
        finishPumping()
    }

    private func finishPumping() {
        heard.withLock { $0.finishedPumping = true }
    }

    /// Synthesises one sentence into the sink; false when it was cut off by a control.
    private func speak(sentence: Int, fromWord: Int) throws -> Bool {
        let settings = control.withLock { $0.settings }
        let prepared = narration.utterance(sentence: sentence, fromWord: fromWord, settings: settings)
        let stop = control.withLock { control -> StopToken in
            if !control.interrupting { control.stop = StopToken() }
            return control.stop
        }
        if stop.isStopped { return false }
        let base = sink.framesWritten
        schedule(Event(kind: .sentence(sentence), frame: base))
        let sink = self.sink
        let aligner = Mutex(AlignerState(aligner: NarrationAligner(utterance: prepared)))
        let result = try engine.synthesize(prepared.utterance, stop: stop) { [self] chunk in
            let final = aligner.withLock { $0.consume(chunk.events) }
            for timing in final {
                schedule(Event(kind: .word(sentence: sentence, word: timing.word), frame: base + timing.sample))
            }
            let whole = (try? sink.write(chunk.samples)) ?? false
            if !sink.isRealTime { pump() }
            return whole ? .proceed : .stop
        }
        if let last = aligner.withLock({ $0.flush() }) {
            // The last word, if the sentence ended with its audio still queued.
            if !result.wasStopped || last.sample + base <= sink.framesWritten {
                schedule(Event(kind: .word(sentence: sentence, word: last.word), frame: base + last.sample))
            }
        }
        if !sink.isRealTime { pump() }
        return !result.wasStopped && !stop.isStopped
    }

    /// A word's time is final once the next word's mark arrives, eSpeak's word event refined it, or
    /// the utterance ends (see `NarrationAligner`).
    private struct AlignerState: Sendable {
        var aligner: NarrationAligner
        var provisional: NarrationAligner.Timing?

        mutating func consume(_ events: [SpeechEvent]) -> [NarrationAligner.Timing] {
            var final: [NarrationAligner.Timing] = []
            for timing in aligner.consume(events) {
                if let current = provisional, current.word != timing.word { final.append(current) }
                if timing.source != .mark {
                    final.append(timing)
                    provisional = nil
                } else {
                    provisional = timing
                }
            }
            return final
        }

        mutating func flush() -> NarrationAligner.Timing? {
            defer { provisional = nil }
            return provisional
        }
    }

    private func takeInterruption() -> [Command]? {
        control.withLock { control in
            guard control.interrupting else { return nil }
            control.interrupting = false
            control.stop = StopToken()
            return control.pending
        }
    }

    private func applySettingCommands() {
        var changes: [Event.Kind] = []
        control.withLock { control in
            var kept: [Command] = []
            for command in control.pending {
                switch command {
                case .settings(let new):
                    var settings = new.clamped().settings
                    settings.voice = control.settings.voice
                    control.settings = settings
                    changes.append(.settingsChanged(settings))
                case .setStepMode(let mode):
                    control.stepMode = mode
                    changes.append(.stepModeChanged(mode))
                default:
                    kept.append(command)
                }
            }
            control.pending = kept
        }
        for change in changes { announce(change) }
    }

    /// After the sound was cut off: what the controls ask for, from the word being heard.
    private func handleInterruption() -> Next {
        sink.drop()
        let played = sink.framesPlayed
        heard.withLock { $0.pending.removeAll { $0.frame > played } }
        pump(all: true)
        let here = heard.withLock { $0.position }
        control.withLock { control in
            control.interrupting = false
            control.stop = StopToken()
        }
        return decide(from: here, paused: false)
    }

    /// Applies pending commands at `here`; waits while paused.
    private func decide(from here: Position, paused startPaused: Bool) -> Next {
        var paused = startPaused
        var wasPaused = startPaused
        while true {
            applySettingCommands()
            let commands = control.withLock { control -> [Command] in
                defer { control.pending.removeAll() }
                return control.pending
            }
            for command in commands {
                switch command {
                case .stop:
                    return .stop
                case .pause:
                    paused = true
                    wasPaused = true
                case .resume:
                    paused = false
                case .settings, .setStepMode:
                    break
                }
            }
            if !paused {
                if wasPaused { announce(.resumed(sentence: here.sentence, word: here.word ?? 0)) }
                control.withLock { $0.state = .playing }
                return .play(sentence: here.sentence, word: here.word ?? 0)
            }
            control.withLock { $0.state = .paused }
            if commands.contains(.pause) {
                announce(.paused(sentence: here.sentence, word: here.word ?? 0))
            }
            waitForCommand()
        }
    }

    /// Whether step mode stops after `sentence`: always by sentence; by page at a page's end.
    private func shouldWaitForStep(after sentence: Int) -> Bool {
        switch stepMode {
        case .off: return false
        case .sentence: return true
        case .page:
            let next = sentence + 1
            return next >= narration.items.count || narration.items[next].pageIndex != narration.items[sentence].pageIndex
        }
    }

    /// Step mode: sentence `sentence` was heard; wait for a key before the next.
    private func waitForStep(after sentence: Int) -> Next {
        control.withLock { $0.state = .waitingForStep }
        announce(.waitingForStep(sentence))
        while true {
            applySettingCommands()
            if !isStepMode {
                control.withLock { $0.state = .playing }
                return .play(sentence: sentence + 1, word: 0)
            }
            let commands = control.withLock { control -> [Command] in
                defer { control.pending.removeAll(); control.interrupting = false; control.stop = StopToken() }
                return control.pending
            }
            if commands.isEmpty {
                waitForCommand()
                continue
            }
            if commands.contains(.resume) {
                control.withLock { $0.state = .playing }
                return .play(sentence: sentence + 1, word: 0)
            }
            control.withLock { $0.pending = commands.filter { $0 != .pause } }
            return decide(from: Position(sentence: sentence, word: nil), paused: true)
        }
    }

    private func waitForCommand() {
        wakeUp.lock()
        while control.withLock({ $0.pending.isEmpty }) { wakeUp.wait() }
        wakeUp.unlock()
    }
}
