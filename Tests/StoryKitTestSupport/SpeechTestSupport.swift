import Foundation
public import StoryKit
import Synchronization

/// A sink that plays in "real time" on a clock the test moves (`advance`): what a device would do,
/// without a sound card and without sleeping. It records every sample written.
public final class ManualClockSink: PCMSink {
    private struct State {
        var written = 0
        var played = 0
        var samples: [Int16] = []
        var drops = 0
        var failure: (any Error)?
        /// Called once, outside the lock, by the write that takes `written` past `frame`.
        var hook: (frame: Int, body: @Sendable () -> Void)?
    }
    private let state = Mutex(State())
    public let bufferFrames: Int

    /// - Parameter bufferMilliseconds: how far writes may run ahead of the clock, like a device buffer.
    public init(bufferMilliseconds: Int = 100) {
        bufferFrames = SpeechAudioFormat.sampleRate * bufferMilliseconds / 1000
    }

    /// Moves the clock on: up to `milliseconds` more of what was written is heard.
    public func advance(milliseconds: Int) {
        state.withLock { $0.played = min($0.written, $0.played + SpeechAudioFormat.sampleRate * milliseconds / 1000) }
    }

    /// Makes every later write fail with `error` (a full disk, a device gone).
    public func failWrites(with error: any Error) { state.withLock { $0.failure = error } }

    /// Every sample written, heard or cut.
    public var samplesWritten: Int { state.withLock { $0.samples.count } }
    /// The samples written from `index` on (heard or cut), in order.
    public func samples(from index: Int) -> [Int16] { state.withLock { Array($0.samples[min(index, $0.samples.count)...]) } }
    /// How many times what was queued was cut (`drop`).
    public var drops: Int { state.withLock { $0.drops } }

    /// Runs `body` during the write that takes what was written past `frame` (on the writing
    /// thread: the speech thread, mid-synthesis), once.
    public func whenWritten(past frame: Int, _ body: @escaping @Sendable () -> Void) {
        state.withLock { $0.hook = (frame, body) }
    }

    public func write(_ samples: UnsafeBufferPointer<Int16>) throws -> Bool {
        let hook = try state.withLock { state -> (@Sendable () -> Void)? in
            if let failure = state.failure { throw failure }
            state.samples.append(contentsOf: samples)
            state.written += samples.count
            guard let hook = state.hook, state.written > hook.frame else { return nil }
            state.hook = nil
            return hook.body
        }
        hook?()
        return true
    }

    public var framesWritten: Int { state.withLock { $0.written } }
    public var framesPlayed: Int { state.withLock { $0.played } }
    public func interrupt() {}
    public func drop() {
        state.withLock { state in
            state.written = state.played
            state.drops += 1
        }
    }
    public func drain() throws {}
    public func close() throws {}
    public var isRealTime: Bool { true }
}

/// Records what a speech service tells, in order.
public final class SpeechEventRecorder: Sendable {
    private let events = Mutex<[SpeechService.Event]>([])

    public init() {}

    public func record(_ event: SpeechService.Event) { events.withLock { $0.append(event) } }

    public var all: [SpeechService.Event] { events.withLock { $0 } }

    /// The queue's decisions as the speech log writes them ("start text: Where am I.").
    public var log: [String] {
        all.compactMap { event in
            guard case .queue(let command) = event else { return nil }
            return command.logLine
        }
    }

    /// The story's words heard, in order (sentence, word).
    public var words: [SpeechService.Position] {
        all.compactMap { event in
            guard case .story(let heard) = event, case .word(let sentence, let word) = heard.kind else { return nil }
            return SpeechService.Position(sentence: sentence, word: word)
        }
    }

    public var storyKinds: [SpeechService.StoryEvent.Kind] {
        all.compactMap { event in
            guard case .story(let heard) = event else { return nil }
            return heard.kind
        }
    }

    public func clear() { events.withLock { $0.removeAll() } }
}
