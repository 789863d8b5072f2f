/// A share encoder of a joined export file (`OpusShareEncoder`, `Mp3ShareEncoder`): one encoder
/// for one run of speech, owned by one thread of its own (`HandleOwner`: made, fed, finished and
/// freed there). Its type may be named on any thread (`SendableMetatype`: made and called on the
/// owner's); an encoder itself never leaves its thread.
protocol ShareEncoding: AnyObject, SendableMetatype {
    init(bitrate: Int) throws
    func write(_ samples: UnsafeBufferPointer<Int16>) throws
}

extension HandleOwner where Handle: ShareEncoding {
    /// A share encoder on a thread of its own, `name`d. Up to 64 blocks of speech (a few seconds)
    /// wait for it, so that the writer (the narration player) synthesises while it encodes.
    static func shareEncoder(named name: String, bitrate: Int) throws -> HandleOwner<Handle> {
        try HandleOwner(name: name, backlog: 64, open: { try Handle(bitrate: bitrate) })
    }

    /// Queues a copy of `samples` for the encoder; returns at once. An encoder's error is thrown
    /// by the next call.
    func encode(_ samples: UnsafeBufferPointer<Int16>) throws {
        let block = Array(samples)
        try submit { encoder in try block.withUnsafeBufferPointer { try encoder.write($0) } }
    }

    /// Ends the share: `finish` runs on the encoder's thread after everything queued, then the
    /// encoder is freed there.
    func finish<T: Sendable>(_ finish: @escaping @Sendable (Handle) throws -> T) throws -> T {
        defer { shutDown() }
        return try withHandle(finish)
    }
}

/// What every joined export file (`OpusExportFile`, `Mp3ExportFile`) keeps the same way: the
/// speech written to the file directly goes to the current share's encoder, on a thread of its
/// own, so that a one-process export encodes on the core its synthesis leaves idle; shares
/// encoded elsewhere (workers') come after it. The file says how a finished share is written;
/// this counts the file's length so far (`timeline`, shares whole, in frames of the speech's
/// rate) and the samples given in all (`sourceFrames`, the length the file should have). Used
/// under its file's lock.
struct JoinedShares<Encoder: ShareEncoding> {
    let bitrate: Int
    /// The encoders' threads' name.
    private let label: String
    private var current: HandleOwner<Encoder>?
    private var currentFrames = 0
    var timeline = 0
    var sourceFrames = 0

    init(bitrate: Int, label: String) {
        self.bitrate = bitrate
        self.label = label
    }

    /// The file's length in frames with what is still being encoded.
    var framesWritten: Int { timeline + currentFrames }

    /// Speech written to the file directly, into the current share (begun if there is none).
    mutating func write(_ samples: UnsafeBufferPointer<Int16>) throws {
        let encoder = try current ?? .shareEncoder(named: label, bitrate: bitrate)
        current = encoder
        try encoder.encode(samples)
        currentFrames += samples.count
        sourceFrames += samples.count
    }

    /// The current share, finished by `finish` (on its encoder's thread, with everything queued
    /// for it encoded), to be written by the file; nil when nothing was written directly since
    /// the last one.
    mutating func finishCurrent<T: Sendable>(_ finish: @escaping @Sendable (Encoder) throws -> T) throws -> T? {
        guard let encoder = current else { return nil }
        current = nil
        currentFrames = 0
        return try encoder.finish(finish)
    }

    /// The file's last share, finished by `finish`: the current one, or a fresh one when the file
    /// ends on a share from elsewhere (it is then silence, padding the file to `sourceFrames`).
    mutating func finishLast<T: Sendable>(_ finish: @escaping @Sendable (Encoder) throws -> T) throws -> T {
        let last = try current ?? .shareEncoder(named: label, bitrate: bitrate)
        current = nil
        currentFrames = 0
        return try last.finish(finish)
    }

    /// A share encoded elsewhere, `sourceFrames` long, is in the file.
    mutating func appended(sourceFrames frames: Int) { sourceFrames += frames }

    /// The file is discarded: the current share's encoder goes (freed on its thread).
    mutating func discard() {
        current?.shutDown()
        current = nil
    }
}
