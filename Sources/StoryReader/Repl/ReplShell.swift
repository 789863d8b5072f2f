import Foundation
import StoryKit
import Synchronization

#if canImport(Glibc)
    import Glibc
#endif

/// The imperative shell around `Session`: reads keys or lines, performs effects, feeds narration
/// progress back. Two modes: a terminal (raw keys, a drawn screen, a `:` command line) and plain
/// lines (a pipe, a script, `TERM=dumb`: one command per line, every utterance a caption line,
/// nothing redrawn).
final class ReplShell {
    /// Changed only by this shell's loop (here and in its extensions).
    var session: Session
    let store: StoryStore
    /// The parent's authorization from the PIN typed in this visit; dropped when the visit ends.
    private var authorization: ParentalAuthorization?
    let interactive: Bool
    /// Everything said: the speech service on the audio sink, or the silent timeline of scripts.
    let speech: any ReplSpeech
    /// Real speech: the sink and the notice of a missing device (nil: the silent timeline,
    /// `--no-audio` without a terminal).
    let audio: ReplAudio?
    /// The loop's one inbox: keys, script lines, speech, the braille display, work done off the
    /// loop and signals all come through it, in order, and reach the Session through `update`.
    let inbox = Inbox<LoopMessage>()
    /// Inputs handled so far (keys, lines): what is said is stamped with the input it answers, so
    /// that a newer key's answer cuts an older one's.
    private var inputCount = 0
    /// Work the Session asks for that reads or writes files (a story read in, every store write,
    /// the PIN's hash): it runs here, off the loop, in order, and its result comes back through the
    /// inbox.
    private let work = DispatchQueue(label: "storyreader.store")
    private var workPending = 0

    enum WorkResult: Sendable {
        case stored(StoreReply?)
        case pin(Result<ParentalAuthorization, StoreError>)
        case story(id: String, Story?)
        case library(StoryLibrary)
    }
    /// Where the stories the Session asks for are read from (nil: only those it holds).
    var library: StoryLibrary?
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
    /// The place a crash would keep now (`ReplShell+Crash.swift`).
    var crashPlace: CrashPlace?
    /// Tests only: `STORYREADER_TEST_CRASH=SIGNAL:SENTENCE` (`ReplShell+Crash.swift`).
    let crashTrigger = CrashTrigger(ProcessInfo.processInfo.environment["STORYREADER_TEST_CRASH"])
    /// Kiosk mode (nil in the REPL): ticks, the PIN check, hardening (`KioskGuard.swift`).
    var kiosk: KioskHooks?
    /// The braille display (`--braille`; nil: off). See `ReplShell+Braille.swift`.
    var braille: ReplBraille?
    /// The read-along coach's microphone (`--mic`, else `$STORYREADER_MIC_DEVICE`, else `default`),
    /// opened only while the child reads to the coach, and the listening then (`Effect.listen`).
    var microphoneDevice: String?
    private var listening: ReplListening?
    /// What the listening was told last: the program is speaking.
    private var microphoneHearsProgram = false
    /// `read --coach --events json`: each word the coach heard, helped with or saw passed over, as
    /// the Session takes it (news of an ended listening is not printed).
    var coachEvents: ((CoachEvent) -> Void)?

    /// - Parameter audio: where speech goes (nil: no sound at all, a script's virtual time).
    init(
        session: Session, store: StoryStore, interactive: Bool,
        presentation: PresentationOptions, scaling: TextScaling, audio: ReplAudio? = nil
    ) {
        self.session = session
        self.session.runsWithoutScreen(!interactive)
        self.presentation = presentation
        self.scaling = scaling
        style = presentation.terminalStyle()
        showsCursor = presentation.showsCursor()
        self.store = store
        self.interactive = interactive
        self.audio = audio
        // The reading syllables of the stories the Session holds, before the loop: drawing reads no file.
        for language in Set(session.catalog.heldStories.map(\.language)) { Syllables.preload(language) }
        let inbox = self.inbox
        // A script without sound runs the same speech service, on a clock that moves when it waits
        // (its events wait for the script there, not in the loop's inbox).
        let service =
            audio.map { ServiceSpeech(sink: $0.sink, post: { inbox.send(.speech($0)) }) } ?? ServiceSpeech(sink: VirtualClockSink())
        service.messages = session.state.messages
        // Every voice the library and the interface may need, resolved once, now.
        service.prepareVoices(Array(Set(session.catalog.entries.map(\.language) + InterfaceLanguage.supported)).sorted())
        speech = service
        service.interfaceSettings = { [unowned self] in self.interfaceSettings }
        speech.trace = ServiceSpeech.speechLog()
    }

    // MARK: - Running

    /// Runs until the session exits; `opening` is what the session says and does first (the REPL's
    /// greeting, or `read`'s story).
    func run(opening: (inout Session) -> [Effect] = { $0.start() }) throws -> Int32 {
        TerminalMode.installSignalHandlers()
        CrashGuard.install(messages: session.state.messages)
        if kiosk != nil { KioskGuard.harden() }
        if interactive {
            try TerminalMode.enterRaw()
            let size = TerminalMode.size()
            update(.resize(columns: size.columns, rows: size.rows))
        }
        defer { TerminalMode.restore() }
        if let notice = audio?.notice {
            // No audio device: said (silently paced) and shown once.
            update(.shell(.noSoundDevice(reason: notice)))
        }
        // What was sent before the loop began (`read`'s notice that --coach cannot coach) comes
        // first, through the one door like every input.
        deliverInbox()
        perform(opening(&session))
        render()
        followBraille()
        while !exitRequested {
            step()
            render()
            followBraille()
            tellListeningOfSpeech()
        }
        render()
        // A celebration as `read` ends is seen to its last frame (about 400 ms at most).
        while let pending = animation {
            let now = monotonicNanoseconds()
            if pending.at > now { usleep(useconds_t((pending.at - now) / 1000)) }
            advanceAnimation(now: monotonicNanoseconds())
        }
        finishWork()
        listening?.stop()
        speech.stopStory()
        if !endedBySignal { finishSpeaking() }
        speech.silence()
        braille?.stop()
        // The sink is closed only once the speech thread let go of it (a few milliseconds).
        let quiet = monotonicNanoseconds() + 500_000_000
        while speech.isAudible, speech.isBusy, monotonicNanoseconds() < quiet { usleep(1_000) }
        try? audio?.sink.close()
        return exitStatus
    }

    /// The last words ("The end.", "Goodbye.") are heard before the program ends: at most 3 s,
    /// and only with a voice (captions were printed already). A signal ends at once (a systemd
    /// stop or a shutdown does not wait for a goodbye); so does another signal while waiting.
    private func finishSpeaking() {
        // A script without sound hears them out at once: the speech log ends with them too ("The
        // end.", the coach's tally), as it does after every other line.
        guard speech.isAudible else { return speech.settle() }
        let deadline = monotonicNanoseconds() + 3_000_000_000
        while speech.isBusy, monotonicNanoseconds() < deadline {
            var descriptors = [
                pollfd(fd: inbox.wake.read, events: Int16(POLLIN), revents: 0),
                pollfd(fd: TerminalMode.signalPipe.read, events: Int16(POLLIN), revents: 0),
            ]
            _ = poll(&descriptors, 2, 20)
            if !TerminalMode.pendingSignals().filter({ $0 != SIGWINCH }).isEmpty { return }
            // The last words are heard out; what they report changes nothing any more.
            for case .speech(let event) in inbox.take() { _ = speech.receive([event]) }
        }
    }

    /// The program is ending because of a signal (SIGTERM, SIGHUP, SIGINT).
    private var endedBySignal = false

    /// One turn of the loop: wait for input, a signal or a deadline, then handle what came.
    private func step() {
        let now = monotonicNanoseconds()
        advanceAnimation(now: now)
        // What changed while the animation played is drawn as soon as its last frame is: the poll
        // below may wait for the next key (it once left Settings undrawn behind a page reveal).
        render()
        tickKiosk()
        tickBedtime()
        for event in speech.tick(now: now) { deliver(event) }
        deliverInbox()
        // What came through the inbox is drawn, and the display shows what was heard, before the
        // loop waits again: news that no speech follows (the coach's word heard while the program
        // is silent) would otherwise wait for the next key or deadline to be seen.
        render()
        followBraille()
        if exitRequested { return }
        // Without sound, what the interface says is heard before the script goes on (no story
        // time passes): the opening's words, each line's answer.
        speech.settle()
        // A script's next line waits for what the last one started (a save, the PIN's check).
        if !interactive, workPending > 0 {
            var descriptor = pollfd(fd: inbox.wake.read, events: Int16(POLLIN), revents: 0)
            _ = poll(&descriptor, 1, 1000)
            return
        }
        if !interactive, !waiting.active, !pendingLines.isEmpty {
            send(.line(pendingLines.removeFirst()))
            render()
            return
        }
        // While the child reads to the coach, the end of a script waits for the coach's end (the
        // last word, or the microphone's), as it waits for a story being read.
        if !interactive, inputClosed, pendingLines.isEmpty, !waiting.active, session.state.coaching == nil {
            // End of the script: let a story being read finish, then leave.
            if session.state.reader?.status == .playing, speech.isStoryLoaded {
                waiting = (true, nil)
                if speech.clock == .virtual { driveWait() }
                return
            }
            update(.command(.quit))
            // Learn mode explains `quit` instead of doing it, and a form may ask first: the end of
            // the input ends the program all the same, keeping the place.
            if !exitRequested {
                update(.shutdown)
                exitRequested = true
            }
            return
        }
        var deadlines = [speech.deadline, kioskDeadline(now: now), animation?.at, braille?.deadline].compactMap { $0 }
        if waiting.active, speech.clock == .virtual {
            driveWait()
            return
        }
        if waiting.active, !speech.isStoryLoaded {
            waiting = (false, nil)
            return
        }
        var timeout: Int32 = -1
        if let nearest = deadlines.min() {
            timeout = Int32(min(1000, max(0, (Int64(nearest) - Int64(now)) / 1_000_000 + 1)))
        }
        if decoder.hasPending { timeout = timeout < 0 ? KeyDecoder.escapeDelayMilliseconds : min(timeout, KeyDecoder.escapeDelayMilliseconds) }
        deadlines.removeAll()
        // Three descriptors: the terminal (or the script), the signal handler's pipe (a handler
        // cannot take the inbox's lock) and the inbox, which every other source sends to.
        var fds = [
            pollfd(fd: STDIN_FILENO, events: Int16(POLLIN), revents: 0),
            pollfd(fd: TerminalMode.signalPipe.read, events: Int16(POLLIN), revents: 0),
            pollfd(fd: inbox.wake.read, events: Int16(POLLIN), revents: 0),
        ]
        if inputClosed || (waiting.active) { fds[0].fd = -1 }
        let ready = poll(&fds, nfds_t(fds.count), timeout)
        for signal in TerminalMode.pendingSignals() { send(.signal(signal)) }
        tickKiosk()
        if ready <= 0 {
            if decoder.hasPending { send(.keys(decoder.flush())) }
            keysPendingSince = nil
            return
        }
        // Speech, braille or finished work woke the loop before the delay was up: a half
        // sequence still ends once the delay has passed since its bytes came (woken often enough,
        // it used to wait for the next key and take it in).
        if decoder.hasPending, fds[0].revents == 0, let since = keysPendingSince,
            monotonicNanoseconds() - since >= UInt64(KeyDecoder.escapeDelayMilliseconds) * 1_000_000
        {
            send(.keys(decoder.flush()))
            keysPendingSince = nil
        }
        if fds[0].revents != 0 {
            var buffer = [UInt8](repeating: 0, count: 4096)
            let count = read(STDIN_FILENO, &buffer, buffer.count)
            if count <= 0 {
                if count < 0, errno == EINTR || errno == EAGAIN { return }
                inputClosed = true
                if interactive { update(.shutdown) }
                // A last line without its newline (printf 'stop') is a command like the others.
                if !partialLine.isEmpty { receive([0x0A]) }
                return
            }
            let bytes = Array(buffer[0..<count])
            if interactive {
                send(.keys(decoder.feed(bytes)))
                keysPendingSince = decoder.hasPending ? monotonicNanoseconds() : nil
            } else {
                receive(bytes)
            }
        }
        render()
    }

    private var partialLine: [UInt8] = []
    /// When the bytes that left the decoder waiting came (a lone ESC, half a sequence).
    private var keysPendingSince: UInt64?

    /// Kiosk: time passes (idle reset, time limit, lockout countdown).
    private func tickKiosk() {
        guard let kiosk, !exitRequested else { return }
        update(.tick(kiosk.clock.now()))
    }

    /// A bedtime timer of minutes counts by the shell's clock (the kiosk's ticks tell it there).
    /// While a story plays the speech's deadlines wake the loop often enough to stop in time.
    private func tickBedtime() {
        guard kiosk == nil, !exitRequested, session.bedtimeCounts else { return }
        update(.tick(clock.now()))
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
            update(.resize(columns: size.columns, rows: size.rows))
            // The terminal may have lost what was drawn: draw it all again, at the new size.
            animation = nil
            drawn = []
            needsRender = true
            render()
        default:
            // SIGTERM, SIGHUP, SIGINT, SIGQUIT: keep the reading position, restore the terminal, leave.
            update(.shutdown)
            exitStatus = 128 + signal
            exitRequested = true
            endedBySignal = true
        }
    }

    // MARK: - Input

    /// The monotonic clock keys are timed by outside the kiosk (type-ahead's pause).
    var clock: any MonotonicClock = SystemMonotonicClock()

    func handleKeys(_ keys: [Key]) {
        if kiosk != nil, !keys.isEmpty { update(.activity) }  // also keys typed on the command line
        // The kiosk's loop ticks already; here the time is told with the keys.
        if kiosk == nil, !keys.isEmpty { update(.tick(clock.now())) }
        for key in keys where !exitRequested {
            inputCount += 1
            if isEditingCommand {
                switch lineEditor.handle(key) {
                case .editing:
                    if let message = lineEditor.message {
                        update(.shell(.commandLineMessage(message)))
                    } else if let echo = lineEditor.echo, presentation.keyEcho {
                        update(.shell(.commandLineEcho(echo)))
                    }
                case .cancelled:
                    isEditingCommand = false
                    dropEchoCaption()
                    update(.shell(.commandLineCancelled))
                case .submitted(let line):
                    isEditingCommand = false
                    // The line typed is done with: its last letter's caption leaves room for the answer.
                    dropEchoCaption()
                    handleLine(line)
                }
                needsRender = true
            } else if key == .character(":"), !session.state.isLearning {
                isEditingCommand = true
                lineEditor.begin()
                lineEditor.stories = session.catalog.entries.map { ($0.title, $0.id) }
                lineEditor.messages = session.state.messages
                update(.shell(.commandLineOpened))
                needsRender = true
            } else {
                update(.key(key))
            }
        }
    }

    /// The last caption is the `:` line's key echo (replaced by the next letter, dropped when the
    /// line is submitted or cancelled).
    private var echoCaptioned = false

    private func dropEchoCaption() {
        if echoCaptioned, !captions.isEmpty { captions.removeLast() }
        echoCaptioned = false
    }

    /// The one door into the Session: every input, whatever its source (keys, lines, speech,
    /// the braille display, work done off the loop, signals, time), is handed over here, and what
    /// the Session answers is performed.
    func update(_ input: Input) {
        observeUpdate?(input)
        perform(session.handle(input))
        keepPlaceForCrash()
    }

    /// Sees every input as it goes through the door (the inbox's test).
    var observeUpdate: ((Input) -> Void)?

    /// Hands an utterance to speech, stamped with the input it answers.
    func speak(_ utterance: Utterance, settings: SpeechSettings? = nil) {
        var stamped = utterance
        stamped.input = inputCount
        speech.say(stamped, settings: settings)
    }

    /// Something of the shell's own, said in the interface's language (its voice when the
    /// profile names none).
    func interfaceUtterance(_ text: String, priority: AnnouncementPriority) -> Utterance {
        var utterance = Utterance(text, priority: priority)
        utterance.language = session.state.language
        return utterance
    }

    private func handleLine(_ line: String) {
        inputCount += 1
        do {
            guard let command = try CommandParser.parse(line) else { return }
            if case .wait(let count) = command {
                guard session.state.reader?.status == .playing, speech.isStoryLoaded else { return }
                waiting = (true, count)
                if speech.clock == .virtual { driveWait() }
                return
            }
            update(.command(command))
        } catch {
            update(.invalid(error.localized(session.state.messages)))
        }
    }

    /// Virtual time: the story runs until the wait is over, event by event.
    private func driveWait() {
        while waiting.active {
            guard let event = speech.takeVirtualEvent() else {
                waiting = (false, nil)
                break
            }
            deliver(event)
        }
    }

    // MARK: - The inbox

    /// Sends `message` to the loop's inbox and delivers what waits there, this one last: keys and
    /// lines are read on the loop's thread and handled in the turn they came, after what came before.
    func send(_ message: LoopMessage) {
        inbox.send(message)
        deliverInbox()
    }

    /// Hands everything in the inbox on, in the order it came (the loop's thread).
    func deliverInbox() {
        for message in inbox.take() where !exitRequested || message.isWork {
            receive(message)
        }
    }

    /// One message from the inbox: what the Session must hear of it goes through `update`.
    private func receive(_ message: LoopMessage) {
        switch message {
        case .keys(let keys):
            handleKeys(keys)
        case .line(let line):
            handleLine(line)
        case .speech(let event):
            for heard in speech.receive([event]) { deliver(heard) }
            // A clip of the recording could not be played: eSpeak NG read it, and it is said once.
            for notice in speech.takeNotices() { update(.shell(.notice(notice))) }
        case .braille(let event):
            receiveBraille(event)
        case .work(let result):
            workPending -= 1
            switch result {
            case .stored(let reply):
                if let reply { update(.stored(reply)) }
            case .pin(let checked):
                pinChecked(checked)
            case .story(let id, let story):
                update(.storyLoaded(id: id, story))
            case .library(let library):
                self.library = library
                store.storyTitles.know(library.entries.map { ($0.id, $0.title) })
                speech.prepareVoices(Array(Set(library.entries.map(\.language))).sorted())
                update(.libraryLoaded(library.entries, unreadable: library.problems.filter { $0.severity == .error }.count))
            }
        case .signal(let signal):
            handle(signal: signal)
        case .input(let input):
            if case .coach(let news) = input, case .event(let event, _) = news, news.listening == session.state.coaching?.listening {
                coachEvents?(event)
            }
            update(input)
        }
    }

    private func deliver(_ event: NarrationEvent) {
        if case .sentenceFinished = event, waiting.active, let left = waiting.sentences {
            waiting.sentences = left - 1
        }
        if case .word = event { braille?.storyHeard() }
        update(.narration(event))
        if waiting.active,
            event == .finished || (waiting.sentences.map { $0 <= 0 } ?? false) || !speech.isStoryLoaded
                || (speech.clock == .virtual && !speech.isStoryRunning)
        {
            waiting = (false, nil)
        }
    }

    // MARK: - Effects

    func perform(_ effects: [Effect]) {
        for effect in effects {
            switch effect {
            case .speak(let utterance):
                caption(utterance.text)
                speak(utterance)
                announceInBraille(utterance.text)
            case .caption(let text):
                caption(text)
            case .tell(let utterance, let shown):
                caption(shown)
                speak(utterance)
            case .echo(let utterance):
                // Captioned like everything said (a deaf-blind reader's braille shows the
                // captions), on one line that each letter replaces, as it cuts the one before.
                if echoCaptioned, !captions.isEmpty { captions.removeLast() }
                caption(utterance.text)
                speak(utterance)
                echoCaptioned = interactive && !captions.isEmpty
            case .narrate, .resumeNarration, .changeSpeech, .changeTempo, .holdNarration:
                if let notice = speech.perform(narration: effect, of: session, input: inputCount) {
                    // A language without a voice (once per language), or nothing to say.
                    update(.shell(.notice(notice)))
                }
            case .pauseNarration, .stopNarration:
                _ = speech.perform(narration: effect, of: session, input: inputCount)
                if waiting.active { waiting = (false, nil) }
            case .preview(let settings, let text):
                caption(session.state.tr("Preview: {text}", ["text": text]))
                speak(interfaceUtterance(text, priority: .text), settings: settings)
            case .speakWith(let utterance, let settings):
                caption(utterance.text)
                speak(utterance, settings: settings)
            case .motion(let cue):
                motionCue = cue
                needsRender = true
            case .render:
                needsRender = true
            case .save(let change):
                // Off the loop, in order. A profile change may ask a joined kiosk's site first (up to
                // a few seconds): the wait is told on a terminal. "The end" and its read count are
                // said together all the same: the Session says the end when the count comes back.
                let store = self.store
                let authorization = self.authorization
                let tellsSaving: Bool
                if interactive, case .saveProfile = change { tellsSaving = true } else { tellsSaving = false }
                let inbox = self.inbox
                startWork {
                    if tellsSaving, (try? store.isJoined()) == true { inbox.send(.input(.shell(.saving))) }
                    return .stored(store.apply(change, authorization: authorization))
                }
            case .loadStory(let id):
                let entry = session.catalog.entry(id: id)
                let library = self.library
                startWork {
                    let story = entry.flatMap { try? library?.loadStory($0) }
                    // Its reading syllables are drawn from its first frame: the patterns come with it.
                    if let story { Syllables.preload(story.language) }
                    return .story(id: id, story)
                }
            case .checkPIN(let pin):
                // The hash takes about a second: on a terminal, the wait is told (a script's next
                // line simply waits for the answer).
                if interactive { update(.shell(.checkingPIN)) }
                let store = self.store
                startWork { .pin(Result { () throws(StoreError) in try store.authorize(pin: pin) }) }
            case .openCommandLine(let text):
                // A bookmark's note: the line opens with its command typed (a script types it all).
                guard interactive, !isEditingCommand else { break }
                isEditingCommand = true
                lineEditor.begin(typed: text)
                lineEditor.stories = []
                lineEditor.messages = session.state.messages
                needsRender = true
            case .listen(let request):
                listening?.stop()
                let inbox = self.inbox
                listening = ReplListening(request, device: Microphone.deviceName(option: microphoneDevice)) { inbox.send(.input(.coach($0))) }
                microphoneHearsProgram = false
            case .stopListening:
                listening?.stop()
                listening = nil
            case .exit:
                exitRequested = true
            }
        }
        // The authorization serves the saves of one parent's visit only.
        if !session.state.settingsUnlocked { authorization = nil }
        tellListeningOfSpeech()
    }

    /// The microphone is told when the program speaks (and stops): what it hears then is the
    /// speaker, not the child (`ReplListening.programSpeaks`). The speech log says each change
    /// while the coach listens.
    private func tellListeningOfSpeech() {
        guard let listening else { return }
        let speaks = speech.isBusy
        listening.programSpeaks(speaks)
        guard speaks != microphoneHearsProgram else { return }
        microphoneHearsProgram = speaks
        speech.trace?(speaks ? "microphone hears the program: fed as silence" : "microphone hears the child")
    }

    /// Reads the library off the loop (an interactive start): the first screen is drawn meanwhile,
    /// and keys wait for it in the Session (`Input.libraryLoaded`).
    func loadLibrary(_ read: @escaping @Sendable () -> StoryLibrary) {
        startWork { .library(read()) }
    }

    /// Runs `job` off the loop; its result comes back through the inbox.
    private func startWork(_ job: @escaping @Sendable () -> WorkResult) {
        workPending += 1
        let inbox = self.inbox
        work.async { inbox.send(.work(job())) }
    }

    /// Waits for everything started off the loop (leaving: no save is lost).
    private func finishWork() {
        while workPending > 0 {
            work.sync {}
            deliverInbox()
        }
    }

    /// The store checked the PIN (counting wrong tries, locking after five).
    private func pinChecked(_ result: Result<ParentalAuthorization, StoreError>) {
        do {
            authorization = try result.get()
            update(.pinChecked(true))
        } catch {
            switch error {
            case .pinLocked(let remaining), .wrongPIN(_, lockedFor: .some(let remaining)):
                update(.pinLocked(remaining: remaining))
            case .wrongPIN, .pinFormat, .pinRequired:
                update(.pinChecked(false))
            default:
                update(.shell(.pinCheckFailed(problem: error.description)))
                update(.pinChecked(false))
            }
        }
    }

    /// What interface speech sounds like: the profile's rate, pitch, volume and voice (its voice
    /// when one is chosen, else the interface's language).
    private var interfaceSettings: SpeechSettings { session.state.profile.speech }

    func caption(_ text: String) {
        let line = Sanitizer.sanitizeLine(text)
        echoCaptioned = false
        if interactive {
            captions.append(line)
            if captions.count > 50 { captions.removeFirst(captions.count - 50) }
            needsRender = true
        } else if !printCaption(line), !exitRequested {
            // Nobody reads the captions any more: keep the place and leave, as on a closed input.
            inputClosed = true
            update(.shutdown)
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
        MotionPolicy.resolve(
            session.state.profile.motion, environment: ProcessInfo.processInfo.environment,
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
        animation =
            current.next + 1 < current.frames.count
            ? (current.frames, current.next + 1, now + UInt64(frame.milliseconds) * 1_000_000) : nil
    }

    private func render() {
        guard interactive, needsRender else { return }
        // A moment shown moving (a page turn, the end) plays out: a few hundred milliseconds at
        // most. What changed meanwhile (the word now heard, a caption) is drawn right after its
        // last frame; speech never waits for it, and reduced motion has no frames to wait for.
        if animation != nil, motionCue == nil { return }
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
        // A new moment to show moving replaces one still playing.
        animation = nil
        if let cue = motionCue {
            motionCue = nil
            // Never while a command is typed, and one still frame with reduced motion.
            let frames =
                isEditingCommand || drawn.isEmpty
                ? []
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

/// Everything that reaches the loop through its one inbox (`ReplShell.inbox`), in the order it came.
enum LoopMessage: Sendable {
    /// Keys decoded from the terminal.
    case keys([Key])
    /// A line of a script (no terminal).
    case line(String)
    /// The speech service's news: an utterance started or ended, a sentence or word heard.
    case speech(SpeechService.Event)
    /// The braille display's news and keys.
    case braille(BrailleDisplay.Event)
    /// Work done off the loop: a save, the PIN's check.
    case work(ReplShell.WorkResult)
    /// A signal (SIGWINCH, SIGTERM, …), as the signal handler's pipe told it.
    case signal(Int32)
    /// An input for the Session as it is.
    case input(Input)

    /// Work finishing is delivered even as the program leaves (no save is lost).
    var isWork: Bool { if case .work = self { true } else { false } }
}

/// Where the REPL's speech goes: a sink (the audio device, or paced silence) and the notice to
/// show and say once when the device could not be opened.
struct ReplAudio {
    var sink: any PCMSink
    var notice: String?
}
