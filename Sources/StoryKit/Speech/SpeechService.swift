import Foundation
import Synchronization

/// The one speech service: it alone says things, the story and the interface alike, on one sink.
///
/// Requests come as data (`send`), from any thread; what is heard comes back as events (`onEvent`),
/// which the REPL's loop feeds to the Session as inputs. All the work runs on the process's speech
/// thread (`SpeechThread`), which also owns eSpeak NG: a step synthesises at most one sentence (or
/// one interface utterance), writes only what the sink has room for, and delivers the events the
/// sink's playback clock has reached, so no request waits for speech being heard.
///
/// The announcement queue runs inside it, with a screen reader's manners: an answer to a key pauses
/// the story at the word being heard and the story goes on from that word once the answer is over;
/// a newer key's answer cuts an older one; news waits for the end of a sentence, not of the story.
public final class SpeechService: SpeechThread.Worker, Sendable {
    /// Step mode: read one sentence (or one page), then wait for `.resume`.
    public enum StepMode: Sendable, Hashable { case off, sentence, page }

    /// A story to read: the narration from sentence `sentence`, word `word`.
    public struct StoryRequest: Sendable {
        public var narration: Narration
        public var sentence: Int
        public var word: Int
        /// Rate, pitch, volume and the resolved voice.
        public var settings: SpeechSettings
        public var stepMode: StepMode
        /// What the announcement queue calls the story (its title).
        public var title: String
        /// The story's recorded narration, to be played where it has a clip (nil: eSpeak NG reads
        /// it all), and the tempo it is played at (1: its own pace; pitch is kept).
        public var recording: NarrationRecording?
        public var tempo: Double
        /// Where the story ends if not at its last sentence, moved while it is read (an export's
        /// share, see `SentenceLimit`); nil: at its last sentence.
        public var limit: SentenceLimit?
        /// The narration item after which the story waits, as in step mode, whatever the step mode
        /// (the bedtime timer's last sentence: the next is not begun); nil: none.
        public var holdAfter: Int?
        /// Where a bookmark's tone is heard: before word `word` (an index in the item) of
        /// narration item `item` when the item is read from that word or one before it, named by
        /// `label` in the events.
        public var tones: [Tone] = []

        public init(
            narration: Narration, sentence: Int = 0, word: Int = 0, settings: SpeechSettings,
            stepMode: StepMode = .off, title: String = "", recording: NarrationRecording? = nil, tempo: Double = 1,
            limit: SentenceLimit? = nil, holdAfter: Int? = nil
        ) {
            self.limit = limit
            self.holdAfter = holdAfter
            self.recording = recording
            self.tempo = tempo
            self.narration = narration
            self.sentence = sentence
            self.word = word
            self.settings = settings
            self.stepMode = stepMode
            self.title = title
        }
    }

    /// A bookmark's place in the narration (`StoryRequest.tones`).
    public struct Tone: Sendable, Hashable {
        public var item: Int
        public var word: Int
        /// What the speech log calls it ("bookmark 2 at word 17").
        public var label: String

        public init(item: Int, word: Int, label: String) {
            self.item = item
            self.word = word
            self.label = label
        }
    }

    /// What the service is asked.
    public enum Request: Sendable {
        /// Say an interface utterance with these settings (voice resolved), through the queue.
        case say(Utterance, settings: SpeechSettings)
        /// Read a story (replacing any other) once the queue lets it.
        case narrate(StoryRequest)
        /// The person paused, resumed or stopped the story.
        case pause, resume, stop
        /// New rate, pitch and volume for the story (the voice stays), from the next sentence.
        case settings(SpeechSettings)
        case stepMode(StepMode)
        /// The narration item after which the story waits (nil: none), from now on.
        case holdAfter(Int?)
        /// A new tempo for the story's recording (0.5–2, pitch kept), from the next sentence.
        case tempo(Double)
        /// Everything stops: what is heard and what waits (leaving the program).
        case silence
    }

    /// Something heard in the story, at `frame` samples of the sink's clock.
    public struct StoryEvent: Sendable, Hashable {
        public enum Kind: Sendable, Hashable {
            /// Sentence `sentence` of the narration starts.
            case sentence(Int)
            /// A bookmark's tone (`BookmarkTone`) is heard, right before its word.
            case tone(String)
            /// Word `word` of sentence `sentence` starts.
            case word(sentence: Int, word: Int)
            /// The last sentence was heard to its end.
            case end
            /// Reading was stopped.
            case stopped
            /// Reading paused at the given position (by the person), or resumed from it.
            case paused(sentence: Int, word: Int)
            case resumed(sentence: Int, word: Int)
            /// The rate changed (it applies from the next sentence).
            case settingsChanged(SpeechSettings)
            case stepModeChanged(StepMode)
            /// Step mode: sentence `Int` was read; waiting for `.resume`.
            case waitingForStep(Int)
            /// Sentence `sentence`'s clip of the recording could not be played: eSpeak NG reads it.
            /// Told once a story (the first time), with why.
            case recordingUnavailable(sentence: Int, RecordingProblem)
        }
        public var kind: Kind
        public var frame: Int
        /// For a sentence or word played from the recording: the clip heard, its end resolved
        /// (nil: synthesised).
        public var clip: NarrationRecording.Sentence?
        /// Which story it is of: the number of `.narrate` requests sent so far, the first being 1.
        /// Whoever reads the events later than they were told (a loop's inbox) can tell what a story
        /// said before the next one replaced it.
        public var story: Int

        public init(kind: Kind, frame: Int, clip: NarrationRecording.Sentence? = nil, story: Int = 0) {
            self.kind = kind
            self.frame = frame
            self.clip = clip
            self.story = story
        }

        /// Milliseconds from the start of the sink's audio.
        public var milliseconds: Int { frame * 1000 / SpeechAudioFormat.sampleRate }
    }

    /// What the service tells.
    public enum Event: Sendable {
        /// What the queue decided (started, interrupted, dropped), as the speech log writes it.
        case queue(SpeechCommand)
        /// An interface utterance was heard to its end.
        case finished(Utterance)
        /// The story, when heard.
        case story(StoryEvent)
        /// The story could not go on (a voice missing, the engine failing, the sink failing).
        case storyFailed(any Error)
        /// An interface utterance could not be said (it is over).
        case utteranceFailed(Utterance, any Error)
    }

    /// The word being heard.
    public struct Position: Sendable, Hashable {
        public var sentence: Int
        /// Index in the sentence; nil before its first word is heard.
        public var word: Int?

        public init(sentence: Int, word: Int?) {
            self.sentence = sentence
            self.word = word
        }
    }

    public let sink: any PCMSink
    private let engine: any SpeechEngine
    private let onEvent: @Sendable (Event) -> Void
    /// Called once per interface utterance when its first samples reach the sink (`bench repl`).
    private let onFirstSamples: (@Sendable (Utterance, ContinuousClock.Instant) -> Void)?
    private let thread: SpeechThread
    private let inbox = Mutex<[(request: Request, input: Int)]>([])
    /// Stops the synthesis running now when a request arrives that makes it moot.
    private let synthesisStop = Mutex(StopToken())
    /// What is being synthesised, while it is, for `send` to judge whether a request cuts it.
    private let synthesising = Mutex<Synthesising?>(nil)
    private let core = Mutex(Core())

    /// - Parameters:
    ///   - sink: where everything is heard; written only on the speech thread.
    ///   - onEvent: called on the speech thread, in order; keep it short (queue the event and wake a loop).
    public init(
        sink: any PCMSink, engine: any SpeechEngine = EspeakEngine.shared, thread: SpeechThread = .shared,
        onFirstSamples: (@Sendable (Utterance, ContinuousClock.Instant) -> Void)? = nil,
        onEvent: @escaping @Sendable (Event) -> Void
    ) {
        self.sink = sink
        self.engine = engine
        self.thread = thread
        self.onFirstSamples = onFirstSamples
        self.onEvent = onEvent
        thread.attach(self)
    }

    deinit { thread.detach(self) }

    /// Asks for something (any thread); it is done on the speech thread at once.
    /// - Parameter input: the input it answers (see `Utterance.input`): a story started or resumed
    ///   by a newer key cuts what an older one is still saying.
    public func send(_ request: Request, input: Int = 0) {
        switch request {
        case .say, .pause, .stop, .narrate, .silence, .resume:
            // What is being synthesised may be cut: stop it within one eSpeak buffer. Only if it
            // is: started over, the part already written would be heard twice.
            let cuts = synthesising.withLock { now -> Bool in
                guard var synthesis = now else { return true }
                defer { now = synthesis }
                return synthesis.isCut(by: request, input: input)
            }
            if cuts { synthesisStop.withLock { $0.stop() } }
        case .settings, .stepMode, .holdAfter, .tempo:
            break
        }
        inbox.withLock { $0.append((request, input)) }
        thread.wake(self)
    }

    /// Runs a step now, on the speech thread, and returns when it is done: what was sent before is
    /// applied and what the sink's clock reached is delivered (tests with a manual clock, `bench`).
    public func flush() {
        repeat {
            _ = try? thread.run { [self] in
                let deadline = step(now: .now)
                thread.schedule(self, at: deadline)
            }
            // A clip being decoded (off the speech thread) is part of what was asked: once it is
            // there, a step plays it.
        } while core.withLock({ $0.decoding })?.wait() == true
    }

    /// The sink frame at which the next scheduled thing happens (a word heard, an utterance's end),
    /// if any: a virtual clock (`VirtualClockSink`) moves there, and nothing happens before it.
    public var nextScheduledFrame: Int? { core.withLock { $0.scheduled.first?.frame } }

    /// True while an interface utterance is being heard (not the story, not one waiting its turn).
    public var isSpeakingInterface: Bool { core.withLock { $0.queue.speaking?.kind == .interface } }

    /// The word of the story being heard (or where it waits), and whether it is being heard.
    public var storyPosition: Position? { core.withLock { $0.story?.heard } }

    /// True while anything is heard or waits to be (an interface utterance or the story).
    public var isBusy: Bool {
        core.withLock { $0.queue.speaking != nil || !$0.queue.pending.isEmpty } || !inbox.withLock(\.isEmpty)
    }

    // MARK: - State (speech thread only)

    private enum Scheduled: Sendable {
        /// With the clip heard, when played from the recording.
        case story(StoryEvent.Kind, NarrationRecording.Sentence? = nil)
        case interfaceEnd(Utterance)
        /// The story's sound up to here is over: the end, a step, or a boundary where news waits.
        case storyBoundary
    }

    private struct Story: Sendable {
        enum Status: Sendable, Equatable {
            /// In the queue, waiting for its turn.
            case queued
            /// Being synthesised and heard.
            case speaking
            /// Paused by the person.
            case paused
            /// Step mode: waits for `.resume` after sentence `Int`.
            case waitingForStep(Int)
        }
        var request: StoryRequest
        var utterance: Utterance
        /// The next sentence and word to synthesise.
        var next: (sentence: Int, word: Int)
        var heard: Position
        var status: Status
        /// Synthesis reached the end of the story (its `.end` is scheduled).
        var synthesisedToEnd = false
        /// Synthesis stopped after a sentence (step mode, or news waiting for a boundary).
        var stoppedAtBoundary = false
        /// The generation of the request, so that events of a replaced story are never delivered.
        var generation: Int
        /// Where in the next sentence's clip to go on (milliseconds in its file): a pause or an
        /// answer inside a recorded sentence resumes at the sample, not at the sentence's start.
        var resumeAt: Int?
        /// The clip of the next sentence's recording to play (`NarrationRecording.Sentence.parts`):
        /// where `resumeAt` is, or, without it, the one after the clip just played (the sentence
        /// goes on in another file: no new sentence, no news between).
        var nextPart = 0
        /// Recorded sentences written to the sink: where each starts on the sink's clock, the
        /// clip and millisecond of its file there, and the tempo (to find the place heard when cut).
        var recorded: [(sentence: Int, part: Int, frame: Int, clipMs: Int, tempo: Double)] = []

        /// The sentence's recording goes on with its next clip (not a resume).
        var isContinuing: Bool { nextPart > 0 && resumeAt == nil }
        /// A clip failed and the listener was told (once a story).
        var toldUnavailable = false
        /// The tones already played (a sentence held for an answer and read again plays none twice).
        var toned: Set<String> = []
    }

    /// The queue as a synthesis began, and what it synthesises: `send` plays each request on
    /// this copy, in order, to see whether it cuts what is being synthesised. Every request used
    /// to stop synthesis, and whatever was left (the story queued behind "Reading …", a message
    /// that waits for the sentence's end, Space while an answer is said) was synthesised again
    /// from its start: on a busy machine its first sound was heard twice ("Re— Reading …").
    private struct Synthesising: Sendable {
        var queue: AnnouncementQueue
        /// The story, when it is what is synthesised.
        var story: Story?
        /// The story (paused or waiting) when an interface utterance is synthesised.
        var waitingStory: Story?

        /// True when `request` stops, cuts or replaces what is being synthesised (a guess on the
        /// safe side: a cut it misses only waits for the synthesis to end, ten or so milliseconds).
        mutating func isCut(by request: Request, input: Int) -> Bool {
            guard let speaking = queue.speaking else { return true }
            func cutsSpeaking(_ commands: [SpeechCommand]) -> Bool {
                commands.contains { if case .interrupt(speaking) = $0 { true } else { false } }
            }
            switch request {
            case .say(let utterance, _):
                return cutsSpeaking(queue.submit(utterance))
            case .narrate(let request):
                if story != nil { return true }
                _ = queue.removeStory()
                var utterance = Utterance.story(request.title)
                utterance.input = input
                waitingStory = nil
                return cutsSpeaking(queue.submit(utterance))
            case .resume:
                if story != nil { return false }
                guard var waiting = waitingStory else { return false }
                switch waiting.status {
                case .paused, .waitingForStep:
                    waiting.utterance.input = input
                    waiting.status = .queued
                    waitingStory = waiting
                    return cutsSpeaking(queue.submit(waiting.utterance))
                case .queued, .speaking:
                    return false
                }
            case .pause:
                // The story's business; an answer being said goes on.
                return story != nil
            case .stop, .silence:
                return true
            case .settings, .stepMode, .holdAfter, .tempo:
                return false
            }
        }
    }

    private struct Interface: Sendable {
        var utterance: Utterance
        var settings: SpeechSettings
        var synthesised = false
    }

    private struct Core: Sendable {
        var queue = AnnouncementQueue()
        var settings: [Utterance: SpeechSettings] = [:]
        var story: Story?
        var interface: Interface?
        /// Samples synthesised but not yet written to the sink (the sink had no room).
        var pending: [Int16] = []
        /// What happens when the sink's clock reaches a frame, in order.
        var scheduled: [(frame: Int, what: Scheduled, generation: Int)] = []
        var generation = 0
        /// The recording's clip being decoded off the speech thread, for the story's next sentence.
        var decoding: ClipDecoding?
    }

    /// How much sound is synthesised ahead of what is heard: enough to ride over a busy moment,
    /// little enough that a change of rate is heard soon.
    private static let aheadFrames = SpeechAudioFormat.sampleRate * 3 / 4

    // MARK: - Stepping (speech thread)

    func step(now: ContinuousClock.Instant) -> ContinuousClock.Instant? {
        thread.preconditionOnThread("SpeechService.step")
        var out: [Event] = []
        let deadline = core.withLock { core -> ContinuousClock.Instant? in
            deliverDue(&core, &out)
            let requests = inbox.withLock { requests -> [(request: Request, input: Int)] in
                defer { requests.removeAll() }
                return requests
            }
            if !requests.isEmpty { synthesisStop.withLock { $0 = StopToken() } }
            for (request, input) in requests { apply(request, input: input, &core, &out) }
            produce(&core, &out)
            deliverDue(&core, &out)
            return nextDeadline(core, now: now)
        }
        for event in out { onEvent(event) }
        return deadline
    }

    private func apply(_ request: Request, input: Int, _ core: inout Core, _ out: inout [Event]) {
        switch request {
        case .say(let utterance, let settings):
            core.settings[utterance] = settings
            perform(core.queue.submit(utterance), &core, &out)
        case .narrate(let story):
            removeStory(&core, &out, event: nil)
            core.generation += 1
            let first = min(max(0, story.sentence), story.narration.items.count)
            var utterance = Utterance.story(story.title)
            utterance.input = input
            core.story = Story(
                request: story, utterance: utterance, next: (first, max(0, story.word)),
                heard: Position(sentence: first, word: nil), status: .queued, generation: core.generation)
            perform(core.queue.submit(utterance), &core, &out)
        case .pause:
            guard var story = core.story else { return }
            switch story.status {
            case .speaking, .queued:
                if story.status == .speaking { cutStory(&core, &out) }
                story = core.story ?? story
                story.status = .paused
                core.story = story
                perform(core.queue.removeStory(), &core, &out)
                let at = story.heard
                out.append(.story(StoryEvent(kind: .paused(sentence: at.sentence, word: at.word ?? 0), frame: sink.framesPlayed, story: story.generation)))
            case .waitingForStep(let sentence):
                core.story?.status = .paused
                core.story?.heard = Position(sentence: sentence, word: nil)
            case .paused:
                break
            }
        case .resume:
            guard var story = core.story else { return }
            switch story.status {
            case .paused:
                story.status = .queued
                story.stoppedAtBoundary = false
                story.utterance.input = input
                core.story = story
                let at = story.heard
                out.append(.story(StoryEvent(kind: .resumed(sentence: at.sentence, word: at.word ?? 0), frame: sink.framesPlayed, story: story.generation)))
                perform(core.queue.submit(story.utterance), &core, &out)
            case .waitingForStep(let sentence):
                story.status = .queued
                story.stoppedAtBoundary = false
                story.next = (sentence + 1, 0)
                story.utterance.input = input
                core.story = story
                perform(core.queue.submit(story.utterance), &core, &out)
            case .speaking, .queued:
                break
            }
        case .stop:
            removeStory(&core, &out, event: .stopped)
        case .settings(let settings):
            guard var story = core.story else { return }
            var clamped = settings.clamped().settings
            clamped.voice = story.request.settings.voice
            story.request.settings = clamped
            core.story = story
            out.append(.story(StoryEvent(kind: .settingsChanged(clamped), frame: sink.framesPlayed, story: story.generation)))
        case .tempo(let tempo):
            core.story?.request.tempo = min(max(tempo, AudioClipDecoder.tempoRange.lowerBound), AudioClipDecoder.tempoRange.upperBound)
        case .holdAfter(let item):
            core.story?.request.holdAfter = item
        case .stepMode(let mode):
            guard var story = core.story else { return }
            story.request.stepMode = mode
            core.story = story
            out.append(.story(StoryEvent(kind: .stepModeChanged(mode), frame: sink.framesPlayed, story: story.generation)))
            if mode == .off, case .waitingForStep = story.status { apply(.resume, input: input, &core, &out) }
        case .silence:
            removeStory(&core, &out, event: .stopped)
            if core.interface != nil { cutSound(&core) }
            core.interface = nil
            perform(core.queue.clear(), &core, &out)
            core.settings.removeAll()
        }
    }

    /// Carries out the queue's decisions.
    private func perform(_ commands: [SpeechCommand], _ core: inout Core, _ out: inout [Event]) {
        for command in commands {
            out.append(.queue(command))
            switch command {
            case .start(let utterance):
                if utterance.kind == .story {
                    core.story?.status = .speaking
                } else {
                    let settings = core.settings.removeValue(forKey: utterance) ?? SpeechSettings()
                    core.interface = Interface(utterance: utterance, settings: settings)
                }
            case .interrupt(let utterance):
                if utterance.kind == .story {
                    // Held for an answer: it goes on from the word being heard.
                    if core.story?.status == .speaking {
                        cutStory(&core, &out)
                        core.story?.status = .queued
                    }
                } else if core.interface?.utterance == utterance {
                    cutSound(&core)
                    core.interface = nil
                }
            case .drop(let utterance):
                core.settings.removeValue(forKey: utterance)
            }
        }
    }

    /// The story leaves: its sound is cut, its events forgotten.
    private func removeStory(_ core: inout Core, _ out: inout [Event], event: StoryEvent.Kind?) {
        guard let story = core.story else { return }
        forgetDecoding(&core)
        if story.status == .speaking { cutSound(&core) }
        core.scheduled.removeAll { if case .interfaceEnd = $0.what { return false } else { return true } }
        core.story = nil
        perform(core.queue.removeStory(), &core, &out)
        if let event { out.append(.story(StoryEvent(kind: event, frame: sink.framesPlayed, story: story.generation))) }
    }

    /// Cuts the story's sound at the word being heard; it will go on from that word.
    private func cutStory(_ core: inout Core, _ out: inout [Event]) {
        deliverDue(&core, &out)
        forgetDecoding(&core)
        guard var story = core.story else { return cutSound(&core) }
        // At a boundary whose sound was all heard, it goes on with the next sentence; else from the
        // word being heard.
        let unheard = core.scheduled.contains { $0.generation == story.generation }
        let played = sink.framesPlayed
        let inClip = story.recorded.last { $0.sentence == story.heard.sentence && $0.frame <= played }
        cutSound(&core)
        if unheard || !story.stoppedAtBoundary {
            story.next = (story.heard.sentence, story.heard.word ?? 0)
            story.resumeAt = inClip.map { $0.clipMs + Int(Double(played - $0.frame) * 1000 / Double(SpeechAudioFormat.sampleRate) * $0.tempo) }
            story.nextPart = inClip?.part ?? 0
        }
        story.recorded.removeAll()
        story.stoppedAtBoundary = false
        story.synthesisedToEnd = false
        core.story = story
    }

    /// Stops what is heard at once and forgets what was synthesised ahead.
    private func cutSound(_ core: inout Core) {
        sink.interrupt()
        sink.drop()
        core.pending.removeAll()
        let played = sink.framesPlayed
        core.scheduled.removeAll { $0.frame > played }
    }

    /// Synthesises what is needed next and writes what the sink has room for.
    private func produce(_ core: inout Core, _ out: inout [Event]) {
        var rounds = 0
        // A request that came meanwhile (even one that cut nothing) is applied before more is made.
        while rounds < 64, !synthesisStop.withLock({ $0.isStopped }), inbox.withLock(\.isEmpty) {
            rounds += 1
            if let error = writePending(&core) {
                // The sink failed (a full disk, a device gone): what it was saying ends with the reason.
                cutSound(&core)
                if core.queue.speaking?.kind == .story, let story = core.story {
                    core.scheduled.removeAll { $0.generation == story.generation }
                    core.story = nil
                    perform(core.queue.removeStory(), &core, &out)
                    out.append(.storyFailed(error))
                } else if let interface = core.interface {
                    core.interface = nil
                    core.scheduled.removeAll { if case .interfaceEnd = $0.what { return true } else { return false } }
                    out.append(.utteranceFailed(interface.utterance, error))
                    perform(core.queue.finished(), &core, &out)
                }
                return
            }
            if !core.pending.isEmpty { return }
            guard let speaking = core.queue.speaking else { return }
            if speaking.kind == .story {
                guard produceStory(&core, &out) else { return }
            } else {
                guard var interface = core.interface, !interface.synthesised else { return }
                interface.synthesised = true
                core.interface = interface
                synthesise(interface, &core, &out)
            }
        }
    }

    /// The sink's frame where the next synthesised sample will be heard.
    private func nextFrame(_ core: Core) -> Int { sink.framesWritten + core.pending.count }

    /// Synthesises the story's next sentence when less than `aheadFrames` wait to be heard;
    /// false when nothing more is needed now.
    private func produceStory(_ core: inout Core, _ out: inout [Event]) -> Bool {
        guard var story = core.story, story.status == .speaking, !story.synthesisedToEnd, !story.stoppedAtBoundary else { return false }
        if sink.isRealTime, sink.framesWritten - sink.framesPlayed > Self.aheadFrames { return false }
        let items = story.request.narration.items
        let generation = story.generation
        guard story.next.sentence < items.count, story.request.limit?.claim(story.next.sentence) ?? true else {
            story.synthesisedToEnd = true
            core.story = story
            core.scheduled.append((nextFrame(core), .story(.end), generation))
            return false
        }
        // News (a message) waits for the end of a sentence: the story stops here and goes on after it.
        if story.next.word == 0, !story.isContinuing, story.next.sentence > story.heard.sentence || story.heard.word != nil,
            core.queue.pending.contains(where: { $0.kind == .interface && $0.priority <= .message })
        {
            story.stoppedAtBoundary = true
            core.story = story
            core.scheduled.append((nextFrame(core), .storyBoundary, generation))
            return false
        }
        let sentence = story.next.sentence
        let tones = dueTones(in: sentence, story)
        if let recorded = story.request.recording?.sentences[safe: sentence] ?? nil {
            switch playRecorded(recorded, tones: tones, &story, &core) {
            case .played:
                core.story = story
                return true
            case .decoding:
                // The speech thread goes on answering; the decoder wakes it when the clip is there.
                core.story = story
                return false
            case .failed(let error):
                // Never silence: eSpeak NG reads this sentence, and the listener is told once.
                story.resumeAt = nil
                story.nextPart = 0
                if !story.toldUnavailable {
                    story.toldUnavailable = true
                    out.append(.story(StoryEvent(kind: .recordingUnavailable(sentence: sentence, error), frame: sink.framesPlayed, story: story.generation)))
                }
                core.story = story
            }
        }
        story.resumeAt = nil
        story.nextPart = 0
        let prepared = story.request.narration.utterance(sentence: sentence, fromWord: story.next.word, settings: story.request.settings)
        let base = nextFrame(core)
        core.scheduled.append((base, .story(.sentence(sentence)), generation))
        let aligner = LockedValue(AlignerState(aligner: NarrationAligner(utterance: prepared)))
        let timings = LockedValue<[NarrationAligner.Timing]>([])
        let stream = StreamingWrite(sink: sink)
        // A sentence holding a bookmark is kept whole, so that its tone goes in at the word.
        let held = tones.isEmpty ? nil : LockedValue<[Int16]>([])
        let stop = synthesisStop.withLock { $0 }
        synthesising.withLock { $0 = Synthesising(queue: core.queue, story: story) }
        defer { synthesising.withLock { $0 = nil } }
        let result: SynthesisResult
        do {
            result = try engine.synthesize(prepared.utterance, stop: stop) { chunk in
                let final = aligner.withLock { $0.consume(chunk.events) }
                timings.withLock { $0.append(contentsOf: final) }
                if let held { held.withLock { $0.append(contentsOf: chunk.samples) } } else { stream.take(chunk.samples) }
                return .proceed
            }
        } catch {
            if stream.wroteAny { cutSound(&core) }
            core.scheduled.removeAll { $0.generation == generation }
            core.story = nil
            perform(core.queue.removeStory(), &core, &out)
            out.append(.storyFailed(error))
            return false
        }
        var final = timings.withLock { $0 }
        if let last = aligner.withLock({ $0.flush() }) { final.append(last) }
        if result.wasStopped {
            // A request came: it decides what happens next (the sentence is synthesised again).
            if stream.wroteAny { cutSound(&core) }
            core.scheduled.removeAll { $0.frame >= base && $0.generation == generation }
            return false
        }
        var places: [Int] = []
        var heard: [(frame: Int, what: Scheduled)] = []
        if let held {
            // Each tone at its word's first sample (a word eSpeak NG gave no time is not toned).
            let toned = tones.compactMap { tone in final.first { $0.word == tone.word }.map { (label: tone.label, place: $0.sample) } }
            places = toned.map(\.place)
            heard = Self.toneEvents(toned, base: base)
            story.toned.formUnion(tones.map(\.label))
            BookmarkTone.placed(in: held.withLock { $0 }, before: places).withUnsafeBufferPointer { stream.take($0) }
        }
        for timing in final {
            heard.append((base + BookmarkTone.moved(timing.sample, places: places), .story(.word(sentence: sentence, word: timing.word))))
        }
        core.scheduled += heard.sorted { $0.frame < $1.frame }.map { ($0.frame, $0.what, generation) }
        core.pending.append(contentsOf: stream.rest)
        story.next = (sentence + 1, 0)
        if shouldWaitForStep(after: sentence, story.request) {
            story.stoppedAtBoundary = true
            core.scheduled.append((nextFrame(core), .story(.waitingForStep(sentence)), generation))
        }
        core.story = story
        return true
    }

    /// The events of tones put in a sentence's sound at `places` (`BookmarkTone.placed`), the
    /// sentence starting at frame `base`: one a place, named by its first bookmark.
    private static func toneEvents(_ toned: [(label: String, place: Int)], base: Int) -> [(frame: Int, what: Scheduled)] {
        let places = toned.map(\.place)
        return toned.enumerated().compactMap { index, tone in
            guard !toned[..<index].contains(where: { $0.place == tone.place }) else { return nil }
            return (base + BookmarkTone.moved(tone.place, places: places) - BookmarkTone.samples.count, .story(.tone(tone.label)))
        }
    }

    /// The bookmarks' tones of `sentence` not yet heard, read from the word it starts at (several
    /// bookmarks of one word make one tone, named by the first).
    private func dueTones(in sentence: Int, _ story: Story) -> [Tone] {
        let start = story.next.word
        return story.request.tones.filter { $0.item == sentence && $0.word >= start && !story.toned.contains($0.label) }
    }

    private enum Played {
        case played
        /// Its clip is being decoded off the speech thread.
        case decoding
        case failed(RecordingProblem)
    }

    /// A clip of the recording decoded on `ClipDecoding.queue`, never on the speech thread: a
    /// book's audio is read by FFmpeg (within `RecordingInput`'s deadline), and the speech thread
    /// must go on answering `stop`, `help` and `quit` meanwhile (a hostile book froze them).
    final class ClipDecoding: Sendable {
        struct Key: Hashable, Sendable {
            var audio: String
            var folder: String?
            var begin: Int
            var end: Int?
            var tempo: Double
            var generation: Int
        }

        static let queue = DispatchQueue(label: "storyreader.recording", qos: .userInitiated)

        let key: Key
        let stop = RecordingStop()
        private let outcome = Mutex<Result<[Int16], RecordingProblem>?>(nil)
        private let done = DispatchSemaphore(value: 0)

        /// Starts decoding; `then` is called (on the decoding queue) once it is done.
        init(_ key: Key, then: @escaping @Sendable () -> Void) {
            self.key = key
            Self.queue.async { [self] in
                let result = Result { () throws(RecordingProblem) -> [Int16] in
                    try AudioClipDecoder.decode(
                        path: key.audio, folder: key.folder, beginMs: key.begin, endMs: key.end, tempo: key.tempo, stop: stop)
                }
                outcome.withLock { $0 = result }
                done.signal()
                then()
            }
        }

        /// The decoded clip, or why not; nil while it is being decoded.
        var result: Result<[Int16], RecordingProblem>? { outcome.withLock { $0 } }

        /// Waits until it is decoded; false if it already was.
        func wait() -> Bool {
            guard result == nil else { return false }
            done.wait()
            done.signal()
            return true
        }
    }

    /// The clip being decoded is no longer wanted (the story was cut, replaced or stopped).
    private func forgetDecoding(_ core: inout Core) {
        core.decoding?.stop.stop()
        core.decoding = nil
    }

    /// Plays the next sentence from its clips of the recording, one clip a call (each decoded off
    /// the speech thread: the first call starts it, and the call after the decoder wakes the
    /// thread plays it): from where it was cut, else from the word asked for (in the clip that
    /// has it), else from its start; its sentence and word events at the clips' own times.
    private func playRecorded(_ sentenceClips: NarrationRecording.Sentence, tones allTones: [Tone], _ story: inout Story, _ core: inout Core) -> Played {
        let sentence = story.next.sentence
        let tempo = min(max(story.request.tempo, AudioClipDecoder.tempoRange.lowerBound), AudioClipDecoder.tempoRange.upperBound)
        let parts = sentenceClips.parts
        var part = min(story.nextPart, parts.count - 1)
        var wordStart: Int?
        if story.nextPart == 0, story.resumeAt == nil, story.next.word > 0,
            let found = parts.indices.last(where: { parts[$0].words.contains { $0.word <= story.next.word } })
        {
            part = found
            wordStart = parts[found].words.last { $0.word <= story.next.word }?.begin
        }
        let recorded = parts[part]
        let start = max(recorded.begin, story.resumeAt ?? wordStart ?? recorded.begin)
        // A tone whose word a later clip says waits for that clip.
        let tones = allTones.filter { tone in !parts[(part + 1)...].contains { $0.words.contains { $0.word == tone.word } } }
        let key = ClipDecoding.Key(
            audio: recorded.audio, folder: story.request.recording?.folder, begin: start, end: recorded.end, tempo: tempo,
            generation: story.generation)
        guard let decoding = core.decoding, decoding.key == key else {
            forgetDecoding(&core)
            core.decoding = ClipDecoding(key) { [weak self] in if let self { self.thread.wake(self) } }
            return .decoding
        }
        let decodedSamples: [Int16]
        switch decoding.result {
        case nil: return .decoding
        case .success(let decoded): decodedSamples = decoded
        case .failure(let problem):
            core.decoding = nil
            return .failed(problem)
        }
        core.decoding = nil
        let generation = story.generation
        let base = nextFrame(core)
        let rate = Double(SpeechAudioFormat.sampleRate)
        let end = recorded.end ?? start + Int((Double(decodedSamples.count) / rate * 1000 * tempo).rounded())
        func offset(_ ms: Int) -> Int { max(0, Int((Double(ms - start) / 1000 * rate / tempo).rounded())) }
        // Each bookmark's tone at its word's time in the clip (a clip without word times: at its start).
        let toned = tones.map { tone in
            (label: tone.label, place: recorded.words.first { $0.word == tone.word && $0.begin >= start }.map { offset($0.begin) } ?? 0)
        }
        let places = toned.map(\.place)
        let samples = BookmarkTone.placed(in: decodedSamples, before: places)
        var heard = Self.toneEvents(toned, base: base)
        story.toned.formUnion(tones.map(\.label))
        // The clip as heard: a clip to its file's end has its end filled in from what was decoded;
        // the sentence's later clips, heard after it, as the recording has them.
        var clip = recorded
        clip.end = end
        clip.more = Array(parts[(part + 1)...])
        if !story.isContinuing { core.scheduled.append((base, .story(.sentence(sentence), clip), generation)) }
        // The word being heard where the clip starts, and those after it.
        let current = recorded.words.last { $0.begin <= start }
        let heardWords = recorded.words.filter { $0.begin > start || $0 == current }
        for word in heardWords {
            let frame = base + BookmarkTone.moved(offset(word.begin), places: places)
            let wordClip = NarrationRecording.Sentence(
                audio: recorded.audio, begin: word.begin, end: recorded.words.first { $0.begin > word.begin }?.begin ?? end)
            heard.append((frame, .story(.word(sentence: sentence, word: word.word), wordClip)))
        }
        core.scheduled += heard.sorted { $0.frame < $1.frame }.map { ($0.frame, $0.what, generation) }
        let stream = StreamingWrite(sink: sink)
        samples.withUnsafeBufferPointer { buffer in
            // In eSpeak-sized pieces, so the first is heard at once and the rest waits its turn.
            var index = 0
            while index < buffer.count {
                let count = min(4096, buffer.count - index)
                stream.take(UnsafeBufferPointer(rebasing: buffer[index..<(index + count)]))
                index += count
            }
        }
        core.pending.append(contentsOf: stream.rest)
        story.recorded.append((sentence, part, base, start, tempo))
        // After each tone the clip goes on where it was (a cut there resumes at the right sample).
        for place in Set(places).sorted() {
            story.recorded.append(
                (sentence, part, base + BookmarkTone.moved(place, places: places), start + Int((Double(place) / rate * 1000 * tempo).rounded()), tempo))
        }
        while story.recorded.count > 8 { story.recorded.removeFirst() }
        story.resumeAt = nil
        if part + 1 < parts.count {
            // The sentence goes on in its next clip, played by the next call.
            story.nextPart = part + 1
            story.next = (sentence, 0)
            return .played
        }
        story.nextPart = 0
        story.next = (sentence + 1, 0)
        if shouldWaitForStep(after: sentence, story.request) {
            story.stoppedAtBoundary = true
            core.scheduled.append((nextFrame(core), .story(.waitingForStep(sentence)), generation))
        }
        return .played
    }

    private func shouldWaitForStep(after sentence: Int, _ request: StoryRequest) -> Bool {
        if sentence == request.holdAfter { return true }
        switch request.stepMode {
        case .off: return false
        case .sentence: return true
        case .page:
            let items = request.narration.items
            let next = sentence + 1
            return next >= items.count || items[next].pageIndex != items[sentence].pageIndex
        }
    }

    /// Synthesises an interface utterance; its first chunk goes to the sink at once.
    private func synthesise(_ interface: Interface, _ core: inout Core, _ out: inout [Event]) {
        let utterance = interface.utterance
        let prepared = Self.speechUtterance(for: utterance, settings: interface.settings)
        let onFirstSamples = self.onFirstSamples
        let stream = StreamingWrite(sink: sink) { onFirstSamples?(utterance, ContinuousClock.now) }
        let stop = synthesisStop.withLock { $0 }
        synthesising.withLock { $0 = Synthesising(queue: core.queue, waitingStory: core.story) }
        defer { synthesising.withLock { $0 = nil } }
        do {
            let result = try engine.synthesize(prepared, stop: stop) { chunk in
                stream.take(chunk.samples)
                return .proceed
            }
            if result.wasStopped {
                // A request came: it decides whether this is said at all; if so, from its start.
                if stream.wroteAny { cutSound(&core) }
                core.interface?.synthesised = false
                return
            }
        } catch {
            if stream.wroteAny { cutSound(&core) }
            core.interface = nil
            out.append(.utteranceFailed(utterance, error))
            perform(core.queue.finished(), &core, &out)
            return
        }
        core.pending.append(contentsOf: stream.rest)
        core.scheduled.append((nextFrame(core), .interfaceEnd(utterance), 0))
    }

    /// Writes pending samples, as many as the sink takes without waiting; the sink's error if it failed.
    private func writePending(_ core: inout Core) -> (any Error)? {
        guard !core.pending.isEmpty else { return nil }
        var count = core.pending.count
        if sink.isRealTime {
            let room = sink.bufferFrames - (sink.framesWritten - sink.framesPlayed)
            count = min(count, max(0, room))
        }
        guard count > 0 else { return nil }
        do {
            let whole = try core.pending.withUnsafeBufferPointer { buffer -> Bool in
                try sink.write(UnsafeBufferPointer(rebasing: buffer[0..<count]))
            }
            // Not whole: interrupted by a cut, which also forgot what was pending.
            if whole { core.pending.removeFirst(count) }
            return nil
        } catch {
            return error
        }
    }

    /// Delivers what the sink's clock has reached.
    private func deliverDue(_ core: inout Core, _ out: inout [Event]) {
        let played = sink.framesPlayed
        // A sink that does not play in real time has played all it was given, once given all.
        let reachedAll = !sink.isRealTime && core.pending.isEmpty
        while let first = core.scheduled.first, first.frame <= played || (reachedAll && first.frame <= sink.framesWritten) {
            core.scheduled.removeFirst()
            switch first.what {
            case .story(let kind, let clip):
                guard var story = core.story, story.generation == first.generation else { continue }
                switch kind {
                case .sentence(let sentence): story.heard = Position(sentence: sentence, word: nil)
                case .word(let sentence, let word): story.heard = Position(sentence: sentence, word: word)
                case .waitingForStep(let sentence):
                    story.status = .waitingForStep(sentence)
                    story.stoppedAtBoundary = false
                case .end:
                    break
                default: break
                }
                core.story = story
                out.append(.story(StoryEvent(kind: kind, frame: first.frame, clip: clip, story: first.generation)))
                if case .end = kind {
                    core.story = nil
                    perform(core.queue.finished(), &core, &out)
                } else if case .waitingForStep = kind {
                    perform(core.queue.removeStory(), &core, &out)
                }
            case .storyBoundary:
                guard let story = core.story, story.generation == first.generation, story.status == .speaking else { continue }
                perform(core.queue.yieldStory(), &core, &out)
            case .interfaceEnd(let utterance):
                guard core.interface?.utterance == utterance else { continue }
                core.interface = nil
                out.append(.finished(utterance))
                perform(core.queue.finished(), &core, &out)
            }
        }
    }

    private func nextDeadline(_ core: Core, now: ContinuousClock.Instant) -> ContinuousClock.Instant? {
        let rate = Double(SpeechAudioFormat.sampleRate)
        // A clip being decoded wakes the thread when it is there.
        let decodingClip = core.decoding.map { $0.result == nil } ?? false
        if !sink.isRealTime {
            // Nothing waits for a clock: go on at once while there is work (other jobs take turns).
            let working = core.queue.speaking != nil && (core.interface != nil || core.story?.status == .speaking && !decodingClip)
            return working || !core.scheduled.isEmpty ? now : nil
        }
        var wait: Double?
        if !core.pending.isEmpty {
            // Room comes back as the sink plays: look again in a few milliseconds.
            wait = 0.005
        } else if core.story?.status == .speaking, core.story?.synthesisedToEnd == false, core.story?.stoppedAtBoundary == false, !decodingClip {
            let ahead = sink.framesWritten - sink.framesPlayed - Self.aheadFrames
            wait = max(0.002, Double(ahead) / rate)
        }
        if let first = core.scheduled.first {
            let until = max(0.001, Double(first.frame - sink.framesPlayed) / rate)
            wait = min(wait ?? until, until)
        }
        guard let wait else { return nil }
        return now.advanced(by: .milliseconds(Int((wait * 1000).rounded(.up))))
    }

    // MARK: - Text for eSpeak

    /// The eSpeak utterance for an interface utterance: spelled letter by letter, in language runs,
    /// or plain.
    static func speechUtterance(for utterance: Utterance, settings: SpeechSettings) -> SpeechUtterance {
        if let spelling = utterance.spelling {
            // A spelled word: eSpeak NG's SSML names each character ("b, u, t…") in the word's voice.
            let text = "<speak><say-as interpret-as=\"characters\">\(Narration.ssmlText(speakable(spelling)))</say-as></speak>"
            return SpeechUtterance(text: text, settings: settings, encoding: .ssml)
        }
        if let ssml = SpeechRun.ssml(utterance.runs, voice: settings.voice) {
            return SpeechUtterance(text: ssml, settings: settings, encoding: .ssml)
        }
        return SpeechUtterance(text: speakable(utterance.text), settings: settings, encoding: .plain)
    }

    /// Interface text made safe for eSpeak 1.51: one line, and no token long enough to hurt it.
    public static func speakable(_ text: String) -> String {
        let line = Sanitizer.sanitizeLine(text)
        guard line.split(separator: " ").contains(where: { $0.unicodeScalars.count > Narration.longestToken }) else { return line }
        return line.split(separator: " ", omittingEmptySubsequences: false).map { token -> String in
            let scalars = Array(token.unicodeScalars)
            guard scalars.count > Narration.longestToken else { return String(token) }
            let kept = scalars.prefix(Narration.longestSpokenToken)
            return stride(from: 0, to: kept.count, by: Narration.longestToken).map { start in
                var piece = String.UnicodeScalarView()
                piece.append(contentsOf: kept[start..<min(start + Narration.longestToken, kept.count)])
                return String(piece)
            }.joined(separator: " ")
        }.joined(separator: " ")
    }

    /// Synthesis streamed to the sink while it has room, the rest kept in order for later: the
    /// first sound of an answer or a sentence is heard within one eSpeak buffer of the request.
    private final class StreamingWrite: Sendable {
        private struct State {
            var direct = true
            var wroteAny = false
            var rest: [Int16] = []
        }
        private let sink: any PCMSink
        private let state = Mutex(State())
        private let onFirstWrite: @Sendable () -> Void

        init(sink: any PCMSink, onFirstWrite: @escaping @Sendable () -> Void = {}) {
            self.sink = sink
            self.onFirstWrite = onFirstWrite
        }

        /// Called in the synthesis callback (the speech thread).
        func take(_ samples: UnsafeBufferPointer<Int16>) {
            guard !samples.isEmpty else { return }
            state.withLock { state in
                let room = !sink.isRealTime || sink.bufferFrames - (sink.framesWritten - sink.framesPlayed) >= samples.count
                if state.direct && room {
                    if !state.wroteAny { onFirstWrite() }
                    // A failure shows when the rest is written (`writePending`).
                    if (try? sink.write(samples)) == true {
                        state.wroteAny = true
                        return
                    }
                }
                // Once anything waits, everything after it waits too: the order is the sound's.
                state.direct = false
                state.rest.append(contentsOf: samples)
            }
        }

        var wroteAny: Bool { state.withLock { $0.wroteAny } }
        var rest: [Int16] { state.withLock { $0.rest } }
    }

    /// A word's time is final once the next word's mark arrives, eSpeak's word event refined it, or
    /// the utterance ends (see `NarrationAligner`).
    private struct AlignerState: Sendable {
        var aligner: NarrationAligner
        var provisional: NarrationAligner.Timing?

        mutating func consume(_ events: [SpeechEvent]) -> [NarrationAligner.Timing] {
            var final: [NarrationAligner.Timing] = []
            for timing in aligner.consume(events) {
                if let current = provisional, current.word != timing.word { final.append(current) }
                if timing.source != .mark {
                    final.append(timing)
                    provisional = nil
                } else {
                    provisional = timing
                }
            }
            return final
        }

        mutating func flush() -> NarrationAligner.Timing? {
            defer { provisional = nil }
            return provisional
        }
    }
}

extension Array {
    /// The element at `index`, or nil past either end.
    subscript(safe index: Int) -> Element? { indices.contains(index) ? self[index] : nil }
}
