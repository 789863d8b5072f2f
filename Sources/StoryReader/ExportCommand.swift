import ArgumentParser
import Foundation
import StoryKit

/// `storyreader export`: stories to audio files with captions, through the same narration player
/// that reads aloud (so a file sounds exactly as reading does).
struct ExportCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "export",
        abstract: helpMessages.tr("Save stories as audio files with captions, or as read-along books."),
        discussion: helpParagraphs(
            helpLines(
                helpMessages.tr(
                    "Each story is read by eSpeak NG as it is read aloud (the child's voice settings with --profile, or --rate, --pitch, --volume and --voice) and written as:"
                ),
                "  wav   " + helpMessages.tr("16-bit mono, 22050 Hz, about 2.6 MB a minute"),
                "  opus  " + helpMessages.tr("Ogg Opus at 24 kbit/s (see --bitrate): a tenth of the size"),
                "  mp3   " + helpMessages.tr("48 kbit/s, for older players and audio boxes"),
                "  epub  " + helpMessages.tr("a read-along book (EPUB 3 with Media Overlays)"),
                helpMessages.tr(
                    "The format comes from --format, else from the file's extension. Audio files are tagged with the title, the author as artist, the album and the language. A read-along book highlights its text sentence by sentence (word by word with --overlay words) as its audio plays, in Thorium, Apple Books, Kobo and other reading apps."
                )),
            helpMessages.tr(
                "One story: --to names the file. Several: --to names a folder and each story gets a file named by its id; or, with --one-file, --to names one file with a chapter for each story (Ogg chapter comments, ID3 CHAP frames, the EPUB's table of contents; a WAV file has no chapters)."
            ),
            helpMessages.tr(
                "--captions writes the words beside the audio, timed from the speech itself: vtt (WebVTT, a cue per sentence with each word's time), srt (SubRip, a cue per sentence) or lrc (enhanced LRC, each word's time, as children's audio players show lyrics). Picture descriptions go to their own track, NAME.descriptions.vtt."
            ),
            helpMessages.tr(
                "Long stories are made by several processes at once (--jobs, one eSpeak NG each). A file is written beside its target and renamed when whole: a stopped export (Ctrl-C) leaves nothing. An existing file is kept unless --force is given. On a terminal a progress line shows how far it is."
            ),
            helpLines(
                helpMessages.tr("Examples:"),
                #"  storyreader export "The Lighthouse Cat" --to lighthouse.opus --captions vtt"#,
                "  storyreader export lighthouse --to lighthouse.epub --overlay words",
                "  storyreader export lighthouse pip --to ~/Audio --format mp3 --profile Mia",
                "  storyreader export lighthouse pip bear --to bedtime.opus --one-file",
                #"  storyreader export --book "English Fairy Tales" --to fairy-tales.mp3 --one-file"#)))

    @OptionGroup var global: GlobalOptions

    @Argument(help: ArgumentHelp(helpMessages.tr("Stories by title or id (see 'storyreader list')."), valueName: "story"), completion: ShellCompletion.stories)
    var stories: [String] = []

    @Option(help: ArgumentHelp(helpMessages.tr("Every story of an imported book, in the book's order (after any stories named)."), valueName: "book"))
    var book: String?

    @Option(help: ArgumentHelp(helpMessages.tr("The file to write (one story, or --one-file), or the folder (several)."), valueName: "path"))
    var to: String

    @Option(help: ArgumentHelp(helpMessages.tr("wav, opus, mp3 or epub. Default: from the file's extension, else wav."), valueName: "format"))
    var format: String?

    @Flag(help: ArgumentHelp(helpMessages.tr("Several stories into one file, a chapter each.")))
    var oneFile = false

    @Option(help: ArgumentHelp(helpMessages.tr("The title of a file of several stories (--one-file). Default: from the stories' titles."), valueName: "title"))
    var title: String?

    @Option(
        help: ArgumentHelp(
            helpMessages.tr("Bitrate in kbit/s: Opus 6 to 256 (default 24, about 180 KB a minute), MP3 and EPUB 8 to 160 (default 48)."), valueName: "kbit/s"))
    var bitrate: Int?

    @Option(help: ArgumentHelp(helpMessages.tr("Captions beside the audio: vtt, srt or lrc."), valueName: "format"))
    var captions: String?

    @Option(help: ArgumentHelp(helpMessages.tr("What a read-along book highlights: sentences (default) or words."), valueName: "sentences|words"))
    var overlay: String?

    @Option(
        help: ArgumentHelp(
            helpMessages.tr(
                "Processes to synthesise with at once (eSpeak NG is one engine a process), each taking a run of sentences. Default: the cores of this machine ({cores}) for stories of {words} words or more, else 1. Words then come within 0.15 s of where one process puts them.",
                ["cores": String(ProcessInfo.processInfo.activeProcessorCount), "words": String(ExportCommand.wordsForJobs)]), valueName: "n"))
    var jobs: Int?

    @Flag(help: ArgumentHelp(helpMessages.tr("Replace files that already exist.")))
    var force = false

    /// The story shared out before the workers start, in runs of equal expected audio, rather
    /// than when the first is ready: the same runs every time, for tests that look at the joins.
    @Flag(help: .hidden)
    var fixedShares = false

    @Flag(name: [.customShort("q"), .long], help: ArgumentHelp(helpMessages.tr("Print nothing but errors (no progress line, no summary).")))
    var quiet = false

    @Option(
        help: ArgumentHelp(helpMessages.tr("Read with this child's voice settings (see 'storyreader profile list')."), valueName: "name"),
        completion: ShellCompletion.profiles)
    var profile: String?

    @Option(
        help: ArgumentHelp(
            helpMessages.tr(
                "Words per minute, {min}–{max}.", ["min": String(SpeechSettings.rateRange.lowerBound), "max": String(SpeechSettings.rateRange.upperBound)]),
            valueName: "n"))
    var rate: Int?
    @Option(
        help: ArgumentHelp(
            helpMessages.tr("Pitch, {min}–{max}.", ["min": String(SpeechSettings.pitchRange.lowerBound), "max": String(SpeechSettings.pitchRange.upperBound)]),
            valueName: "n"))
    var pitch: Int?
    @Option(
        help: ArgumentHelp(
            helpMessages.tr(
                "Volume, {min}–{max}.", ["min": String(SpeechSettings.volumeRange.lowerBound), "max": String(SpeechSettings.volumeRange.upperBound)]),
            valueName: "n"))
    var volume: Int?
    @Option(
        help: ArgumentHelp(helpMessages.tr("Voice: a language with an optional variant (en, fr, en+f3). Default: the story's language."), valueName: "voice"))
    var voice: String?

    static let formats = ["wav", "opus", "mp3", "epub"]
    /// Below this a story is made by one process: starting workers costs more than it saves.
    static let wordsForJobs = 1_000
    /// Silence between two stories of one file.
    static let chapterGap = 1.0

    func validate() throws {
        if stories.isEmpty, book == nil {
            throw ValidationError(helpMessages.tr("name at least one story to export (see 'storyreader list'), or a book with --book"))
        }
        if let format, !Self.formats.contains(format.lowercased()) {
            throw ValidationError(helpMessages.tr("--format {format} is not a format this build writes: use wav, opus, mp3 or epub", ["format": format]))
        }
        let ext = URL(fileURLWithPath: to).pathExtension.lowercased()
        if (stories.count == 1 && book == nil) || oneFile, format == nil, !ext.isEmpty, !Self.formats.contains(ext) {
            throw ValidationError(
                helpMessages.tr(
                    "--to {path}: .{extension} is not a format this build writes: use a .wav, .opus, .mp3 or .epub file", ["path": to, "extension": ext]))
        }
        if let jobs, !(1...64).contains(jobs) {
            throw ValidationError(helpMessages.tr("--jobs {value} is out of range: use 1 to 64", ["value": String(jobs)]))
        }
        if let bitrate, !(6...256).contains(bitrate) {
            throw ValidationError(helpMessages.tr("--bitrate {value} is out of range: use 6 to 256 kbit/s", ["value": String(bitrate)]))
        }
        if let captions, CaptionFormat(rawValue: captions.lowercased()) == nil {
            throw ValidationError(helpMessages.tr("--captions {value} is not a caption format: use vtt, srt or lrc", ["value": captions]))
        }
        if let overlay, ReadAlongBook.Granularity(rawValue: overlay.lowercased()) == nil {
            throw ValidationError(helpMessages.tr("--overlay {value} is not one a book takes: use sentences or words", ["value": overlay]))
        }
        let settings = SpeechSettings(rate: rate ?? 175, pitch: pitch ?? 50, volume: volume ?? 100, voice: nil)
        if let problem = settings.problems().first {
            throw ValidationError(
                helpMessages.tr(
                    "--{setting} {value} is out of range: use a value from {min} to {max}",
                    [
                        "setting": problem.setting, "value": String(problem.value), "min": String(problem.range.lowerBound),
                        "max": String(problem.range.upperBound),
                    ]))
        }
    }

    /// One file to make: its stories (a chapter each when several) and where it goes.
    struct Target {
        var stories: [Story]
        var file: URL
        var related: [URL]
    }

    func run() throws {
        // The workers a long story would use start first, before the library loads: their start
        // overlaps this process's (see ExportWorkers.Waiting). Those not taken end at the end.
        let waiting = ExportWorkers.Waiting.start(count: (jobs ?? ProcessInfo.processInfo.activeProcessorCount) - 1)
        defer { waiting?.dismiss() }
        let library = global.loadLibrary()
        var chosen = try stories.map { try global.resolveStory($0, in: library) }
        if let book {
            switch library.stories(ofBook: book) {
            case .success(let entries):
                do { chosen += try entries.map { try library.loadStory($0) } } catch { throw UserFailure(message: global.messages.describe(error)) }
            case .failure(let error):
                throw UserFailure(message: error.localized(global.messages))
            }
        }
        let messages = global.messages
        let base = try childSettings()
        let captionFormat = captions.flatMap { CaptionFormat(rawValue: $0.lowercased()) }
        // Where each file goes: the file named, or a file named by its id in the folder named.
        let named = URL(fileURLWithPath: (to as NSString).expandingTildeInPath)
        var isFolder: ObjCBool = false
        let exists = FileManager.default.fileExists(atPath: named.path, isDirectory: &isFolder)
        let intoFolder = !oneFile && (chosen.count > 1 || (exists && isFolder.boolValue))
        if oneFile, exists, isFolder.boolValue {
            throw UserFailure(
                message: messages.tr(
                    "--one-file: {path} is a folder; name the file to write, such as {example}",
                    [
                        "path": named.path, "example": named.appendingPathComponent("stories.opus").path,
                    ]))
        }
        if intoFolder, !exists {
            do { try FileManager.default.createDirectory(at: named, withIntermediateDirectories: true) } catch {
                throw UserFailure(message: messages.tr("cannot make the folder {path}: {reason}", ["path": named.path, "reason": error.localizedDescription]))
            }
        }
        let kind = format?.lowercased() ?? (intoFolder || named.pathExtension.isEmpty ? "wav" : named.pathExtension.lowercased())
        var targets =
            intoFolder
            ? chosen.map { Target(stories: [$0], file: named.appendingPathComponent($0.id + "." + kind), related: []) }
            : [Target(stories: chosen, file: named, related: [])]
        for index in targets.indices {
            if let captionFormat {
                targets[index].related = [Self.sidecar(targets[index].file, captionFormat.rawValue), Self.sidecar(targets[index].file, "descriptions.vtt")]
            }
        }
        // Everything is checked before anything is written.
        for target in targets {
            let folder = target.file.deletingLastPathComponent().path
            guard FileManager.default.isWritableFile(atPath: folder) else {
                throw UserFailure(message: messages.tr("cannot write in {folder}: choose a folder you may write to", ["folder": folder]))
            }
            for file in [target.file] + target.related where FileManager.default.fileExists(atPath: file.path) && !force {
                throw UserFailure(message: messages.tr("{path} already exists: give --force to replace it", ["path": file.path]))
            }
        }
        // What an export killed before it could clean up left in these folders goes now (issues 33, 43).
        let folders = Set(targets.flatMap { [$0.file] + $0.related }.map { $0.deletingLastPathComponent().standardizedFileURL })
        for folder in folders { AtomicFile.removeAbandoned(in: folder) }
        let progress = ExportProgress(totalWords: chosen.reduce(0) { $0 + $1.wordCount }, enabled: !quiet && StatusLine.isShown)
        var summary: [String] = []
        do {
            for target in targets {
                summary.append(try export(target, format: kind, captions: captionFormat, settings: base, progress: progress, waiting: waiting))
            }
        } catch {
            progress.finish()
            throw error
        }
        progress.finish()
        if !quiet { for line in summary { TerminalIO.write(Sanitizer.visibleLines(messages.tr("Exported {summary}", ["summary": line])) + "\n") } }
    }

    /// One file (and its captions): the summary line.
    private func export(
        _ target: Target, format: String, captions: CaptionFormat?, settings base: SpeechSettings,
        progress: ExportProgress, waiting: ExportWorkers.Waiting?
    ) throws -> String {
        let stories = target.stories
        let tags = Self.tags(of: stories, title: title)
        let book = format == "epub"
        // A book's audio is an MP3 made beside it under a hidden name, then packed into it.
        let audioFile = book ? target.file.deletingLastPathComponent().appendingPathComponent(".\(target.file.lastPathComponent).\(getpid()).mp3") : target.file
        let sink: any PCMFileSink
        do {
            switch format {
            // Encoded a share at a time, each on the core that says it (see OpusExportFile, Mp3ExportFile).
            case "opus": sink = try OpusExportFile(path: audioFile.path, bitrate: (bitrate ?? 24) * 1000, tags: tags)
            // A book's audio too: its Info frame's LAME tag says the encoder's delay, so a reading
            // app (and AudioClipDecoder) plays each clip from the sample its SMIL time names.
            case "mp3", "epub": sink = try Mp3ExportFile(path: audioFile.path, bitrate: bitrate ?? MP3FileSink.defaultBitrate, tags: tags)
            default: sink = try WAVFileSink(path: audioFile.path)
            }
        } catch {
            throw UserFailure(message: global.messages.describe(error))
        }
        var chapters: [ReadAlongBook.Chapter] = []
        var times: [AudioChapter] = []
        do {
            for (index, story) in stories.enumerated() {
                if index > 0 { try Self.silence(seconds: Self.chapterGap, into: sink) }
                let start = sink.framesWritten * 1000 / SpeechAudioFormat.sampleRate
                progress.begin(story.title)
                let (narration, timed) = try speak(story, into: sink, settings: base, progress: progress, waiting: waiting)
                chapters.append(ReadAlongBook.Chapter(story: story, narration: narration, timed: timed))
                times.append(AudioChapter(title: story.title, start: start, end: sink.framesWritten * 1000 / SpeechAudioFormat.sampleRate))
            }
            if stories.count > 1 { sink.setChapterTimes(times) }
            try sink.close()
        } catch {
            sink.discard()
            throw error
        }
        let duration = sink.framesWritten * 1000 / SpeechAudioFormat.sampleRate
        var written = [target.file.path]
        if book {
            defer { try? FileManager.default.removeItem(at: audioFile) }
            let readAlong = ReadAlongBook(
                title: tags.title, author: tags.artist, chapters: chapters,
                granularity: overlay.flatMap { ReadAlongBook.Granularity(rawValue: $0.lowercased()) } ?? .sentences,
                audioDuration: duration)
            do { try readAlong.write(to: target.file, audio: audioFile) } catch { throw UserFailure(message: global.messages.describe(error)) }
        }
        if let captions {
            let timed = chapters.map(\.timed)
            let captionsFile = Self.sidecar(target.file, captions.rawValue)
            try Self.writeWhole(captions.write(timed.flatMap(\.spoken), title: tags.title), to: captionsFile, messages: global.messages)
            written.append(captionsFile.path)
            let descriptions = timed.flatMap(\.descriptions)
            if !descriptions.isEmpty {
                let file = Self.sidecar(target.file, "descriptions.vtt")
                try Self.writeWhole(CaptionFormat.vtt.write(descriptions, title: tags.title, wordTimes: false), to: file, messages: global.messages)
                written.append(file.path)
            }
        }
        let size = (try? FileManager.default.attributesOfItem(atPath: target.file.path)[.size] as? Int) ?? 0
        let messages = global.messages
        let what =
            stories.count == 1
            ? "“\(stories[0].title)”"
            : messages.trn("“{title}” ({count} story)", "“{title}” ({count} stories)", stories.count, ["title": tags.title])
        return "\(what): \(Self.duration(duration)), \(ByteCountFormatter.string(fromByteCount: Int64(size), countStyle: .file)) → "
            + written.joined(separator: ", ")
    }

    /// Title, author, album and language, as players show them; a chapter a story when several.
    static func tags(of stories: [Story], title: String?) -> AudioTags {
        let authors = stories.compactMap(\.author).filter { !$0.isEmpty }.reduce(into: [String]()) { if !$0.contains($1) { $0.append($1) } }
        let name: String
        if let title, !title.isEmpty {
            name = title
        } else if stories.count == 1 {
            name = stories[0].title
        } else {
            name = stories.count <= 3 ? stories.map(\.title).joined(separator: " · ") : "\(stories[0].title) and \(stories.count - 1) more stories"
        }
        // The album is the book the stories come from, when they all come from one.
        let books = Set(stories.map { $0.book ?? "" })
        let album = books.count == 1 ? stories.first?.book.map(Sanitizer.sanitizeLine) : nil
        var tags = AudioTags(
            title: Sanitizer.sanitizeLine(name), artist: authors.isEmpty ? nil : Sanitizer.sanitizeLine(authors.prefix(3).joined(separator: ", ")),
            album: album ?? "Magical Stories", language: stories.first?.language ?? "en")
        let licences = Set(stories.map { $0.licence ?? "" })
        if licences.count == 1, let licence = stories.first?.licence { tags.licence = Sanitizer.sanitizeLine(licence) }
        if stories.count > 1 { tags.chapters = stories.map { AudioChapter(title: Sanitizer.sanitizeLine($0.title)) } }
        return tags
    }

    static func silence(seconds: Double, into sink: any PCMFileSink) throws {
        let samples = [Int16](repeating: 0, count: Int(seconds * Double(SpeechAudioFormat.sampleRate)))
        _ = try samples.withUnsafeBufferPointer { try sink.write($0) }
    }

    /// The child's speech settings with --profile, else the story defaults.
    private func childSettings() throws -> SpeechSettings {
        guard let profile else { return .storyDefaults }
        let store = try StoreCommandSupport.openStore(global, readOnly: true)
        do { return try store.requireProfile(named: profile).settings.speech } catch { throw StoreCommandSupport.fail(error, global.messages) }
    }

    /// `story.wav` → `story.vtt`, `story.descriptions.vtt`.
    static func sidecar(_ audio: URL, _ ext: String) -> URL {
        audio.deletingPathExtension().appendingPathExtension(ext)
    }

    /// Text replacing its target whole (AtomicFile): never a half-written file.
    static func writeWhole(_ text: String, to file: URL, messages: MessageCatalog = .english) throws {
        do { try AtomicFile.write(Data(text.utf8), to: file) } catch { throw UserFailure(message: error.localized(messages)) }
    }

    /// "2 min 5 s".
    static func duration(_ ms: Int) -> String {
        let seconds = (ms + 500) / 1000
        return seconds >= 60 ? "\(seconds / 60) min \(seconds % 60) s" : "\(seconds) s"
    }
}
