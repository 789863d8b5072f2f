import ArgumentParser
import Foundation
import StoryKit
import Synchronization

/// `storyreader read STORY`: reads a story aloud with the word being heard highlighted, or writes
/// its speech to a WAV file, or (for scripts) prints its timed events.
struct ReadCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "read",
        abstract: helpMessages.tr("Read a story aloud, with the word being heard highlighted."),
        discussion: helpParagraphs(
            helpLines(
                helpMessages.tr(
                    "This is the same reader as the REPL's and the kiosk's: the same screen, keys, announcements and kept place; leaving it (q, or the end of the story) ends the program. A story this child left midway goes on from its place (--from-start starts again). On a terminal the word being heard is highlighted. Keys while reading:"
                ),
                readingKeysHelp()),
            helpMessages.tr(
                "Without a terminal it takes the REPL's commands, one a line (pause, resume, sentence next, paragraph prev, page next, where, stop, wait N…), and prints every utterance and every sentence heard as a caption line; at the end of the input the story is read to its end."
            ),
            helpLines(
                helpMessages.tr("--events json prints one JSON object per line on standard output, when heard:"),
                #"  {"type":"page","page":N,"of":N,"ms":N}   "# + helpMessages.tr("(a new page starts)"),
                #"  {"type":"sentence","kind":"story"|"heading"|"picture","text":"…","start":N,"end":N,"ms":N,"source":"recording"|"synthesis"}"#,
                #"  {"type":"word","text":"…","start":N,"end":N,"ms":N,"source":"recording"|"synthesis"}"#,
                helpMessages.tr(
                    "A sentence or word played from the story's recording also says its \"audio\" file and \"clipBegin\" and \"clipEnd\" in it (milliseconds)."),
                #"  {"type":"end","ms":N}"#,
                helpMessages.tr("\"kind\" tells a picture's description (an audio description) and a heading from the story's own sentences."),
                helpMessages.tr(
                    "\"start\" and \"end\" are offsets in Unicode scalars into the story's plain text (the text 'storyreader show STORY --text' prints); \"ms\" is the time from the start of the story's audio. The times come from the story's recording where it has one (its clips are decoded, not played) and from eSpeak NG elsewhere (the speech is synthesised, not played), even with --no-audio: about 1,000 short sentences a second here; for the words without times, 'storyreader show STORY --text' is instant."
                )),
            helpMessages.tr(
                "A story with its own recording (a read-along EPUB's narration, see docs/story-format.md) is read by its narrator, unless --narration synthetic or the child's Narration setting asks for the synthetic voice always (--voice too, with --wav and --events). While the recording plays, + and - step its tempo by 0.25 from 0.5 to 2 instead of the speed, the pitch kept, and the child keeps it; --recording-tempo sets it for one run."
            ),
            helpMessages.tr(
                "Audio goes to the ALSA device 'default' (or --device, or $STORYREADER_AUDIO_DEVICE). When it cannot be opened, the story is read without sound at speaking pace, with one notice."
            )))

    @OptionGroup var global: GlobalOptions

    @OptionGroup var presentation: PresentationOptions

    @OptionGroup var bedtime: BedtimeOption

    @OptionGroup var coachOptions: CoachOptions

    @Argument(help: ArgumentHelp(helpMessages.tr("The story: its id, its title, or a unique prefix of either.")), completion: ShellCompletion.stories)
    var story: String

    @Option(
        help: ArgumentHelp(
            helpMessages.tr(
                "Words per minute, {min}–{max}. Default: the profile's, else {default}.",
                [
                    "min": String(SpeechSettings.rateRange.lowerBound), "max": String(SpeechSettings.rateRange.upperBound),
                    "default": String(SpeechSettings.storyDefaults.rate),
                ]), valueName: "n"))
    var rate: Int?

    @Option(
        help: ArgumentHelp(
            helpMessages.tr(
                "Pitch, {min}–{max}. Default: the profile's, else {default}.",
                [
                    "min": String(SpeechSettings.pitchRange.lowerBound), "max": String(SpeechSettings.pitchRange.upperBound),
                    "default": String(SpeechSettings.storyDefaults.pitch),
                ]), valueName: "n"))
    var pitch: Int?

    @Option(
        help: ArgumentHelp(
            helpMessages.tr(
                "Volume, {min}–{max} (100 is eSpeak's normal). Default: the profile's, else {default}.",
                [
                    "min": String(SpeechSettings.volumeRange.lowerBound), "max": String(SpeechSettings.volumeRange.upperBound),
                    "default": String(SpeechSettings.storyDefaults.volume),
                ]), valueName: "n"))
    var volume: Int?

    @Option(
        help: ArgumentHelp(
            helpMessages.tr(
                "Voice: a language with an optional variant (en, en-us, fr, de, es, en+f3). Default: the profile's, else the story's language. See 'storyreader voices'."
            ), valueName: "voice"))
    var voice: String?

    @Option(
        help: ArgumentHelp(
            helpMessages.tr(
                "Read as this child: their voice settings, and the finished read and the position are recorded for them (see 'storyreader profile list'). Without --from, a story left midway resumes at its sentence."
            ), valueName: "name"), completion: ShellCompletion.profiles)
    var profile: String?

    @Option(
        help: ArgumentHelp(
            helpMessages.tr("Write the whole story's speech to this WAV file (16-bit mono, 22050 Hz) and exit; nothing is played."), valueName: "file"))
    var wav: String?

    @Flag(
        name: [.customLong("no-audio"), .customLong("no-speech")],
        help: ArgumentHelp(
            helpMessages.tr(
                "Play nothing (--no-speech: for your own screen reader): on a terminal the words are shown at speaking pace; otherwise time does not wait (scripts and tests)."
            )))
    var noAudio = false

    @Option(help: ArgumentHelp(helpMessages.tr("Print timed events on standard output: 'json' (see above)."), valueName: "format"))
    var events: EventFormat?

    @Option(help: ArgumentHelp(helpMessages.tr("Start at this sentence (1 is the first)."), valueName: "sentence"))
    var from: Int?

    @Option(help: ArgumentHelp(helpMessages.tr("ALSA device to play on (default: $STORYREADER_AUDIO_DEVICE, else 'default')."), valueName: "name"))
    var device: String?

    enum EventFormat: String, ExpressibleByArgument, CaseIterable { case json }

    /// The settings asked for on the command line, over `base` (the profile's, else the story voice).
    func settings(over base: SpeechSettings = .storyDefaults) -> SpeechSettings {
        SpeechSettings(rate: rate ?? base.rate, pitch: pitch ?? base.pitch, volume: volume ?? base.volume, voice: voice ?? base.voice)
    }

    func validate() throws {
        if let problem = settings().problems().first {
            throw ValidationError(
                helpMessages.tr(
                    "--{setting} {value} is out of range: use a value from {min} to {max}",
                    [
                        "setting": problem.setting, "value": String(problem.value), "min": String(problem.range.lowerBound),
                        "max": String(problem.range.upperBound),
                    ]))
        }
        if let from, from < 1 { throw ValidationError(helpMessages.tr("--from {value}: sentences are numbered from 1", ["value": String(from)])) }
        if let voice, voice.isEmpty || voice.contains(where: { $0.isWhitespace || $0 == "/" }) {
            throw ValidationError(helpMessages.tr("--voice '{value}' is not a voice name: use a language such as en, fr or en+f3", ["value": voice]))
        }
    }

    @Flag(help: ArgumentHelp(helpMessages.tr("Start again from the beginning, even when the child left this story midway.")))
    var fromStart = false

    func run() throws {
        let library = global.loadLibrary()
        let story = try global.resolveStory(self.story, in: library)
        let narration: Narration
        do {
            narration = try Narration(story: story)
        } catch {
            throw UserFailure(message: error.localized(global.messages))
        }
        if let from, from > narration.items.count {
            throw UserFailure(
                message: global.messages.trn(
                    "--from {value}: '{title}' has {count} sentence", "--from {value}: '{title}' has {count} sentences",
                    narration.items.count, ["value": String(from), "title": story.title]))
        }
        // A story the coach cannot follow: said once (in the interface's language), and the story
        // is read as without --coach. With the microphone it is the reader with `r` pressed (one
        // listening loop: the Session's coach, `ReplListening`); a missing microphone is said there.
        var notice: ((MessageCatalog) -> String)?
        if coachOptions.coach {
            if let model = ListeningModel.forLanguage(story.language) {
                if let path = coachOptions.listen { return try runCoach(story, narration: narration, model: model, listening: path) }
                return try listen(story, narration: narration, library: library, coached: true)
            }
            notice = { Self.englishOnly(story, $0) }
        }
        if wav != nil || events != nil {
            if let notice { warn(notice(global.messages)) }
            try export(story, narration: narration)
        } else {
            try listen(story, narration: narration, library: library, notice: notice)
        }
    }

    /// Listening: the Session's reader, the same as the REPL's and the kiosk's (keys, screen,
    /// announcements, the place kept, the read counted), opened on this story; leaving it ends
    /// the program. Without a terminal it takes the REPL's commands, one a line.
    /// `notice`: why --coach is not coaching, said first in the child's interface language.
    /// `coached`: the child reads to the coach from the start (`r` pressed); with --events json the
    /// coach's events are printed on standard output, one JSON line each, and the captions go to
    /// standard error (the lines are for scripts: no screen is drawn).
    private func listen(
        _ story: Story, narration: Narration, library: StoryLibrary, notice: ((MessageCatalog) -> String)? = nil, coached: Bool = false
    ) throws {
        let printer = coached && events == .json ? CoachEventPrinter(narration: narration) : nil
        let runner = try SessionRunner(
            global: global, presentation: presentation, store: try StoreCommandSupport.openStore(global), script: printer != nil)
        let child = try childProfile(in: runner.snapshot)
        var session = runner.session(library: library, profile: child?.name, stories: [story])
        let voiceChoice = try resolvedVoice(story, over: child?.settings.speech)
        session.overrideSpeech(rate: rate, pitch: pitch, volume: volume, voice: voiceChoice)
        bedtime.apply(to: &session)
        let shell = try runner.shell(session, library: library, noAudio: noAudio, device: device, messages: global.messages, warn: warn)
        coachOptions.microphone.apply(to: shell)
        if let printer {
            shell.coachEvents = printer.print
            shell.printCaption = { line in TerminalIO.writeAll(line + "\n", to: STDERR_FILENO) }
        }
        let sentence = from.map { narration.items[$0 - 1].storySentenceIndex } ?? (fromStart ? 0 : nil)
        // Why --coach is not coaching: an input like any other, through the loop's one inbox (said
        // before the story begins).
        if let notice { shell.inbox.send(.input(.shell(.notice(notice(shell.session.state.messages))))) }
        let status = try shell.run { session in
            coached ? session.startCoachingAlone(story.id, fromSentence: sentence) : session.startReadingAlone(story.id, fromSentence: sentence)
        }
        if let child, shell.session.state.reader?.status == .finished {
            // Said on standard error too, for scripts that read the captions from standard output.
            let count = shell.session.state.reading(story.id).readCount
            warn(hasRead(child.name, story.title, count))
        }
        if status != 0 { Foundation.exit(status) }
    }

    /// The voice to read with (--voice, else the profile's, else the story's language), said once on
    /// standard error when it falls back; nil when nothing asks for one (the session chooses).
    func resolvedVoice(_ story: Story, over base: SpeechSettings?) throws -> String? {
        do {
            let resolution = try EspeakEngine.shared.resolveVoice(voice ?? base?.voice ?? story.language, messages: global.messages)
            if let notice = resolution.notice { warn(notice) }
            return voice == nil && resolution.notice == nil ? nil : resolution.voice
        } catch {
            throw UserFailure(message: global.messages.describe(error))
        }
    }

    /// Exporting (`--wav`) and timed events (`--events json`): the player straight to a file or
    /// to standard output, as fast as eSpeak NG synthesises. A WAV is not a read; timed events
    /// with --profile are (scripts listen that way), recorded here once the player is done.
    private func export(_ story: Story, narration: Narration) throws {
        let reader = try childReading()
        var first = 0
        if let from {
            first = from - 1
        } else if let reader, wav == nil, !fromStart,
            let saved = try? reader.store.position(profileID: reader.id, storyID: story.id),
            let item = narration.item(forStorySentence: saved), item > 0
        {
            first = item
            warn(
                global.messages.tr(
                    "resuming {name}'s place at sentence {sentence} of {count} (--from 1 starts again)",
                    [
                        "name": reader.profile.name, "sentence": String(item + 1), "count": String(narration.items.count),
                    ]))
        }
        var resolved = settings(over: reader?.profile.settings.speech ?? .storyDefaults)
        resolved.voice = try resolvedVoice(story, over: reader?.profile.settings.speech) ?? story.language

        let sink: any PCMSink
        if let wav {
            do { sink = try WAVFileSink(path: wav) } catch { throw UserFailure(message: global.messages.describe(error)) }
        } else {
            let output = AudioOutput.choose(noAudio: noAudio, deviceOption: device, messages: global.messages)
            if let notice = output.notice { warn(notice) }
            sink = output.sink
        }
        let printer = events == .json ? EventPrinter(narration: narration) : nil
        let messages = global.messages
        let player = NarrationPlayer(
            narration: narration, engine: EspeakEngine.shared, sink: sink, settings: resolved,
            hooks: NarrationPlayer.Hooks(onEvent: { event in
                if case .recordingUnavailable(let sentence, let error) = event.kind {
                    ReadCommand.warn(
                        messages.tr(
                            "sentence {sentence}: {problem}: eSpeak NG reads what the recording cannot",
                            [
                                "sentence": String(sentence + 1), "problem": error.localized(messages),
                            ]))
                }
                printer?.print(event)
            }),
            recording: try recording(story, narration: narration, child: reader?.profile),
            tempo: presentation.recordingTempo ?? reader?.profile.settings.recordingTempo ?? 1)
        // The one self-pipe for signals: SIGINT, SIGTERM or SIGHUP stop it.
        TerminalMode.onStopSignal { player.send(.stop) }
        player.start(sentence: first)
        let state = player.wait()
        if state == .finished {
            try sink.close()
        } else {
            // A stopped or failed export leaves no file that looks whole.
            (sink as? WAVFileSink)?.discard()
            try? sink.close()
        }
        if let reader, wav == nil {
            reader.store.storyTitles.know([(story.id, story.title)])
            do {
                if state == .finished {
                    let count = try reader.store.recordFinishedRead(profileID: reader.id, storyID: story.id)
                    warn(hasRead(reader.profile.name, story.title, count))
                } else if player.position.sentence < narration.items.count {
                    try reader.store.setPosition(
                        profileID: reader.id, storyID: story.id,
                        sentenceIndex: narration.items[player.position.sentence].storySentenceIndex)
                }
            } catch {
                warn(global.messages.tr("could not record the read: {problem}", ["problem": StoreCommandSupport.describe(error, global.messages)]))
            }
        }
        if case .failed(let message) = state { throw UserFailure(message: player.failure(in: global.messages) ?? message) }
        if state == .stopped { throw ExitCode(130) }
    }

    /// The child named by --profile, as the session knows them.
    private func childProfile(in snapshot: SessionSnapshot) throws -> ChildProfile? {
        guard let profile else { return nil }
        let key = ChildProfile.nameKey(profile)
        guard let child = snapshot.profiles.first(where: { ChildProfile.nameKey($0.name) == key }) else {
            _ = try childReading()  // the store's own message for a child it does not know
            return nil
        }
        return child
    }

    /// The child named by --profile, and the store that keeps their reads.
    func childReading() throws -> (store: StoryStore, profile: ChildProfile, id: Int64)? {
        guard let profile else { return nil }
        let store = try StoreCommandSupport.openStore(global)
        do {
            let child = try store.requireProfile(named: profile)
            guard let id = child.id else { return nil }
            return (store, child, id)
        } catch {
            throw StoreCommandSupport.fail(error, global.messages)
        }
    }

    /// "Maya has read “The Tiny Fox” once", said on standard error when a read is counted.
    private func hasRead(_ name: String, _ title: String, _ count: Int) -> String {
        global.messages.trn("{name} has read “{title}” once", "{name} has read “{title}” {count} times", count, ["name": name, "title": title])
    }

    func warn(_ message: String) { Self.warn(message) }

    fileprivate static func warn(_ message: String) {
        FileHandle.standardError.write(Data("storyreader: \(Sanitizer.visibleLines(message))\n".utf8))
    }

    /// The story's recorded narration, unless a voice was asked for (--voice) or the synthetic
    /// voice (--narration synthetic, else the child's setting): then eSpeak NG reads it all. A
    /// recording that cannot be used is said once, and eSpeak NG reads.
    private func recording(_ story: Story, narration: Narration, child: ChildProfile?) throws -> NarrationRecording? {
        let source = presentation.narration.flatMap(NarrationSource.init(loose:)) ?? child?.settings.narration ?? .recording
        guard voice == nil, source == .recording else { return nil }
        do {
            return try StoryRecording.load(for: story, narration: narration)
        } catch {
            warn(global.messages.tr("{problem}: eSpeak NG reads the story", ["problem": error.localized(global.messages)]))
            return nil
        }
    }
}

/// Prints heard events as JSON lines (`--events json`).
final class EventPrinter: Sendable {
    let narration: Narration

    init(narration: Narration) {
        self.narration = narration
    }

    func print(_ event: NarrationPlayer.Event) {
        if let line = jsonLine(event) { TerminalIO.write(line + "\n") }
    }

    func jsonLine(_ event: NarrationPlayer.Event) -> String? {
        switch event.kind {
        case .sentence(let index):
            let item = narration.items[index]
            let kind =
                switch item.kind {
                case .paragraph: "story"
                case .heading: "heading"
                case .picture: "picture"
                }
            var line = Self.object(type: "sentence", text: item.text, range: item.range, ms: event.milliseconds, clip: event.clip)
                .replacingOccurrences(of: "{\"type\":\"sentence\",", with: "{\"type\":\"sentence\",\"kind\":\"\(kind)\",")
            if index > 0, narration.items[index - 1].pageIndex != item.pageIndex {
                line = "{\"type\":\"page\",\"page\":\(item.pageIndex + 1),\"of\":\(narration.pageCount),\"ms\":\(event.milliseconds)}\n" + line
            }
            return line
        case .word(let sentence, let word):
            let item = narration.items[sentence].words[word]
            return Self.object(type: "word", text: item.text, range: item.range, ms: event.milliseconds, clip: event.clip)
        case .end:
            return "{\"type\":\"end\",\"ms\":\(event.milliseconds)}"
        default:
            return nil
        }
    }

    /// `clip`: the recording's clip heard (`"source":"recording"` and its times in its file, and
    /// `"more"`: the sentence's later clips, where it goes on in other files), or nil for
    /// synthetic speech (`"source":"synthesis"`).
    static func object(type: String, text: String, range: TextRange, ms: Int, clip: NarrationRecording.Sentence? = nil) -> String {
        var source = ",\"source\":\"synthesis\""
        if let clip {
            // The service fills in the end of a clip that runs to its file's end (a later clip's
            // is not known before it is decoded: null).
            source =
                ",\"source\":\"recording\",\"audio\":\(jsonString((clip.audio as NSString).lastPathComponent)),\"clipBegin\":\(clip.begin),\"clipEnd\":\(clip.end ?? clip.begin)"
            if !clip.more.isEmpty {
                let later = clip.more.map {
                    "{\"audio\":\(jsonString(($0.audio as NSString).lastPathComponent)),\"clipBegin\":\($0.begin),\"clipEnd\":\($0.end.map(String.init) ?? "null")}"
                }
                source += ",\"more\":[\(later.joined(separator: ","))]"
            }
        }
        return "{\"type\":\"\(type)\",\"text\":\(jsonString(text)),\"start\":\(range.start),\"end\":\(range.end),\"ms\":\(ms)\(source)}"
    }

    static func jsonString(_ text: String) -> String {
        var out = "\""
        for scalar in text.unicodeScalars {
            switch scalar {
            case "\"": out += "\\\""
            case "\\": out += "\\\\"
            case "\n": out += "\\n"
            case "\r": out += "\\r"
            case "\t": out += "\\t"
            default:
                if scalar.value < 0x20 || scalar.value == 0x7F || (0x80...0x9F).contains(scalar.value) || (0x2028...0x2029).contains(scalar.value) {
                    out += String(format: "\\u%04x", scalar.value)
                } else {
                    out.unicodeScalars.append(scalar)
                }
            }
        }
        return out + "\""
    }
}

/// The keys while reading, one a line in the help's language: the keys in a column, then what they do.
private func readingKeysHelp() -> String {
    let keys = KeyHelp.readingKeys.map { (keys: helpMessages.tr($0.keys), does: helpMessages.tr($0.does)) }
    let width = max(24, (keys.map(\.keys.count).max() ?? 0) + 2)
    return keys.map { "  " + $0.keys.padding(toLength: width, withPad: " ", startingAt: 0) + $0.does }.joined(separator: "\n")
}
