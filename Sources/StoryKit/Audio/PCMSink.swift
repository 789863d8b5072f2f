import Foundation
import Synchronization

/// Where synthesised speech goes: the audio device, a WAV file, or paced silence.
///
/// Samples are 16-bit mono at `SpeechAudioFormat.sampleRate`. One thread (the player's) writes,
/// drains and drops; any thread may read `framesPlayed` and call `interrupt()`.
public protocol PCMSink: AnyObject, Sendable {
    /// Queues samples, blocking as a device does when its buffer is full. Returns false when
    /// `interrupt()` cut it short (the rest of the samples were not queued).
    @discardableResult
    func write(_ samples: UnsafeBufferPointer<Int16>) throws -> Bool
    /// Frames queued so far (after a `drop`, only those that were heard count).
    var framesWritten: Int { get }
    /// Frames heard so far: the playback clock the highlight follows.
    var framesPlayed: Int { get }
    /// Makes a blocked `write` or `drain` return at once (any thread). Cleared by `drop`.
    func interrupt()
    /// Discards what is queued but not yet heard (stop within one buffer); `framesWritten` becomes
    /// `framesPlayed`, and the sink is ready for new samples.
    func drop()
    /// Waits until everything queued has been heard, or until `interrupt()`.
    func drain() throws
    /// Finishes (a WAV file gets its header); the sink is unusable afterwards.
    func close() throws
    /// True when writing takes real time (a device or paced silence).
    var isRealTime: Bool { get }
    /// Frames the sink holds before they are heard (its buffer), for figures and stop tests.
    var bufferFrames: Int { get }
}

/// A sink that writes a file as fast as it is given samples (WAV, Opus, MP3): nothing is played,
/// nothing waits to drain, and a file not finished can be thrown away.
public protocol PCMFileSink: PCMSink {
    /// Stops writing and removes what was written: the target is never created.
    func discard()
    /// The times of the chapters named when the sink was made, written into the file on `close`
    /// (a WAV file has no chapters: it ignores them).
    func setChapterTimes(_ chapters: [AudioChapter])
}

extension PCMFileSink {
    public var framesPlayed: Int { framesWritten }
    public func interrupt() {}
    public func drop() {}
    public func drain() throws {}
    public var isRealTime: Bool { false }
    public var bufferFrames: Int { 0 }
    public func setChapterTimes(_ chapters: [AudioChapter]) {}
}

/// An audio failure, worded for the person who sees it.
/// `description` is English; `localized` says it in the parent's language (the device's name, the
/// path and the reason, which ALSA or the system gives, as they are).
public enum AudioError: TranslatableError, Sendable, Hashable, CustomStringConvertible {
    case deviceUnavailable(device: String, reason: String)
    case deviceFailed(device: String, reason: String)
    case fileFailed(path: String, reason: String)

    public var description: String { localized(.english) }

    public func localized(_ messages: MessageCatalog) -> String {
        switch self {
        case .deviceUnavailable(let device, let reason):
            messages.tr("cannot open audio device '{device}': {reason}", ["device": device, "reason": reason])
        case .deviceFailed(let device, let reason):
            messages.tr("audio device '{device}' failed: {reason}", ["device": device, "reason": reason])
        case .fileFailed(let path, let reason):
            messages.tr("cannot write {path}: {reason}", ["path": path, "reason": reason])
        }
    }
}

/// Samples played so far by a sink that plays nothing and does not wait: everything written counts
/// as heard at once (`--no-audio`, tests, benchmarks).
public final class DiscardingSink: PCMSink {
    private let written = Atomic<Int>(0)
    public init() {}
    public func write(_ samples: UnsafeBufferPointer<Int16>) throws -> Bool {
        written.add(samples.count, ordering: .relaxed)
        return true
    }
    public var framesWritten: Int { written.load(ordering: .relaxed) }
    public var framesPlayed: Int { framesWritten }
    public func interrupt() {}
    public func drop() {}
    public func drain() throws {}
    public func close() throws {}
    public var isRealTime: Bool { false }
    public var bufferFrames: Int { 0 }
}

/// Plays nothing, in real time: the clock moves as a device would, so the highlight keeps pace when
/// no audio device can be opened.
public final class PacedSilenceSink: PCMSink {
    private struct State {
        var written = 0
        /// The clock: `baseFrames` were heard at `baseTime`; after that, frames pass at the rate.
        var baseFrames = 0
        var baseTime: ContinuousClock.Instant
        var interrupted = false
    }
    private let state: Mutex<State>
    private let clock = ContinuousClock()
    public let bufferFrames: Int
    private let rate = Double(SpeechAudioFormat.sampleRate)

    /// - Parameter bufferMilliseconds: how far writes may run ahead of the clock, like a device buffer.
    public init(bufferMilliseconds: Int = 100) {
        bufferFrames = SpeechAudioFormat.sampleRate * bufferMilliseconds / 1000
        state = Mutex(State(baseTime: ContinuousClock().now))
    }

    private func played(_ state: State, at now: ContinuousClock.Instant) -> Int {
        let elapsed = now - state.baseTime
        let seconds = Double(elapsed.components.seconds) + Double(elapsed.components.attoseconds) * 1e-18
        return min(state.written, state.baseFrames + Int(seconds * rate))
    }

    public func write(_ samples: UnsafeBufferPointer<Int16>) throws -> Bool {
        let now = clock.now
        let interrupted = state.withLock { state -> Bool in
            if state.interrupted { return true }
            if played(state, at: now) >= state.written {
                // Idle until now: the clock starts again with these samples.
                state.baseFrames = state.written
                state.baseTime = now
            }
            state.written += samples.count
            return false
        }
        if interrupted { return false }
        while true {
            let (ahead, stop) = state.withLock { ($0.written - played($0, at: clock.now), $0.interrupted) }
            if stop { return false }
            if ahead <= bufferFrames { return true }
            let wait = Double(ahead - bufferFrames) / rate
            Thread.sleep(forTimeInterval: min(wait, 0.005))
        }
    }

    public var framesWritten: Int { state.withLock { $0.written } }
    public var framesPlayed: Int { state.withLock { played($0, at: clock.now) } }
    public func interrupt() { state.withLock { $0.interrupted = true } }

    public func drop() {
        let now = clock.now
        state.withLock { state in
            let heard = played(state, at: now)
            state.written = heard
            state.baseFrames = heard
            state.baseTime = now
            state.interrupted = false
        }
    }

    public func drain() throws {
        while true {
            let (left, stop) = state.withLock { ($0.written - played($0, at: clock.now), $0.interrupted) }
            if stop || left <= 0 { return }
            Thread.sleep(forTimeInterval: min(Double(left) / rate, 0.005))
        }
    }

    public func close() throws {}
    public var isRealTime: Bool { true }
}
