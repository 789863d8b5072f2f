import Synchronization

/// A sink whose clock moves only when told (`play(upTo:)`): a script without sound (`--no-audio`
/// without a terminal) runs the real speech service on it, so that time passes only when the script
/// says `wait`, and its transcript is the same on every machine. The samples are counted, not kept.
public final class VirtualClockSink: PCMSink {
    private let frames = Mutex((written: 0, played: 0))
    /// Room for all the service writes ahead of what is heard.
    public let bufferFrames = SpeechAudioFormat.sampleRate

    public init() {}

    public func write(_ samples: UnsafeBufferPointer<Int16>) throws -> Bool {
        frames.withLock { $0.written += samples.count }
        return true
    }

    public var framesWritten: Int { frames.withLock { $0.written } }
    public var framesPlayed: Int { frames.withLock { $0.played } }

    /// Moves the clock on to `frame` (at most to what was written): what was written up to there is heard.
    public func play(upTo frame: Int) {
        frames.withLock { $0.played = min($0.written, max($0.played, frame)) }
    }

    public func interrupt() {}
    public func drop() { frames.withLock { $0.written = $0.played } }
    public func drain() throws {}
    public func close() throws {}
    /// It stands for a device: the service writes only a little ahead of what is heard.
    public var isRealTime: Bool { true }
}
