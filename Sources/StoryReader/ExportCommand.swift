import ArgumentParser
import Synchronization
import Foundation
import StoryKit

/// `storyreader export`: stories to audio files with captions, through the same narration player
/// that reads aloud (so a file sounds exactly as reading does).
struct ExportCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "export",
        abstract: "Save stories as audio files, with captions.",
        discussion: """
            Each story is read by eSpeak NG as it is read aloud (the child's voice settings with \
            --profile, or --rate, --pitch, --volume and --voice) and written to a WAV file \
            (16-bit mono, 22050 Hz), an MP3 file (48 kbit/s, ID3v2 tags, for older players) or an Ogg Opus file (mono, 24 kbit/s unless --bitrate says \
            otherwise, with title, author, album and language tags: a tenth of the size). The \
            format comes from --format, else from the file's extension. One story: --to names \
            the file. Several: --to names a folder, and each story gets a file named by its id.

            --captions writes the words beside the audio, timed from the speech itself: vtt \
            (WebVTT, a cue per sentence with each word's time), srt (SubRip, a cue per sentence) \
            or lrc (enhanced LRC, each word's time, as children's audio players show lyrics). \
            Picture descriptions go to their own track, NAME.descriptions.vtt.

            A file is written beside its target and renamed when whole: a stopped export (Ctrl-C) \
            leaves nothing. An existing file is kept unless --force is given.

            Examples:
              storyreader export "The Lighthouse Cat" --to lighthouse.wav --captions vtt
              storyreader export lighthouse pip --to ~/Audio --format opus --profile Mia
            """)

    @OptionGroup var global: GlobalOptions

    @Argument(help: ArgumentHelp("Stories by title or id (see 'storyreader list').", valueName: "story"), completion: ShellCompletion.stories)
    var stories: [String]

    @Option(help: ArgumentHelp("The file to write (one story), or the folder (several).", valueName: "path"))
    var to: String

    @Option(help: ArgumentHelp("Audio format: wav, opus or mp3. Default: from the file's extension, else wav.", valueName: "format"))
    var format: String?

    @Option(help: ArgumentHelp("Bitrate in kbit/s: Opus 6 to 256 (default 24, about 180 KB a minute), MP3 8 to 160 (default 48).", valueName: "kbit/s"))
    var bitrate: Int?

    @Option(help: ArgumentHelp("Captions beside the audio: vtt, srt or lrc.", valueName: "format"))
    var captions: String?

    @Option(help: ArgumentHelp("Processes to synthesise with at once (eSpeak NG is one engine a process), each taking a run of sentences; the cores of this machine: \(ProcessInfo.processInfo.activeProcessorCount). Words then come within about 0.1 s of where one process puts them. Default: 1.", valueName: "n"))
    var jobs: Int?

    @Flag(help: "Replace files that already exist.")
    var force = false

    @Flag(help: "Print nothing but errors.")
    var quiet = false

    @Option(help: ArgumentHelp("Read with this child's voice settings (see 'storyreader profile list').", valueName: "name"), completion: ShellCompletion.profiles)
    var profile: String?

    @Option(help: ArgumentHelp("Words per minute, \(SpeechSettings.rateRange.lowerBound)–\(SpeechSettings.rateRange.upperBound).", valueName: "n"))
    var rate: Int?
    @Option(help: ArgumentHelp("Pitch, \(SpeechSettings.pitchRange.lowerBound)–\(SpeechSettings.pitchRange.upperBound).", valueName: "n"))
    var pitch: Int?
    @Option(help: ArgumentHelp("Volume, \(SpeechSettings.volumeRange.lowerBound)–\(SpeechSettings.volumeRange.upperBound).", valueName: "n"))
    var volume: Int?
    @Option(help: ArgumentHelp("Voice: a language with an optional variant (en, fr, en+f3). Default: the story's language.", valueName: "voice"))
    var voice: String?

    static let audioFormats = ["wav", "opus", "mp3"]

    func validate() throws {
        if stories.isEmpty { throw ValidationError("name at least one story to export: see 'storyreader list'") }
        if let format, !Self.audioFormats.contains(format.lowercased()) {
            throw ValidationError("--format \(format) is not an audio format this build writes: use wav, opus or mp3")
        }
        let ext = URL(fileURLWithPath: to).pathExtension.lowercased()
        if stories.count == 1, format == nil, !ext.isEmpty, !Self.audioFormats.contains(ext) {
            throw ValidationError("--to \(to): .\(ext) is not an audio format this build writes: use a .wav, .opus or .mp3 file")
        }
        if let jobs, !(1...64).contains(jobs) {
            throw ValidationError("--jobs \(jobs) is out of range: use 1 to 64")
        }
        if let bitrate, !(6...256).contains(bitrate) {
            throw ValidationError("--bitrate \(bitrate) is out of range: use 6 to 256 kbit/s")
        }
        if let captions, CaptionFormat(rawValue: captions.lowercased()) == nil {
            throw ValidationError("--captions \(captions) is not a caption format: use vtt, srt or lrc")
        }
        let settings = SpeechSettings(rate: rate ?? 175, pitch: pitch ?? 50, volume: volume ?? 100, voice: nil)
        if let problem = settings.problems().first {
            throw ValidationError("--\(problem.setting) \(problem.value) is out of range: use a value from \(problem.range.lowerBound) to \(problem.range.upperBound)")
        }
    }

    func run() throws {
        let library = global.loadLibrary()
        let chosen = try stories.map { try global.resolveStory($0, in: library) }
        let base = try childSettings()
        let captionFormat = captions.flatMap { CaptionFormat(rawValue: $0.lowercased()) }
        // Where each story goes: the file named, or a file named by its id in the folder named.
        let target = URL(fileURLWithPath: (to as NSString).expandingTildeInPath)
        var isFolder: ObjCBool = false
        let exists = FileManager.default.fileExists(atPath: target.path, isDirectory: &isFolder)
        let intoFolder = chosen.count > 1 || (exists && isFolder.boolValue)
        if intoFolder, !exists {
            do { try FileManager.default.createDirectory(at: target, withIntermediateDirectories: true) } catch {
                throw UserFailure(message: "cannot make the folder \(target.path): \(error.localizedDescription)")
            }
        }
        let audio = format?.lowercased() ?? (intoFolder || target.pathExtension.isEmpty ? "wav" : target.pathExtension.lowercased())
        let destinations = chosen.map { intoFolder ? target.appendingPathComponent($0.id + "." + audio) : target }
        // Everything is checked before anything is written.
        for destination in destinations {
            let folder = destination.deletingLastPathComponent().path
            guard FileManager.default.isWritableFile(atPath: folder) else {
                throw UserFailure(message: "cannot write in \(folder): choose a folder you may write to")
            }
            var related = [destination]
            if let captionFormat { related += [Self.sidecar(destination, captionFormat.rawValue), Self.sidecar(destination, "descriptions.vtt")] }
            for file in related where FileManager.default.fileExists(atPath: file.path) && !force {
                throw UserFailure(message: "\(file.path) already exists: give --force to replace it")
            }
        }
        var summary: [String] = []
        for (story, destination) in zip(chosen, destinations) {
            let timed = try export(story, to: destination, format: audio, settings: base)
            var written = [destination.path]
            if let captionFormat {
                let captionsFile = Self.sidecar(destination, captionFormat.rawValue)
                try Self.writeWhole(captionFormat.write(timed.spoken, title: story.title), to: captionsFile)
                written.append(captionsFile.path)
                if !timed.descriptions.isEmpty {
                    let descriptions = Self.sidecar(destination, "descriptions.vtt")
                    try Self.writeWhole(CaptionFormat.vtt.write(timed.descriptions, title: story.title, wordTimes: false), to: descriptions)
                    written.append(descriptions.path)
                }
            }
            let size = (try? FileManager.default.attributesOfItem(atPath: destination.path)[.size] as? Int) ?? 0
            summary.append("“\(story.title)”: \(Self.duration(timed.duration)), \(ByteCountFormatter.string(fromByteCount: Int64(size), countStyle: .file)) → "
                           + written.joined(separator: ", "))
        }
        if !quiet { for line in summary { TerminalIO.write(Sanitizer.visibleLines("Exported " + line) + "\n") } }
    }

    /// One story to one WAV file: the narration player straight into a file beside the target,
    /// renamed when whole.
    private func export(_ story: Story, to destination: URL, format: String, settings base: SpeechSettings) throws -> TimedNarration {
        let narration: Narration
        do { narration = try Narration(story: story) } catch { throw UserFailure(message: "“\(story.title)”: \(error.description)") }
        var settings = SpeechSettings(rate: rate ?? base.rate, pitch: pitch ?? base.pitch, volume: volume ?? base.volume, voice: voice ?? base.voice)
        do {
            let resolution = try EspeakEngine.shared.resolveVoice(settings.voice ?? story.language)
            if let notice = resolution.notice, !quiet { FileHandle.standardError.write(Data("storyreader: \(notice)\n".utf8)) }
            settings.voice = resolution.voice
        } catch {
            throw UserFailure(message: "\(error)")
        }
        // The sink writes under a hidden name and renames the file when it is closed whole.
        let sink: any PCMFileSink
        do {
            if format == "opus" {
                sink = try OpusFileSink(path: destination.path, bitrate: (bitrate ?? 24) * 1000, comments: Self.tags(of: story))
            } else if format == "mp3" {
                let frames = ["TITLE": "TIT2", "ARTIST": "TPE1", "ALBUM": "TALB", "LANGUAGE": "TLAN"]
                let tags = Self.tags(of: story).compactMap { tag, value in frames[tag].map { ($0, value) } }
                sink = try MP3FileSink(path: destination.path, bitrate: bitrate ?? MP3FileSink.defaultBitrate, tags: tags)
            } else {
                sink = try WAVFileSink(path: destination.path)
            }
        } catch {
            throw UserFailure(message: "\(error)")
        }
        // One process unless asked: several give the same words, but not the same samples (below).
        let runs = ExportWorkers.split(narration, jobs: jobs ?? 1)
        let events: [NarrationPlayer.Event]
        if runs.count > 1 {
            // Several processes, joined in order into the one file.
            let stop = StopFlag()
            TerminalMode.onStopSignal { stop.raise() }
            let storyArguments = global.storyFolders.flatMap { ["--stories", $0] } + [story.id]
            do {
                events = try ExportWorkers.run(storyArguments: storyArguments, narration: narration, runs: runs, settings: settings,
                                               sink: sink, stopped: stop.flag)
            } catch {
                sink.discard()
                if let failure = error as? UserFailure { throw UserFailure(message: "“\(story.title)”: \(failure.message)") }
                throw UserFailure(message: "“\(story.title)”: \(error)")
            }
            if stop.flag.load(ordering: .relaxed) {
                sink.discard()
                throw ExitCode(130)
            }
        } else {
            let heard = Mutex<[NarrationPlayer.Event]>([])
            let player = NarrationPlayer(narration: narration, engine: EspeakEngine.shared, sink: sink, settings: settings,
                                         hooks: NarrationPlayer.Hooks(onEvent: { event in heard.withLock { $0.append(event) } }))
            // The one self-pipe for signals: SIGINT, SIGTERM or SIGHUP stop it.
            TerminalMode.onStopSignal { player.send(.stop) }
            player.start()
            let state = player.wait()
            guard state == .finished else {
                sink.discard()
                if case .failed(let message) = state { throw UserFailure(message: "“\(story.title)”: \(message)") }
                throw ExitCode(130)
            }
            events = heard.withLock { $0 }
        }
        do { try sink.close() } catch { throw UserFailure(message: "\(error)") }
        return TimedNarration(narration: narration, events: events)
    }

    /// Title, author, album and language, as players show them.
    static func tags(of story: Story) -> [(String, String)] {
        var tags = [("TITLE", story.title), ("ALBUM", "Magical Stories"), ("LANGUAGE", story.language), ("ENCODER", "storyreader")]
        if let author = story.author, !author.isEmpty { tags.insert(("ARTIST", author), at: 1) }
        return tags.map { ($0, Sanitizer.sanitizeLine($1)) }
    }

    /// The child's speech settings with --profile, else the story defaults.
    private func childSettings() throws -> SpeechSettings {
        guard let profile else { return .storyDefaults }
        let store = try StoreCommandSupport.openStore(global)
        do { return try store.requireProfile(named: profile).settings.speech } catch { throw UserFailure(message: error.description) }
    }

    /// `story.wav` → `story.vtt`, `story.descriptions.vtt`.
    static func sidecar(_ audio: URL, _ ext: String) -> URL {
        audio.deletingPathExtension().appendingPathExtension(ext)
    }

    /// Text written beside its target, then renamed: never a half-written file.
    static func writeWhole(_ text: String, to file: URL) throws {
        let temporary = file.deletingLastPathComponent().appendingPathComponent(".\(file.lastPathComponent).\(getpid()).part")
        do {
            try Data(text.utf8).write(to: temporary)
            if FileManager.default.fileExists(atPath: file.path) { try FileManager.default.removeItem(at: file) }
            try FileManager.default.moveItem(at: temporary, to: file)
        } catch {
            try? FileManager.default.removeItem(at: temporary)
            throw UserFailure(message: "cannot write \(file.path): \(error.localizedDescription)")
        }
    }

    /// "2 min 5 s".
    static func duration(_ ms: Int) -> String {
        let seconds = (ms + 500) / 1000
        return seconds >= 60 ? "\(seconds / 60) min \(seconds % 60) s" : "\(seconds) s"
    }
}

/// Raised once by a signal; read by the loop that joins the workers.
final class StopFlag: Sendable {
    let flag = Atomic<Bool>(false)
    func raise() { flag.store(true, ordering: .relaxed) }
}
