import ArgumentParser
import Foundation
import StoryKit

extension ExportWorkers {
    /// Starts `count` workers on the story, each to be told its run by `team` when it is ready.
    /// `voice` is the one asked for (each worker resolves it as the export does); `encode`: what
    /// the workers send instead of samples (`--opus BITRATE`: their share as Opus packets,
    /// encoded on their own core).
    static func start(
        storyArguments: [String], count: Int, settings: SpeechSettings, voice: String, team: Team,
        encode: [String] = []
    ) throws -> [Stream] {
        let executable = URL(fileURLWithPath: "/proc/self/exe").resolvingSymlinksInPath()
        // A worker that died before its run was sent must not take the export with it (EPIPE, said
        // by the worker's stream, rather than SIGPIPE).
        _ = signal(SIGPIPE, SIG_IGN)
        var streams: [Stream] = []
        do {
            for _ in 0..<count {
                let process = Process()
                process.executableURL = executable
                process.arguments =
                    ["export-worker"] + storyArguments + [
                        "--rate", "\(settings.rate)", "--pitch", "\(settings.pitch)", "--volume", "\(settings.volume)", "--voice", voice,
                    ] + encode
                let pipe = Pipe()
                let input = Pipe()
                process.standardOutput = pipe
                process.standardInput = input
                process.standardError = FileHandle.standardError
                try process.run()
                // The parent's copies of the other ends go, so each side sees the other end.
                try? pipe.fileHandleForWriting.close()
                try? input.fileHandleForReading.close()
                streams.append(try Stream(process: process, pipe: pipe, input: input.fileHandleForWriting, onReady: { team.ready() }))
            }
        } catch {
            stop(streams)
            throw error
        }
        team.open(streams)
        return streams
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
