public import Foundation
import Synchronization

/// Exporting in parallel: eSpeak NG is one engine per process, so more cores means more
/// processes. The export starts its workers, this program (`export-worker`, hidden), before
/// anything else and begins the story itself; when the first worker is ready (started, its
/// engine loaded), what the export has not begun is cut into contiguous runs of sentences of
/// about equal expected audio, the export keeping the first (`Team`). Each worker sends its PCM
/// and word events back over its standard output; the export then joins them in order, shifting
/// the times. Cutting when the workers are ready, not before they start, keeps the cores equally
/// busy however long a start takes on this machine. Here: the records a worker sends
/// (`RecordSink`), their reading back (`collect`) and the sharing out (`Team`); starting the
/// worker processes is the program's (`ExportWorkers.start`, `export-worker`).
public enum ExportWorkers {
    /// Contiguous runs of `items` of about equal expected audio (see `ExportShares`).
    public static func split(_ narration: Narration, jobs: Int) -> [Range<Int>] { ExportShares.split(narration, jobs: jobs) }

    /// One worker's output, read as it arrives. What arrives is kept in a temporary file (unlinked
    /// at once), not in memory: the parent reads a later worker's output only when the workers
    /// before it are done, and holding it in a growing buffer cost 105 MB and, dropped from the
    /// front a megabyte at a time, a memmove of everything behind each megabyte.
    /// Unchecked: the counts, `finished` and `failure` are read and written only while
    /// `condition` is locked; `process` and `fd` are set once in `init`.
    public final class Stream: @unchecked Sendable {
        public let process: Process
        /// The worker's standard input: its share is sent there when it is ready (see `Team`).
        let input: FileHandle?
        private let condition = NSCondition()
        private let fd: Int32
        /// Bytes in the file, and bytes of it already read.
        private var stored = 0
        private var consumed = 0
        private var finished = false
        private var failure: String?

        /// - Parameter onReady: called (on the thread reading the pipe) when the worker says it is
        ///   ready for its share, the record it begins with.
        public init(process: Process, pipe: Pipe, input: FileHandle? = nil, onReady: (@Sendable () -> Void)? = nil) throws {
            self.process = process
            self.input = input
            var template = Array((NSTemporaryDirectory() + "/storyreader-export-XXXXXX").utf8CString)
            let fd = mkstemp(&template)
            guard fd >= 0 else { throw ExportWorkerFailure(message: "cannot make a temporary file for an export worker: \(String(cString: strerror(errno)))") }
            // Unlinked at once: the file lives as long as the descriptor, and a killed export leaves none.
            template.withUnsafeBufferPointer { _ = unlink($0.baseAddress!) }
            self.fd = fd
            let source = pipe.fileHandleForReading.fileDescriptor
            Thread { [self] in
                var block = [UInt8](repeating: 0, count: 1 << 16)
                while true {
                    let count = block.withUnsafeMutableBytes { Foundation.read(source, $0.baseAddress, $0.count) }
                    if count < 0, errno == EINTR { continue }
                    var problem: String?
                    var ready = false
                    if count > 0 {
                        let offset = condition.withLock { stored }
                        ready = offset == 0 && block[0] == UInt8(ascii: "R")
                        let written = block.withUnsafeBytes { pwrite(fd, $0.baseAddress, count, off_t(offset)) }
                        if written != count { problem = "cannot keep an export worker's output: \(String(cString: strerror(errno)))" }
                    }
                    if ready { onReady?() }
                    condition.lock()
                    if count > 0, problem == nil {
                        stored += count
                    } else {
                        finished = true
                        failure = problem
                    }
                    condition.broadcast()
                    condition.unlock()
                    if count <= 0 || problem != nil { return }
                }
            }.start()
        }

        deinit { close(fd) }

        /// What was last read from the file, from `windowStart` (the one reader's own, no lock).
        private var window = [UInt8]()
        private var windowStart = 0

        /// Exactly `count` bytes, waiting for them; nil at the end of the stream.
        public func read(_ count: Int) throws -> Data? {
            condition.lock()
            while stored - consumed < count, !finished { condition.wait() }
            let available = stored - consumed >= count
            let offset = consumed
            let end = stored
            if available { consumed += count }
            let failure = failure
            condition.unlock()
            if let failure { throw ExportWorkerFailure(message: failure) }
            guard available else { return nil }
            // Records are small: the file is read a quarter of a megabyte at a time.
            if offset < windowStart || offset + count > windowStart + window.count {
                let length = min(max(count, 1 << 18), end - offset)
                window = [UInt8](repeating: 0, count: length)
                let got = window.withUnsafeMutableBytes { pread(fd, $0.baseAddress, length, off_t(offset)) }
                guard got == length else {
                    throw ExportWorkerFailure(message: "cannot read an export worker's output back: \(String(cString: strerror(errno)))")
                }
                windowStart = offset
            }
            let from = offset - windowStart
            return Data(window[from..<(from + count)])
        }
    }

    /// Ends the workers still running (a stop, or a failure elsewhere).
    public static func stop(_ streams: [Stream]) {
        for stream in streams where stream.process.isRunning { stream.process.terminate() }
    }

    /// One export's workers and the sharing out of its story between them and the export.
    /// The export reads the story from its first sentence with `limit`; when the first worker
    /// says it is ready, the sentences the export has not begun are cut into runs of about equal
    /// expected audio, one for the export (the story's end moves to the end of that run) and one
    /// for each worker, sent on its standard input (a worker with no run is sent nothing and ends).
    /// A story the export reads to its end before any worker is ready goes to no worker.
    public final class Team: Sendable {
        private struct State {
            var streams: [Stream] = []
            /// All the streams are known (a worker may be ready before the last one starts).
            var open = false
            var readyEarly = false
            /// Each worker's run, once shared out.
            var runs: [Range<Int>?]?
        }
        public let limit: SentenceLimit
        private let narration: Narration
        /// The export's run against a worker's, in hundredths. It also joins the workers' audio
        /// into the file (8.5 MB of WAV in 15–25 ms here, against about 300 ms to say it): a
        /// twentieth less to say, and the workers' samples are joined as they come, not after.
        public static let exportsShare = 95
        private let state = Mutex(State())

        public init(narration: Narration) {
            self.narration = narration
            limit = SentenceLimit(end: narration.items.count)
        }

        /// The workers are all started: a ready one gets its share from now on.
        public func open(_ streams: [Stream]) {
            state.withLock { state in
                state.streams = streams
                state.open = true
                if state.readyEarly { shareOut(&state) }
            }
        }

        /// A worker is ready: the first time, the rest of the story is shared out.
        public func ready() {
            state.withLock { state in
                guard state.open else {
                    state.readyEarly = true
                    return
                }
                shareOut(&state)
            }
        }

        /// The export has read its share: each worker's run (nil: none, it was sent nothing).
        public func finish() -> [Range<Int>?] {
            state.withLock { state in
                shareOut(&state)
                return state.runs ?? []
            }
        }

        private func shareOut(_ state: inout State) {
            guard state.runs == nil else { return }
            let workers = state.streams.count
            var runs: [Range<Int>] = []
            let narration = narration
            _ = limit.cut { first in
                runs = ExportShares.split(
                    narration, sentences: first..<narration.items.count, jobs: workers + 1, firstShare: Self.exportsShare)
                return runs.first?.upperBound ?? first
            }
            let given = Array(runs.dropFirst())
            state.runs = state.streams.indices.map { given[safe: $0] }
            for (stream, run) in zip(state.streams, state.runs ?? []) {
                guard let input = stream.input else { continue }
                if let run {
                    var record = Data()
                    withUnsafeBytes(of: UInt64(run.lowerBound).littleEndian) { record.append(contentsOf: $0) }
                    withUnsafeBytes(of: UInt64(run.upperBound).littleEndian) { record.append(contentsOf: $0) }
                    // A worker that died meanwhile: its stream's end says so, in `collect`.
                    try? input.write(contentsOf: record)
                }
                try? input.close()
            }
        }
    }

    /// Writes the workers' audio to `sink` in order, after what it holds; their events, shifted
    /// to the file's time. `runs` are the workers' runs (nil: a worker given none, passed over),
    /// for the message if one fails.
    public static func collect(
        _ streams: [Stream], runs: [Range<Int>?], sink: any PCMFileSink, stopped: StopToken,
        onWord: () -> Void = {}
    ) throws -> [NarrationPlayer.Event] {
        defer { stop(streams) }
        var events: [NarrationPlayer.Event] = []
        let joining = sink as? OpusExportFile
        let mp3 = sink as? Mp3ExportFile
        let last = runs.lastIndex { $0 != nil }
        for (index, stream) in streams.enumerated() {
            guard let run = runs[safe: index] ?? nil else { continue }
            // Where this worker's share begins in the file: after what is written, whole.
            let offset = try joining?.sealShare() ?? mp3?.sealShare() ?? sink.framesWritten
            var packets: [[UInt8]] = []
            var mp3Bytes: [UInt8] = []
            // A worker's samples come 20 ms a record (eSpeak's buffer): they are written to the
            // sink a few seconds at a time, not in ten thousand small writes for a long story.
            var samples = Data()
            func writeSamples() throws {
                guard !samples.isEmpty else { return }
                try samples.withUnsafeBytes { raw in _ = try sink.write(raw.bindMemory(to: Int16.self)) }
                samples.removeAll(keepingCapacity: true)
            }
            while !stopped.isStopped, let tag = try stream.read(1)?.first {
                if tag != UInt8(ascii: "P") { try writeSamples() }
                switch tag {
                case UInt8(ascii: "R"):
                    continue  // ready: what it was sent is its run
                case UInt8(ascii: "P"):
                    guard let size = try stream.read(4).map(Self.u32), let bytes = try stream.read(size * 2) else { break }
                    samples.append(bytes)
                    if samples.count >= 1 << 18 { try writeSamples() }
                case UInt8(ascii: "O"):
                    guard let size = try stream.read(4).map(Self.u32), let bytes = try stream.read(size) else { break }
                    packets.append([UInt8](bytes))
                case UInt8(ascii: "Z"):
                    guard let frames = try stream.read(8).map(Self.u64), let source = try stream.read(8).map(Self.u64), let joining else { break }
                    try joining.append(EncodedShare(packets: packets, frames: frames, sourceFrames: source))
                    packets = []
                case UInt8(ascii: "M"):
                    guard let size = try stream.read(4).map(Self.u32), let bytes = try stream.read(size) else { break }
                    mp3Bytes += bytes
                case UInt8(ascii: "Y"):
                    guard let frames = try stream.read(8).map(Self.u64), let source = try stream.read(8).map(Self.u64), let mp3 else { break }
                    try mp3.append(EncodedMp3Share(bytes: mp3Bytes, frames: frames, sourceFrames: source))
                    mp3Bytes = []
                case UInt8(ascii: "S"):
                    guard let sentence = try stream.read(4).map(Self.u32), let frame = try stream.read(8).map(Self.u64) else { break }
                    events.append(NarrationPlayer.Event(kind: .sentence(sentence), frame: offset + frame))
                case UInt8(ascii: "W"):
                    guard let sentence = try stream.read(4).map(Self.u32), let word = try stream.read(4).map(Self.u32),
                        let frame = try stream.read(8).map(Self.u64)
                    else { break }
                    events.append(NarrationPlayer.Event(kind: .word(sentence: sentence, word: word), frame: offset + frame))
                    onWord()
                case UInt8(ascii: "E"):
                    guard let frame = try stream.read(8).map(Self.u64) else { break }
                    if index == last { events.append(NarrationPlayer.Event(kind: .end, frame: offset + frame)) }
                default:
                    throw ExportWorkerFailure(message: "an export worker sent something unreadable")
                }
            }
            try writeSamples()
            if stopped.isStopped { return events }
            stream.process.waitUntilExit()
            if stream.process.terminationStatus != 0 || stream.process.terminationReason != .exit {
                throw ExportWorkerFailure(
                    message:
                        "an export worker stopped (sentences \(run.lowerBound + 1)–\(run.upperBound)), status \(stream.process.terminationStatus)"
                )
            }
        }
        return events
    }

    package static func u32(_ data: Data) -> Int { Int(data.withUnsafeBytes { $0.loadUnaligned(as: UInt32.self) }.littleEndian) }
    package static func u64(_ data: Data) -> Int { Int(data.withUnsafeBytes { $0.loadUnaligned(as: UInt64.self) }.littleEndian) }
}

/// Samples and events as records on standard output.
public final class RecordSink: PCMFileSink {
    private struct State {
        var written = 0
        /// Records not yet sent: written out 64 KiB at a time, not one system call a record.
        var pending = Data()
        /// Where in `pending` the count of the samples record still open is: samples that follow
        /// samples join its record (eSpeak gives 20 ms at a time; a record a word is enough).
        var openSamples: Int?
    }
    private let state = Mutex(State())
    private let out = FileHandle.standardOutput

    public init() {}

    public func write(_ samples: UnsafeBufferPointer<Int16>) throws -> Bool {
        try state.withLock { state in
            if let open = state.openSamples {
                let count = state.pending[open..<(open + 4)].withUnsafeBytes { $0.loadUnaligned(as: UInt32.self) }.littleEndian
                withUnsafeBytes(of: (count + UInt32(samples.count)).littleEndian) { state.pending.replaceSubrange(open..<(open + 4), with: $0) }
            } else {
                state.pending.append(UInt8(ascii: "P"))
                state.openSamples = state.pending.count
                withUnsafeBytes(of: UInt32(samples.count).littleEndian) { state.pending.append(contentsOf: $0) }
            }
            state.pending.append(
                UnsafeBufferPointer(start: UnsafeRawPointer(samples.baseAddress)?.assumingMemoryBound(to: UInt8.self), count: samples.count * 2))
            state.written += samples.count
            try send(&state, whole: false)
            return true
        }
    }

    public func record(_ event: NarrationPlayer.Event) {
        state.withLock { state in
            state.openSamples = nil
            func u32(_ value: Int) { withUnsafeBytes(of: UInt32(value).littleEndian) { state.pending.append(contentsOf: $0) } }
            func u64(_ value: Int) { withUnsafeBytes(of: UInt64(value).littleEndian) { state.pending.append(contentsOf: $0) } }
            switch event.kind {
            case .sentence(let index):
                state.pending.append(UInt8(ascii: "S"))
                u32(index)
                u64(event.frame)
            case .word(let sentence, let word):
                state.pending.append(UInt8(ascii: "W"))
                u32(sentence)
                u32(word)
                u64(event.frame)
            case .end:
                state.pending.append(UInt8(ascii: "E"))
                u64(event.frame)
            default: return
            }
            try? send(&state, whole: false)
        }
    }

    private func send(_ state: inout State, whole: Bool) throws {
        guard whole ? !state.pending.isEmpty : state.pending.count >= 1 << 16 else { return }
        try out.write(contentsOf: state.pending)
        state.pending.removeAll(keepingCapacity: true)
        state.openSamples = nil
    }

    /// A share encoded here: its packets, then its length in the file and in samples given.
    public func send(_ share: EncodedShare) throws {
        try state.withLock { state in
            state.openSamples = nil
            for packet in share.packets {
                state.pending.append(UInt8(ascii: "O"))
                withUnsafeBytes(of: UInt32(packet.count).littleEndian) { state.pending.append(contentsOf: $0) }
                state.pending.append(contentsOf: packet)
                try send(&state, whole: false)
            }
            state.pending.append(UInt8(ascii: "Z"))
            withUnsafeBytes(of: UInt64(share.frames).littleEndian) { state.pending.append(contentsOf: $0) }
            withUnsafeBytes(of: UInt64(share.sourceFrames).littleEndian) { state.pending.append(contentsOf: $0) }
        }
    }

    /// A share encoded here as MP3: its frames (a record each 64 KiB), then its length in the
    /// file and in samples given.
    public func send(_ share: EncodedMp3Share) throws {
        try state.withLock { state in
            state.openSamples = nil
            var offset = 0
            while offset < share.bytes.count {
                let end = min(offset + (1 << 16), share.bytes.count)
                state.pending.append(UInt8(ascii: "M"))
                withUnsafeBytes(of: UInt32(end - offset).littleEndian) { state.pending.append(contentsOf: $0) }
                state.pending.append(contentsOf: share.bytes[offset..<end])
                try send(&state, whole: false)
                offset = end
            }
            state.pending.append(UInt8(ascii: "Y"))
            withUnsafeBytes(of: UInt64(share.frames).littleEndian) { state.pending.append(contentsOf: $0) }
            withUnsafeBytes(of: UInt64(share.sourceFrames).littleEndian) { state.pending.append(contentsOf: $0) }
        }
    }

    /// Sends what is left (at the end of the run).
    public func flush() throws { try state.withLock { try send(&$0, whole: true) } }

    public var framesWritten: Int { state.withLock { $0.written } }
    public func close() throws { try flush() }
    public func discard() {}
}

/// An export worker's output could not be kept, read or understood, or the worker failed: the
/// message says which (the export names the story and stops).
public struct ExportWorkerFailure: Error, Sendable, CustomStringConvertible {
    public var message: String
    public var description: String { message }
}
