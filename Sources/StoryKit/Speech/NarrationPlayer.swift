import Foundation
import Synchronization

/// One story read aloud into a sink, as `read --wav`, `read --events`, export workers and tests use
/// it: start, controls, and a `wait()` for the end.
///
/// It holds no reading loop of its own: it is a `SpeechService` on its sink, asked to narrate, with
/// the service's story events passed to the hooks (on the speech thread, in order, when heard).
public final class NarrationPlayer: Sendable {
    /// What the player is told. Moving in the story is the Session's (one reader for REPL, kiosk
    /// and `read`): it starts a player at the new place rather than steering this one.
    public enum Command: Sendable, Hashable {
        case pause, resume, stop
        /// New settings (rate, pitch, volume), from the next sentence.
        case settings(SpeechSettings)
        case setStepMode(StepMode)
        /// A new tempo for the recording (0.5–2), from the next sentence.
        case tempo(Double)
    }

    public typealias StepMode = SpeechService.StepMode
    /// Something heard, at `frame` samples from the start of the sink's audio.
    public typealias Event = SpeechService.StoryEvent
    /// The word being heard.
    public typealias Position = SpeechService.Position

    public enum State: Sendable, Hashable {
        case idle, playing, paused, waitingForStep, finished, stopped
        case failed(String)

        var isOver: Bool {
            switch self {
            case .finished, .stopped, .failed: true
            default: false
            }
        }
    }

    /// Hooks for the rest of the app (reading log, UI). Called on the speech thread, in order.
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

    private struct Status: Sendable {
        var state: State = .idle
        var settings: SpeechSettings
        var stepMode = StepMode.off
        var first = 0
        /// Why it failed, to be said in the parent's language (`failure(in:)`).
        var failure: (any Error)?
    }

    public let narration: Narration
    /// Played where it has a clip (see `SpeechService.StoryRequest.recording`).
    public let recording: NarrationRecording?
    public let tempo: Double
    /// Where it ends if not at the story's last sentence (an export's share).
    public let limit: SentenceLimit?
    private let service: SpeechService
    private let status: LockedValue<Status>
    private let done = DispatchSemaphore(value: 0)

    /// - Parameters:
    ///   - settings: rate, pitch, volume and the resolved voice (`settings.voice`).
    ///   - recording: the story's recorded narration, played where it has a clip, at `tempo`.
    ///   - limit: where it ends if not at the last sentence, moved while it reads (see `SentenceLimit`).
    public init(
        narration: Narration, engine: any SpeechEngine, sink: any PCMSink, settings: SpeechSettings, hooks: Hooks = Hooks(),
        recording: NarrationRecording? = nil, tempo: Double = 1, limit: SentenceLimit? = nil
    ) {
        self.narration = narration
        self.limit = limit
        self.recording = recording
        self.tempo = tempo
        let status = LockedValue(Status(settings: settings))
        let done = self.done
        self.status = status
        service = SpeechService(sink: sink, engine: engine) { event in
            func end(_ state: State, failure: (any Error)? = nil) {
                let ended = status.withLock { status -> Bool in
                    guard !status.state.isOver else { return false }
                    status.state = state
                    status.failure = failure
                    return true
                }
                if ended { done.signal() }
            }
            switch event {
            case .story(let heard):
                switch heard.kind {
                case .paused: status.withLock { $0.state = .paused }
                case .resumed: status.withLock { $0.state = .playing }
                case .waitingForStep: status.withLock { $0.state = .waitingForStep }
                case .settingsChanged(let settings): status.withLock { $0.settings = settings }
                case .stepModeChanged(let mode): status.withLock { $0.stepMode = mode }
                case .sentence, .word:
                    status.withLock { if $0.state == .waitingForStep { $0.state = .playing } }
                default: break
                }
                hooks.onEvent(heard)
                if case .sentence(let sentence) = heard.kind { hooks.onPositionChanged(sentence) }
                if case .end = heard.kind {
                    hooks.onFinished()
                    end(.finished)
                }
                if case .stopped = heard.kind { end(.stopped) }
            case .storyFailed(let error):
                end(.failed("\(error)"), failure: error)
            case .queue, .finished, .utteranceFailed:
                break
            }
        }
    }

    /// Starts reading from sentence `sentence`, word `word` (0-based). A player reads once: later
    /// calls do nothing.
    public func start(sentence: Int = 0, word: Int = 0, stepMode: StepMode = .off) {
        let first = min(max(0, sentence), narration.items.count)
        let settings = status.withLock { status -> SpeechSettings? in
            guard status.state == .idle else { return nil }
            status.state = .playing
            status.stepMode = stepMode
            status.first = first
            return status.settings
        }
        guard let settings else { return }
        service.send(
            .narrate(
                SpeechService.StoryRequest(
                    narration: narration, sentence: first, word: word,
                    settings: settings, stepMode: stepMode, recording: recording, tempo: tempo, limit: limit)))
    }

    /// Blocks until reading has finished, stopped or failed; returns the final state.
    @discardableResult
    public func wait() -> State {
        done.wait()
        done.signal()
        return state
    }

    public var state: State { status.withLock { $0.state } }

    /// Why reading failed in the language of `messages` (the state's own message is English);
    /// nil unless it failed.
    public func failure(in messages: MessageCatalog) -> String? {
        status.withLock { status in
            guard case .failed(let message) = status.state else { return nil }
            return status.failure.map(messages.describe) ?? message
        }
    }
    public var settings: SpeechSettings { status.withLock { $0.settings } }
    public var stepMode: StepMode { status.withLock { $0.stepMode } }
    public var isStepMode: Bool { stepMode != .off }
    /// The word being heard now.
    public var position: Position {
        service.storyPosition ?? Position(sentence: status.withLock { $0.first }, word: nil)
    }

    /// Sends a control; pause and stop cut the current sentence off at once.
    public func send(_ command: Command) {
        switch command {
        case .pause: service.send(.pause)
        case .resume: service.send(.resume)
        case .stop:
            let ended = status.withLock { status -> Bool in
                // Never started: nothing will say it stopped.
                guard status.state == .idle else { return false }
                status.state = .stopped
                return true
            }
            if ended { done.signal() } else { service.send(.stop) }
        case .settings(let settings): service.send(.settings(settings))
        case .setStepMode(let mode): service.send(.stepMode(mode))
        case .tempo(let tempo): service.send(.tempo(tempo))
        }
    }
}
