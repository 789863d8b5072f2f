import ArgumentParser
import Foundation
import StoryKit

extension ExportWorkers {
    /// A worker process started, with its output and input pipes (the parent's ends).
    struct Started: @unchecked Sendable {
        let process: Process
        let output: Pipe
        let input: FileHandle

        /// `storyreader ARGUMENTS` with its standard output and input on pipes to this process.
        static func launch(_ arguments: [String]) throws -> Started {
            let process = Process()
            process.executableURL = URL(fileURLWithPath: "/proc/self/exe").resolvingSymlinksInPath()
            process.arguments = arguments
            let pipe = Pipe()
            let input = Pipe()
            process.standardOutput = pipe
            process.standardInput = input
            process.standardError = FileHandle.standardError
            try process.run()
            // The parent's copies of the other ends go, so each side sees the other end.
            try? pipe.fileHandleForWriting.close()
            try? input.fileHandleForReading.close()
            return Started(process: process, output: pipe, input: input.fileHandleForWriting)
        }
    }

    /// Workers started before the export knows its story or settings (`export-standby`):
    /// their start (the loader binding some 90 libraries, the runtime) overlaps the export's own
    /// and its loading of the library, instead of following them. With two jobs the worker's
    /// `execve` came 49–71 ms after the export's, 12–17 % of a long story's export. They are
    /// started on a thread of their own (Foundation's `Process` closes every descriptor up to the
    /// limit in the child, which held the caller 7–9 ms here), given their arguments by ``start``,
    /// and, not needed (a short story, a recording, another story of the run), end when their
    /// input closes.
    final class Waiting: Sendable {
        private let idle = LockedValue<[Started]?>(nil)
        private let launched = DispatchSemaphore(value: 0)

        /// `count` workers starting now, or nil for none.
        static func start(count: Int) -> Waiting? {
            guard count > 0 else { return nil }
            let waiting = Waiting()
            _ = signal(SIGPIPE, SIG_IGN)
            Thread {
                // One that cannot start now is started later, as without this.
                let started = (0..<count).compactMap { _ in try? Started.launch(["export-standby"]) }
                waiting.idle.withLock { $0 = started }
                waiting.launched.signal()
            }.start()
            return waiting
        }

        /// One of the workers, once they have started, or nil when none is left.
        func take() -> Started? {
            launched.wait()
            defer { launched.signal() }
            return idle.withLock { started in started?.isEmpty == false ? started?.removeFirst() : nil }
        }

        /// Ends the workers nobody took (their input closes: they end without a word).
        func dismiss() {
            while let worker = take() { try? worker.input.close() }
        }
    }

    /// Starts `count` workers on the story, each to be told its run by `team` when it is ready:
    /// `waiting` ones first (sent their arguments), then new ones. `voice` is the one asked for
    /// (each worker resolves it as the export does); `encode`: what the workers send instead of
    /// samples (`--opus BITRATE`: their share as Opus packets, encoded on their own core).
    static func start(
        storyArguments: [String], count: Int, settings: SpeechSettings, voice: String, team: Team,
        encode: [String] = [], waiting: Waiting? = nil
    ) throws -> [Stream] {
        let arguments =
            ["export-worker"] + storyArguments + [
                "--rate", "\(settings.rate)", "--pitch", "\(settings.pitch)", "--volume", "\(settings.volume)", "--voice", voice,
            ] + encode
        // A worker that died before its run was sent must not take the export with it (EPIPE, said
        // by the worker's stream, rather than SIGPIPE).
        _ = signal(SIGPIPE, SIG_IGN)
        var streams: [Stream] = []
        do {
            for _ in 0..<count {
                let worker: Started
                if let ready = waiting?.take() {
                    // Its arguments: their length (4 bytes, little-endian), then each ended by a NUL.
                    let frame = Data(arguments.map { $0 + "\0" }.joined().utf8)
                    var length = UInt32(frame.count).littleEndian
                    try ready.input.write(contentsOf: Data(bytes: &length, count: 4) + frame)
                    worker = ready
                } else {
                    worker = try Started.launch(arguments)
                }
                streams.append(try Stream(process: worker.process, pipe: worker.output, input: worker.input, onReady: { team.ready() }))
            }
        } catch {
            stop(streams)
            throw error
        }
        team.open(streams)
        return streams
    }
}

/// `storyreader export-standby` (hidden): an export worker started before its export knew what
/// to give it (``ExportWorkers/Waiting``). It reads its arguments from standard input (their
/// length, 4 bytes little-endian, then each ended by a NUL) and runs `export-worker` with them,
/// config.toml's defaults applied as for any command line; when the input ends first, it ends at
/// once without a word. Given them, its command line reads `export-worker`, as `ps` shows a
/// worker at work.
struct StandbyExportWorkerCommand: ParsableCommand {
    static let configuration = CommandConfiguration(commandName: "export-standby", shouldDisplay: false)

    func run() throws {
        // Read from the descriptor itself, byte-exact: the run comes after on the same input.
        func read(_ count: Int) -> [UInt8]? {
            var bytes = [UInt8](repeating: 0, count: count)
            var got = 0
            while got < count {
                let n = bytes.withUnsafeMutableBytes { Foundation.read(STDIN_FILENO, $0.baseAddress! + got, count - got) }
                if n < 0, errno == EINTR { continue }
                guard n > 0 else { return nil }
                got += n
            }
            return bytes
        }
        guard let header = read(4) else { return }
        let length = Int(header.withUnsafeBytes { UInt32(littleEndian: $0.loadUnaligned(as: UInt32.self)) })
        guard length <= 1 << 20, let frame = read(length) else { throw UserFailure(message: "an export worker was sent no arguments it can read") }
        let arguments = frame.split(separator: 0, omittingEmptySubsequences: false).dropLast().map { String(decoding: $0, as: UTF8.self) }
        let (withDefaults, variables) = try ConfigArguments.apply(to: arguments)
        for (name, value) in variables { setenv(name, value, 1) }
        guard let worker = try StoryReaderCommand.parseAsRoot(withDefaults) as? ExportWorkerCommand else {
            throw UserFailure(message: "an export worker was sent arguments of another command")
        }
        Self.retitle(as: "export-worker")
        try worker.run()
    }

    /// Writes `title` over this process's first argument, in the memory `/proc/self/cmdline`
    /// reads (what `ps` and `pgrep` show), NULs after it; a longer title is not written.
    static func retitle(as title: String) {
        guard CommandLine.argc > 1, let argument = CommandLine.unsafeArgv[1] else { return }
        let room = strlen(argument)
        let bytes = Array(title.utf8)
        guard bytes.count <= room else { return }
        memset(argument, 0, room)
        for (index, byte) in bytes.enumerated() { argument[index] = CChar(bitPattern: byte) }
    }
}

/// `storyreader export-worker` (hidden): one run of sentences of one story, synthesised as the
/// serial export would, sent as records on standard output.
struct ExportWorkerCommand: ParsableCommand {
    static let configuration = CommandConfiguration(commandName: "export-worker", shouldDisplay: false)

    @OptionGroup var global: GlobalOptions
    @Argument var story: String
    /// The run of sentences to say (`--first` to before `--end`); without them the worker says
    /// it is ready (an `R` on standard output) and reads its run from standard input, two
    /// little-endian 64-bit numbers, or ends at once when the input ends first (no run for it).
    @Option var first: Int?
    @Option var end: Int?
    @Option var rate: Int
    @Option var pitch: Int
    @Option var volume: Int
    @Option var voice: String
    /// Send the share encoded as Opus at this bitrate (bit/s) rather than as samples.
    @Option var opus: Int?
    /// Send the share encoded as MP3 at this bitrate (kbit/s) rather than as samples.
    @Option var mp3: Int?

    func run() throws {
        Self.endWithParent()
        let library = global.loadLibrary()
        let story = try global.resolveStory(self.story, in: library)
        let whole: Narration
        do { whole = try Narration(story: story) } catch { throw UserFailure(message: error.description) }
        // Resolved as the export resolves it, which says why if it cannot be.
        guard let voice = try? EspeakEngine.shared.resolveVoice(voice, messages: global.messages).voice else { throw ExitCode(1) }
        let settings = SpeechSettings(rate: rate, pitch: pitch, volume: volume, voice: voice)
        let first: Int
        let end: Int
        if let given = self.first, let givenEnd = self.end {
            (first, end) = (given, givenEnd)
        } else {
            try FileHandle.standardOutput.write(contentsOf: Data("R".utf8))
            guard let run = try FileHandle.standardInput.readToEnd(), run.count == 16 else { return }
            first = ExportWorkers.u64(run.prefix(8))
            end = ExportWorkers.u64(run.suffix(8))
        }
        guard first >= 0, first < end, end <= whole.items.count else { throw UserFailure(message: "no such run of sentences") }
        var part = whole
        if first > 0 {
            // The engine nearer to where the serial export left it: the sentence before this run
            // said first. Measured on The Lighthouse Cat: the whole comes out 1.7 ms from one
            // process's with it, 34 ms without. eSpeak NG's state spans every sentence said before
            // (on The Cat That Walked by Himself 1, 5 or 30 sentences of warm-up still differ;
            // all of them match byte for byte), so it stays one: the rest is bounded in the tests.
            part.items = Array(whole.items[..<first])
            let warmUp = NarrationPlayer(narration: part, engine: EspeakEngine.shared, sink: DiscardingSink(), settings: settings)
            warmUp.start(sentence: first - 1)
            _ = warmUp.wait()
        }
        part.items = Array(whole.items[..<end])
        let output = RecordSink()
        let share = try opus.map { try OpusShareSink(bitrate: $0) }
        let mp3Share = try mp3.map { try Mp3ShareSink(bitrate: $0) }
        // The one call into the synthesis: the samples go out as records, or to this core's encoder.
        let sink: any PCMFileSink = share.map { $0 as any PCMFileSink } ?? mp3Share.map { $0 as any PCMFileSink } ?? output
        let player = NarrationPlayer(
            narration: part, engine: EspeakEngine.shared, sink: sink, settings: settings,
            hooks: NarrationPlayer.Hooks(onEvent: { output.record($0) }))
        player.start(sentence: first)
        let state = player.wait()
        guard state == .finished else { throw ExitCode(1) }
        if let share { try output.send(try share.finish()) }
        if let mp3Share { try output.send(try mp3Share.finish()) }
        try output.flush()
    }
}

extension ExportWorkerCommand {
    /// A worker lives no longer than the export that started it. A killed parent closes the
    /// pipe's reading end, which a worker learns only when it next writes, and an Opus worker
    /// writes nothing until its whole share is encoded: it went on for seconds, an orphan at 100 %
    /// of a core. A thread waits on standard output for the reader to go (poll reports POLLERR
    /// or POLLHUP on a pipe with no reader) and ends the process at once. Not PR_SET_PDEATHSIG:
    /// that follows the parent *thread* that started the worker, not the parent process.
    static func endWithParent() {
        var status = stat()
        guard fstat(STDOUT_FILENO, &status) == 0, status.st_mode & S_IFMT == S_IFIFO else { return }
        Thread {
            var watched = pollfd(fd: STDOUT_FILENO, events: 0, revents: 0)
            while true {
                let ready = poll(&watched, 1, -1)
                if ready < 0, errno == EINTR { continue }
                if ready < 0 || watched.revents & Int16(POLLERR | POLLHUP | POLLNVAL) != 0 { _exit(1) }
            }
        }.start()
    }
}
