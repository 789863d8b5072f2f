import ArgumentParser
import Foundation
import StoryKit
import Synchronization

/// `storyreader read STORY`: reads a story aloud with the word being heard highlighted, or writes
/// its speech to a WAV file, or (for scripts) prints its timed events.
struct ReadCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "read",
        abstract: "Read a story aloud, with the word being heard highlighted.",
        discussion: """
            On a terminal the story's text is shown with the word being heard in reverse video. Keys:
              Space     pause / resume (resumes at the word it stopped at)
              ← →       previous / next sentence
              ↑ ↓       previous / next paragraph
              + -       faster / slower (from the next sentence)
              s         step mode: read one sentence, then wait for Space (s again: off)
              p         step mode by page: read one page, then wait for Space
              q, Esc    stop

            Without a terminal the sentences are printed as they are heard.

            --events json prints one JSON object per line on standard output, when heard:
              {"type":"sentence"|"word","text":"…","start":N,"end":N,"ms":N}
              {"type":"end","ms":N}
            "start" and "end" are offsets in Unicode scalars into the story's plain text (the text \
            'storyreader show STORY --text' prints); "ms" is the time from the start of the \
            story's audio. The times come from eSpeak NG, so the speech is synthesised (not \
            played) even with --no-audio: about 1,000 short sentences a second here; for the \
            words without times, 'storyreader show STORY --text' is instant.

            Audio goes to the ALSA device 'default' (or --device, or $STORYREADER_AUDIO_DEVICE). \
            When it cannot be opened, the story is read without sound at speaking pace, with one notice.
            """)

    @OptionGroup var global: GlobalOptions

    @Argument(help: "The story: its id, its title, or a unique prefix of either.", completion: ShellCompletion.stories)
    var story: String

    @Option(help: ArgumentHelp("Words per minute, \(SpeechSettings.rateRange.lowerBound)–\(SpeechSettings.rateRange.upperBound). Default: the profile's, else \(SpeechSettings.storyDefaults.rate).", valueName: "n"))
    var rate: Int?

    @Option(help: ArgumentHelp("Pitch, \(SpeechSettings.pitchRange.lowerBound)–\(SpeechSettings.pitchRange.upperBound). Default: the profile's, else \(SpeechSettings.storyDefaults.pitch).", valueName: "n"))
    var pitch: Int?

    @Option(help: ArgumentHelp("Volume, \(SpeechSettings.volumeRange.lowerBound)–\(SpeechSettings.volumeRange.upperBound) (100 is eSpeak's normal). Default: the profile's, else \(SpeechSettings.storyDefaults.volume).", valueName: "n"))
    var volume: Int?

    @Option(help: ArgumentHelp("Voice: a language with an optional variant (en, en-us, fr, de, es, en+f3). Default: the profile's, else the story's language. See 'storyreader voices'.", valueName: "voice"))
    var voice: String?

    @Option(help: ArgumentHelp("Read as this child: their voice settings, and the finished read and the position are recorded for them (see 'storyreader profile list'). Without --from, a story left midway resumes at its sentence.", valueName: "name"), completion: ShellCompletion.profiles)
    var profile: String?

    @Option(help: ArgumentHelp("Write the whole story's speech to this WAV file (16-bit mono, 22050 Hz) and exit; nothing is played.", valueName: "file"))
    var wav: String?

    @Flag(help: "Play nothing and do not wait for real time (for scripts and tests).")
    var noAudio = false

    @Option(help: ArgumentHelp("Print timed events on standard output: 'json' (see above).", valueName: "format"))
    var events: EventFormat?

    @Option(help: ArgumentHelp("Start at this sentence (1 is the first).", valueName: "sentence"))
    var from: Int?

    @Option(help: ArgumentHelp("ALSA device to play on (default: $STORYREADER_AUDIO_DEVICE, else 'default').", valueName: "name"))
    var device: String?

    enum EventFormat: String, ExpressibleByArgument, CaseIterable { case json }

    /// The settings asked for on the command line, over `base` (the profile's, else the story voice).
    func settings(over base: SpeechSettings = .storyDefaults) -> SpeechSettings {
        SpeechSettings(rate: rate ?? base.rate, pitch: pitch ?? base.pitch, volume: volume ?? base.volume, voice: voice ?? base.voice)
    }

    func validate() throws {
        if let problem = settings().problems().first {
            throw ValidationError("--\(problem.setting) \(problem.value) is out of range: use a value from \(problem.range.lowerBound) to \(problem.range.upperBound)")
        }
        if let from, from < 1 { throw ValidationError("--from \(from): sentences are numbered from 1") }
        if let voice, voice.isEmpty || voice.contains(where: { $0.isWhitespace || $0 == "/" }) {
            throw ValidationError("--voice '\(voice)' is not a voice name: use a language such as en, fr or en+f3")
        }
    }

    func run() throws {
        let story = try global.resolveStory(self.story)
        // The child reading: their settings, and where their read and position are recorded.
        let reader = try childReading()
        let narration: Narration
        do {
            narration = try Narration(story: story)
        } catch {
            throw UserFailure(message: error.description)
        }
        var first = 0
        if let from {
            guard from <= narration.items.count else {
                throw UserFailure(message: "--from \(from): '\(story.title)' has \(narration.items.count) sentences")
            }
            first = from - 1
        } else if let reader, wav == nil,
                  let saved = try? reader.store.position(profileID: reader.id, storyID: story.id),
                  let item = narration.item(forStorySentence: saved), item > 0 {
            first = item
            warn("resuming \(reader.profile.name)'s place at sentence \(item + 1) of \(narration.items.count) (--from 1 starts again)")
        }

        // The voice: --voice, else the story's language; a missing one falls back with a notice.
        var resolved = settings(over: reader?.profile.settings.speech ?? .storyDefaults)
        var notices: [String] = []
        do {
            let resolution = try EspeakEngine.shared.resolveVoice(voice ?? reader?.profile.settings.speech.voice ?? story.language)
            if let notice = resolution.notice {
                warn(notice)
                notices.append(notice)
            }
            resolved.voice = resolution.voice
        } catch {
            throw UserFailure(message: "\(error)")
        }

        let sink: any PCMSink
        if let wav {
            do { sink = try WAVFileSink(path: wav) } catch { throw UserFailure(message: "\(error)") }
        } else {
            let output = AudioOutput.choose(noAudio: noAudio, deviceOption: device)
            if let notice = output.notice {
                warn(notice)
                notices.append(notice)
            }
            sink = output.sink
        }

        let printer = EventPrinter(narration: narration, json: events == .json, captions: events == nil && wav == nil)
        let interactive = wav == nil && !noAudio && events == nil && RawTerminal.isInteractive
        let screenChanged = ChangeFlag()
        let finished = FinishedRead()
        let hooks = NarrationPlayer.Hooks(
            onEvent: { event in
                if interactive { screenChanged.set() } else { printer.print(event) }
            },
            // The reading log: the sentence reached, and a finished read once the last is heard.
            // Exporting a WAV is not reading, so it records nothing.
            onPositionChanged: { index in
                guard let reader, wav == nil, index < narration.items.count else { return }
                try? reader.store.setPosition(profileID: reader.id, storyID: story.id, sentenceIndex: narration.items[index].storySentenceIndex)
            },
            onFinished: {
                guard let reader, wav == nil else { return }
                do {
                    let count = try reader.store.recordFinishedRead(profileID: reader.id, storyID: story.id)
                    try reader.store.clearPosition(profileID: reader.id, storyID: story.id)
                    finished.set(count)
                } catch {
                    FileHandle.standardError.write(Data("storyreader: could not record the finished read: \(error)\n".utf8))
                }
            })
        let player = NarrationPlayer(narration: narration, engine: EspeakEngine.shared, sink: sink, settings: resolved, hooks: hooks)

        if interactive {
            try runInteractive(player: player, story: story, sink: sink, changed: screenChanged, first: first,
                               notice: notices.isEmpty ? nil : notices.joined(separator: "; "))
        } else {
            let stopper = SignalStopper(player: player, sink: sink)
            player.start(sentence: first)
            let state = player.wait()
            stopper.cancel()
            if state == .finished {
                try sink.close()
            } else {
                // A stopped or failed export leaves no file that looks whole.
                (sink as? WAVFileSink)?.discard()
                try? sink.close()
            }
            if case .failed(let message) = state { throw UserFailure(message: message) }
            if state == .stopped { throw ExitCode(130) }
        }
        if let reader, finished.count > 0 {
            // Said on standard error so that --events json stays pure JSON lines.
            let times = finished.count == 1 ? "once" : "\(finished.count) times"
            warn("\(reader.profile.name) has read “\(story.title)” \(times)")
        }
    }

    private func runInteractive(player: NarrationPlayer, story: Story, sink: any PCMSink, changed: ChangeFlag, first: Int, notice: String?) throws {
        let terminal = try RawTerminal(
            onSignal: { _ in
                sink.interrupt()
                sink.drop()
            },
            onResize: { changed.set() })
        defer { terminal.restore() }
        player.start(sentence: first)
        let blocks = story.blocks
        var lastDrawn: [String] = []
        while true {
            if let input = terminal.readKey(timeoutMilliseconds: 25) {
                let key: Key? = if case .key(let key) = input { key } else { nil }
                switch key {
                case .character("q"), .character("Q"), .escape, .control("c"), .control("d"), nil:
                    player.send(.stop)
                case .space: player.send(.togglePause)
                case .right: player.send(.nextSentence)
                case .left: player.send(.previousSentence)
                case .down: player.send(.nextParagraph)
                case .up: player.send(.previousParagraph)
                case .character("+"), .character("="): player.send(.faster)
                case .character("-"), .character("_"): player.send(.slower)
                case .character("s"): player.send(.setStepMode(player.stepMode == .sentence ? .off : .sentence))
                case .character("p"), .character("S"): player.send(.setStepMode(player.stepMode == .page ? .off : .page))
                default: break
                }
                changed.set()
            }
            let state = player.state
            let done = state == .finished || state == .stopped || { if case .failed = state { true } else { false } }()
            if changed.take() || done {
                let size = TerminalIO.size()
                let position = player.position
                let screen = ReaderScreen(
                    title: Sanitizer.sanitizeLine(story.title), narration: player.narration, blocks: blocks,
                    sentence: position.sentence, word: position.word,
                    status: statusLine(player: player, state: state, position: position), columns: size.columns, lines: size.rows,
                    notice: notice)
                let lines = screen.render()
                if lines != lastDrawn {
                    terminal.write("\u{1B}[H\u{1B}[2J" + lines.joined(separator: "\r\n"))
                    lastDrawn = lines
                }
            }
            if done { break }
        }
        _ = player.wait()
        try? sink.close()
        terminal.restore()
        if case .failed(let message) = player.state { throw UserFailure(message: message) }
    }

    private func statusLine(player: NarrationPlayer, state: NarrationPlayer.State, position: NarrationPlayer.Position) -> String {
        let words: String = switch state {
        case .playing: "Reading"
        case .paused: "Paused"
        case .waitingForStep: player.stepMode == .page ? "Step mode: Space for the next page" : "Step mode: Space for the next sentence"
        case .finished: "The end"
        case .stopped: "Stopped"
        case .idle: "Starting"
        case .failed(let message): "Failed: \(message)"
        }
        let settings = player.settings
        let step = player.isStepMode && state != .waitingForStep ? (player.stepMode == .page ? " · step mode by page" : " · step mode") : ""
        return "\(words) · sentence \(min(position.sentence + 1, player.narration.items.count)) of \(player.narration.items.count) · \(settings.rate) words a minute\(step)"
    }

    /// The child named by --profile, and the store that keeps their reads.
    private func childReading() throws -> (store: StoryStore, profile: ChildProfile, id: Int64)? {
        guard let profile else { return nil }
        let store = try StoreCommandSupport.openStore(global)
        do {
            let child = try store.requireProfile(named: profile)
            guard let id = child.id else { return nil }
            return (store, child, id)
        } catch {
            throw UserFailure(message: error.description)
        }
    }

    private func warn(_ message: String) {
        FileHandle.standardError.write(Data("storyreader: \(Sanitizer.visibleLines(message))\n".utf8))
    }
}

/// Prints heard events: JSON lines, or sentences as captions.
final class EventPrinter: Sendable {
    let narration: Narration
    let json: Bool
    let captions: Bool

    init(narration: Narration, json: Bool, captions: Bool) {
        self.narration = narration
        self.json = json
        self.captions = captions
    }

    func print(_ event: NarrationPlayer.Event) {
        if json, let line = jsonLine(event) {
            FileHandle.standardOutput.write(Data((line + "\n").utf8))
        } else if captions, case .sentence(let index) = event.kind {
            let item = narration.items[index]
            FileHandle.standardOutput.write(Data((Sanitizer.sanitizeLine(item.prefix + item.text) + "\n").utf8))
        }
    }

    func jsonLine(_ event: NarrationPlayer.Event) -> String? {
        switch event.kind {
        case .sentence(let index):
            let item = narration.items[index]
            return Self.object(type: "sentence", text: item.text, range: item.range, ms: event.milliseconds)
        case .word(let sentence, let word):
            let item = narration.items[sentence].words[word]
            return Self.object(type: "word", text: item.text, range: item.range, ms: event.milliseconds)
        case .end:
            return "{\"type\":\"end\",\"ms\":\(event.milliseconds)}"
        default:
            return nil
        }
    }

    static func object(type: String, text: String, range: TextRange, ms: Int) -> String {
        "{\"type\":\"\(type)\",\"text\":\(jsonString(text)),\"start\":\(range.start),\"end\":\(range.end),\"ms\":\(ms)}"
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

/// Stops reading on SIGINT, SIGTERM or SIGHUP when there is no terminal UI: the audio device's
/// buffer is dropped so the sound stops at once.
final class SignalStopper: Sendable {
    private let sources: Mutex<[any DispatchSourceSignal]>

    init(player: NarrationPlayer, sink: any PCMSink) {
        var sources: [any DispatchSourceSignal] = []
        for signalNumber in [SIGINT, SIGTERM, SIGHUP] {
            signal(signalNumber, SIG_IGN)
            let source = DispatchSource.makeSignalSource(signal: signalNumber, queue: .global())
            source.setEventHandler { player.send(.stop) }
            source.resume()
            sources.append(source)
        }
        self.sources = Mutex(sources)
    }

    func cancel() {
        sources.withLock { sources in
            for source in sources { source.cancel() }
            sources.removeAll()
        }
        for signalNumber in [SIGINT, SIGTERM, SIGHUP] { signal(signalNumber, SIG_DFL) }
    }
}

/// "Something changed: draw again", set from any thread.
/// The new read count, set by the player's thread when the last sentence has been heard.
final class FinishedRead: Sendable {
    private let value = Atomic<Int>(0)
    func set(_ count: Int) { value.store(count, ordering: .releasing) }
    /// 0 until a finished read was recorded.
    var count: Int { value.load(ordering: .acquiring) }
}

final class ChangeFlag: Sendable {
    private let value = Atomic<Bool>(true)
    func set() { value.store(true, ordering: .relaxed) }
    /// True once per change.
    func take() -> Bool { value.exchange(false, ordering: .relaxed) }
}
