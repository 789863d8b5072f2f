import Foundation
import StoryKit
#if canImport(Glibc)
import Glibc
#endif

/// The imperative shell around `Session`: reads keys or lines, performs effects, feeds narration
/// progress back. Two modes: a terminal (raw keys, a drawn screen, a `:` command line) and plain
/// lines (a pipe, a script, `TERM=dumb`: one command per line, every utterance a caption line,
/// nothing redrawn).
final class ReplShell {
    private(set) var session: Session
    let store: StoryStore
    /// The parent's authorization from the PIN typed in this visit; dropped when the visit ends.
    private var authorization: ParentalAuthorization?
    let interactive: Bool
    let narrator: any StoryNarration
    let speaker: Speaker
    /// Real speech: the sink, the player-backed narrator and the interface voice (nil: the silent
    /// `Narrator` timeline, `--no-audio` without a terminal).
    let audio: ReplAudio?
    /// Wakes the poll loop when the player or the voice has something (with audio only).
    private let wake: WakePipe?
    private var decoder = KeyDecoder()
    private var lineEditor = LineEditor()
    private var isEditingCommand = false
    private var captions: [String] = []
    private var needsRender = false
    private var exitRequested = false
    private var exitStatus: Int32 = 0
    /// Sentences left before a scripted `wait N` returns (nil: to the end of the story).
    private var waiting: (active: Bool, sentences: Int?) = (false, nil)
    private var pendingLines: [String] = []
    private var inputClosed = false
    /// Where captions go without a terminal (standard output); false when they cannot go there
    /// any more (the reader of the pipe went away).
    var printCaption: (String) -> Bool = { line in TerminalIO.writeAll(line + "\n", to: STDOUT_FILENO) }

    /// The command line's presentation flags (they beat the profile's settings).
    let presentation: PresentationOptions
    /// What the terminal can draw large.
    let scaling: TextScaling
    private let style: TerminalStyle
    /// The cursor is shown (`--cursor`); it is placed on the focus either way.
    private let showsCursor: Bool
    /// Kiosk mode (nil in the REPL): ticks, the PIN check, hardening (`KioskGuard.swift`).
    var kiosk: KioskHooks?

    /// - Parameter audio: where speech goes (nil: no speech engine; `clock` says how time passes).
    init(session: Session, store: StoryStore, interactive: Bool, clock: Narrator.Clock,
         presentation: PresentationOptions, scaling: TextScaling, audio: ReplAudio? = nil) {
        self.session = session
        self.session.runsWithoutScreen(!interactive)
        self.presentation = presentation
        self.scaling = scaling
        style = presentation.terminalStyle()
        showsCursor = presentation.showsCursor()
        self.store = store
        self.interactive = interactive
        self.audio = audio
        if let audio {
            let wake = WakePipe()
            self.wake = wake
            let player = PlayerNarrator(sink: audio.sink, wake: wake)
            narrator = player
            speaker = Speaker(clock: .paced, voice: InterfaceVoice(sink: audio.sink, wake: wake))
            speaker.resolveVoice = { player.resolveVoice($0 ?? "en").voice }
            player.prepareVoices(Array(Set(session.catalog.entries.map(\.language) + InterfaceLanguage.supported)).sorted())
        } else {
            wake = nil
            narrator = Narrator(clock: clock)
            speaker = Speaker(clock: clock)
        }
        speaker.settings = { [unowned self] in self.interfaceSettings }
        if let path = ProcessInfo.processInfo.environment["STORYREADER_SPEECH_LOG"], !path.isEmpty,
           FileManager.default.createFile(atPath: path, contents: nil), let log = FileHandle(forWritingAtPath: path) {
            speaker.trace = { line in log.write(Data((line + "\n").utf8)) }
            (narrator as? PlayerNarrator)?.trace = speaker.trace
        }
        speaker.onStory = { [unowned self] running in
            if running { self.narrator.run(now: monotonicNanoseconds()) } else { self.narrator.hold() }
        }
    }

    // MARK: - Running

    /// Runs until the session exits; `opening` is what the session says and does first (the REPL's
    /// greeting, or `read`'s story).
    func run(opening: (inout Session) -> [Effect] = { $0.start() }) throws -> Int32 {
        TerminalMode.installSignalHandlers()
        if kiosk != nil { KioskGuard.harden() }
        if interactive {
            try TerminalMode.enterRaw()
            let size = TerminalMode.size()
            _ = session.handle(.resize(columns: size.columns, rows: size.rows))
        }
        defer { TerminalMode.restore() }
        if let notice = audio?.notice {
            // No audio device: said (silently paced) and shown once.
            caption(notice)
            speaker.submit(interfaceUtterance(session.state.tr("No sound device: reading silently, with the words shown at speaking pace."), priority: .message),
                           now: monotonicNanoseconds())
        }
        perform(opening(&session))
        render()
        while !exitRequested {
            step()
            render()
        }
        render()
        // A celebration as `read` ends is seen to its last frame (about 400 ms at most).
        while let pending = animation {
            let now = monotonicNanoseconds()
            if pending.at > now { usleep(useconds_t((pending.at - now) / 1000)) }
            advanceAnimation(now: monotonicNanoseconds())
        }
        narrator.stop()
        finishSpeaking()
        speaker.silence()
        try? audio?.sink.close()
        return exitStatus
    }

    /// The last words ("The end.", "Goodbye.") are heard before the program ends: at most 3 s,
    /// and only with a voice (captions were printed already).
    private func finishSpeaking() {
        guard speaker.voice != nil else { return }
        let deadline = monotonicNanoseconds() + 3_000_000_000
        while speaker.queue.speaking != nil || !speaker.queue.pending.isEmpty, monotonicNanoseconds() < deadline {
            var descriptor = pollfd(fd: wake?.read ?? -1, events: Int16(POLLIN), revents: 0)
            _ = poll(&descriptor, 1, 20)
            wake?.drain()
            speaker.tick(now: monotonicNanoseconds())
        }
    }

    /// One turn of the loop: wait for input, a signal or a deadline, then handle what came.
    private func step() {
        wake?.drain()
        let now = monotonicNanoseconds()
        advanceAnimation(now: now)
        tickKiosk()
        speaker.tick(now: now)
        pumpNarration(now: now)
        if exitRequested { return }
        if !interactive, !waiting.active, !pendingLines.isEmpty {
            handleLine(pendingLines.removeFirst())
            render()
            return
        }
        if !interactive, inputClosed, pendingLines.isEmpty, !waiting.active {
            // End of the script: let a story being read finish, then leave.
            if session.state.reader?.status == .playing, narrator.isLoaded {
                waiting = (true, nil)
                if narrator.clock == .virtual { driveWait() }
                return
            }
            perform(session.handle(.command(.quit)))
            return
        }
        var deadlines = [speaker.deadline, narrator.nextDeadline, kioskDeadline(now: now), animation?.at].compactMap { $0 }
        if waiting.active, narrator.clock == .virtual { driveWait(); return }
        if waiting.active, !narrator.isLoaded { waiting = (false, nil); return }
        var timeout: Int32 = -1
        if let nearest = deadlines.min() {
            timeout = Int32(min(1000, max(0, (Int64(nearest) - Int64(now)) / 1_000_000 + 1)))
        }
        if decoder.hasPending { timeout = timeout < 0 ? KeyDecoder.escapeDelayMilliseconds : min(timeout, KeyDecoder.escapeDelayMilliseconds) }
        deadlines.removeAll()
        var fds = [pollfd(fd: STDIN_FILENO, events: Int16(POLLIN), revents: 0),
                   pollfd(fd: TerminalMode.signalPipe.read, events: Int16(POLLIN), revents: 0),
                   pollfd(fd: wake?.read ?? -1, events: Int16(POLLIN), revents: 0)]
        if inputClosed || (waiting.active) { fds[0].fd = -1 }
        let ready = poll(&fds, nfds_t(fds.count), timeout)
        for signal in TerminalMode.pendingSignals() { handle(signal: signal) }
        tickKiosk()
        if ready <= 0 {
            if decoder.hasPending { handleKeys(decoder.flush()) }
            return
        }
        if fds[0].revents != 0 {
            var buffer = [UInt8](repeating: 0, count: 4096)
            let count = read(STDIN_FILENO, &buffer, buffer.count)
            if count <= 0 {
                if count < 0, errno == EINTR || errno == EAGAIN { return }
                inputClosed = true
                if interactive { perform(session.handle(.shutdown)) }
                // A last line without its newline (printf 'stop') is a command like the others.
                if !partialLine.isEmpty { receive([0x0A]) }
                return
            }
            let bytes = Array(buffer[0..<count])
            if interactive {
                handleKeys(decoder.feed(bytes))
            } else {
                receive(bytes)
            }
        }
        render()
    }

    private var partialLine: [UInt8] = []

    /// Kiosk: time passes (idle reset, time limit, lockout countdown).
    private func tickKiosk() {
        guard let kiosk, !exitRequested else { return }
        perform(session.handle(.tick(kiosk.clock.now())))
    }

    /// Kiosk: the session's next deadline on the shell's clock.
    private func kioskDeadline(now: UInt64) -> UInt64? {
        guard let kiosk, let deadline = session.kioskDeadline else { return nil }
        return now + UInt64(max(0, deadline - kiosk.clock.now()) * 1_000_000_000)
    }

    private func receive(_ bytes: [UInt8]) {
        for byte in bytes {
            if byte == 0x0A {
                pendingLines.append(String(decoding: partialLine, as: UTF8.self))
                partialLine = []
            } else if byte != 0x0D {
                partialLine.append(byte)
            }
        }
    }

    private func handle(signal: Int32) {
        switch signal {
        case SIGWINCH:
            let size = TerminalMode.size()
            perform(session.handle(.resize(columns: size.columns, rows: size.rows)))
            // The terminal may have lost what was drawn: draw it all again.
            drawn = []
            needsRender = true
            render()
        default:
            // SIGTERM, SIGHUP, SIGINT, SIGQUIT: keep the reading position, restore the terminal, leave.
            perform(session.handle(.shutdown))
            exitStatus = 128 + signal
            exitRequested = true
        }
    }

    // MARK: - Input

    private func handleKeys(_ keys: [Key]) {
        if kiosk != nil, !keys.isEmpty { session.noteKioskActivity() }  // also keys typed on the command line
        for key in keys where !exitRequested {
            if isEditingCommand {
                switch lineEditor.handle(key) {
                case .editing:
                    if let message = lineEditor.message {
                        say(message)
                    } else if let echo = lineEditor.echo, presentation.keyEcho {
                        // Key echo is shown by the command line itself, so it is not captioned.
                        // Interface chatter: each letter replaces the last, and a story is never cut.
                        speaker.submit(interfaceUtterance(echo, priority: .text), now: monotonicNanoseconds())
                    }
                case .cancelled:
                    isEditingCommand = false
                    say(session.state.tr("Cancelled."))
                case .submitted(let line):
                    isEditingCommand = false
                    handleLine(line)
                }
                needsRender = true
            } else if key == .character(":"), !session.state.isLearning {
                isEditingCommand = true
                lineEditor.begin()
                lineEditor.storyNames = session.catalog.entries.flatMap { [$0.title, $0.id] }
                lineEditor.messages = session.state.messages
                say(session.state.tr("Command."))
                needsRender = true
            } else {
                perform(session.handle(.key(key)))
            }
        }
    }

    /// Says and shows something of the shell's own (the command line's words).
    private func say(_ text: String) {
        caption(text)
        speaker.submit(interfaceUtterance(text, priority: .text), now: monotonicNanoseconds())
    }

    /// Something of the shell's own, said in the interface's language (its voice when the
    /// profile names none).
    private func interfaceUtterance(_ text: String, priority: AnnouncementPriority) -> Utterance {
        var utterance = Utterance(text, priority: priority)
        utterance.language = session.state.language
        return utterance
    }

    private func handleLine(_ line: String) {
        do {
            guard let command = try CommandParser.parse(line) else { return }
            if case .wait(let count) = command {
                guard session.state.reader?.status == .playing, narrator.isLoaded else { return }
                waiting = (true, count)
                if narrator.clock == .virtual { driveWait() }
                return
            }
            perform(session.handle(.command(command)))
        } catch {
            perform(session.handle(.invalid(error.description)))
        }
    }

    /// Virtual time: the story runs until the wait is over, event by event.
    private func driveWait() {
        while waiting.active {
            guard let event = narrator.takeEvent(now: monotonicNanoseconds(), force: true) else {
                waiting = (false, nil)
                break
            }
            deliver(event)
        }
    }

    private func pumpNarration(now: UInt64) {
        while let event = narrator.takeEvent(now: now, force: false) { deliver(event) }
    }

    private func deliver(_ event: NarrationEvent) {
        if case .sentenceFinished = event, waiting.active, let left = waiting.sentences {
            waiting.sentences = left - 1
        }
        if event == .finished {
            narrator.stop()
            speaker.storyFinished(now: monotonicNanoseconds())
        }
        perform(session.handle(.narration(event)))
        if waiting.active, event == .finished || (waiting.sentences.map { $0 <= 0 } ?? false) || !narrator.isLoaded || !narrator.isRunning {
            waiting = (false, nil)
        }
    }

    // MARK: - Effects

    func perform(_ effects: [Effect]) {
        let now = monotonicNanoseconds()
        for effect in effects {
            switch effect {
            case .speak(let utterance):
                caption(utterance.text)
                speaker.submit(utterance, now: now)
            case .caption(let text):
                caption(text)
            case .narrate(let storyID, let fromWord, let settings, let stepMode):
                guard let story = session.state.reader?.story, story.id == storyID else { break }
                Syllables.preload(story.language)
                narrator.stop()
                narrator.messages = session.state.messages
                if let notice = narrator.load(story: story, fromWord: fromWord, settings: settings, stepMode: stepMode) {
                    // A language without a voice (once per language), or nothing to say.
                    caption(notice)
                    speaker.submit(interfaceUtterance(notice, priority: .message), now: now)
                }
                speaker.submit(.story(story.title), now: now)
            case .pauseNarration, .stopNarration:
                narrator.stop()
                speaker.storyStopped(now: now)
                if waiting.active { waiting = (false, nil) }
            case .changeSpeech(let settings):
                if let player = narrator as? PlayerNarrator {
                    // Rate, pitch and volume change from the next sentence; the voice stays.
                    player.change(settings: settings)
                } else if let reader = session.state.reader, narrator.isLoaded {
                    let running = narrator.isRunning
                    narrator.load(story: reader.story, fromWord: reader.wordIndex, settings: settings, stepMode: reader.stopsAfterSentence)
                    if running { narrator.run(now: now) }
                }
            case .preview(let settings, let text):
                caption(session.state.tr("Preview: {text}", ["text": text]))
                speaker.submit(interfaceUtterance(text, priority: .text), settings: settings, now: now)
            case .speakWith(let utterance, let settings):
                caption(utterance.text)
                speaker.submit(utterance, settings: settings, now: now)
            case .motion(let cue):
                motionCue = cue
                needsRender = true
            case .render:
                needsRender = true
            case .save(let change):
                if let reply = store.apply(change, authorization: authorization) { perform(session.handle(.stored(reply))) }
            case .checkPIN(let pin):
                checkPIN(pin)
            case .exit:
                exitRequested = true
            }
        }
        // The authorization serves the saves of one parent's visit only.
        if !session.state.settingsUnlocked { authorization = nil }
    }

    /// The store checks the PIN (counting wrong tries, locking after five).
    private func checkPIN(_ pin: String) {
        do {
            authorization = try store.authorize(pin: pin)
            perform(session.handle(.pinChecked(true)))
        } catch {
            switch error {
            case .pinLocked(let remaining), .wrongPIN(_, lockedFor: .some(let remaining)):
                perform(session.handle(.pinLocked(remaining: remaining)))
            case .wrongPIN, .pinFormat, .pinRequired:
                perform(session.handle(.pinChecked(false)))
            default:
                let message = session.state.tr("Could not check the PIN: {problem}", ["problem": SpokenForm.finish(error.description)])
                caption(message)
                speaker.submit(interfaceUtterance(message, priority: .important), now: monotonicNanoseconds())
                perform(session.handle(.pinChecked(false)))
            }
        }
    }

    /// What interface speech sounds like: the profile's rate, pitch, volume and voice (its voice
    /// when one is chosen, else the interface's language).
    private var interfaceSettings: SpeechSettings { session.state.profile.speech }

    private func caption(_ text: String) {
        let line = Sanitizer.sanitizeLine(text)
        if interactive {
            captions.append(line)
            if captions.count > 50 { captions.removeFirst(captions.count - 50) }
            needsRender = true
        } else if !printCaption(line), !exitRequested {
            // Nobody reads the captions any more: keep the place and leave, as on a closed input.
            inputClosed = true
            perform(session.handle(.shutdown))
        }
    }

    // MARK: - Drawing

    /// The frame on the terminal now, so that nothing unchanged is drawn again.
    private var drawn: [String] = []
    /// A moment the session asked to show moving, drawn with the next render.
    private var motionCue: MotionCue?
    /// Frames still to draw, and when the next one is due.
    private var animation: (frames: [MotionFrame], next: Int, at: UInt64)?

    private var motion: MotionPolicy {
        MotionPolicy.resolve(session.state.profile.motion, environment: ProcessInfo.processInfo.environment,
                             isTTY: interactive && style.attributes)
    }

    /// Where the cursor was put last.
    private var drawnCursor: TerminalPosition?

    /// Writes what changed; then the cursor goes where screen readers and braille displays look
    /// (the focused item, the word being heard, the end of a typed command).
    private func draw(_ lines: [String], cursor: TerminalPosition? = nil) {
        let cursor = cursor ?? drawnCursor
        guard lines != drawn || cursor != drawnCursor else { return }
        var output = ""
        if lines != drawn {
            output = "\u{1B}[H"
            let columns = session.state.options.columns
            for (index, line) in lines.enumerated() {
                // The rest of a shorter line is cleared in the line's own colours. A line that
                // fills the row is not: the cursor waits in its last column, and there xterm's
                // and VTE's erase takes the last character with it ("Appuie" drawn "Appui").
                let clear = TerminalText.visibleWidth(line) < columns ? "\u{1B}[K" : ""
                output += line + clear + (index + 1 < lines.count ? "\r\n" : "")
            }
            output += "\u{1B}[J"
        }
        if let cursor {
            output += "\u{1B}[\(cursor.line + 1);\(cursor.column + 1)H" + (showsCursor ? "\u{1B}[?25h" : "")
        }
        drawn = lines
        drawnCursor = cursor
        TerminalMode.write(output)
    }

    /// Draws the animation's next frame when it is due.
    private func advanceAnimation(now: UInt64) {
        guard let current = animation, now >= current.at else { return }
        let frame = current.frames[current.next]
        draw(frame.lines)
        animation = current.next + 1 < current.frames.count
            ? (current.frames, current.next + 1, now + UInt64(frame.milliseconds) * 1_000_000) : nil
    }

    private func render() {
        guard interactive, needsRender else { return }
        needsRender = false
        let options = session.state.options
        let profile = session.state.profile
        let renderOptions = RenderOptions(
            textSize: profile.textSize,
            theme: profile.theme,
            style: style, scaling: scaling,
            aids: profile.settings.aids, language: session.state.reader?.story.language)
        let screen = session.screen
        let frame = ScreenFrame(
            screen: screen, focusedID: session.state.focusedID, captions: captions,
            commandLine: isEditingCommand ? lineEditor.text : nil,
            keyHelp: screen.kind == .reader ? ScreenFrame.readingKeyHelp : ScreenFrame.screenKeyHelp,
            columns: options.columns, rows: options.rows)
        let (lines, cursor) = frame.render(options: renderOptions)
        // Anything new on screen ends an animation: the word being heard is never held back.
        animation = nil
        if let cue = motionCue {
            motionCue = nil
            // Never while a command is typed, and one still frame with reduced motion.
            let frames = isEditingCommand || drawn.isEmpty ? []
                : motion.liveFrames(for: cue, from: drawn, to: lines, options: renderOptions, width: options.columns)
            if frames.count > 1 {
                animation = (frames, 0, 0)
                drawnCursor = cursor
                advanceAnimation(now: monotonicNanoseconds())
                return
            }
        }
        draw(lines, cursor: cursor)
    }
}

/// Where the REPL's speech goes: a sink (the audio device, or paced silence) and the notice to
/// show and say once when the device could not be opened.
struct ReplAudio {
    var sink: any PCMSink
    var notice: String?
}
