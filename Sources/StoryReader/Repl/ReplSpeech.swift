import Foundation
package import StoryKit
import Synchronization

#if canImport(Glibc)
    import Glibc
#endif

/// What the shell asks of speech: the one speech service (`ServiceSpeech`), on the audio sink (a
/// device, or paced silence) or, for scripts without audio, on a virtual clock that moves only when
/// the script waits.
/// How time passes for the story: `.virtual` only when a script says `wait`; `.paced` in real
/// time (a device, or paced silence).
enum SpeechClock { case virtual, paced }

protocol ReplSpeech: AnyObject {
    /// How time passes for the story: `.virtual` only when a script says `wait`.
    var clock: SpeechClock { get }
    /// The story is being read or waits to go on (events are still to come).
    var isStoryLoaded: Bool { get }
    /// The story is being heard now (not held for an answer, not waiting).
    var isStoryRunning: Bool { get }
    /// Something is said or waits to be.
    var isBusy: Bool { get }
    /// Whether anything is really said (false: silent timing only).
    var isAudible: Bool { get }
    /// The language of the notices `narrate` returns.
    var messages: MessageCatalog { get set }
    /// Every decision of the queue, as a line (`$STORYREADER_SPEECH_LOG`).
    var trace: ((String) -> Void)? { get set }

    /// Resolves the voices of `languages` now, once, so that no utterance waits for it later.
    func prepareVoices(_ languages: [String])
    /// Says an interface utterance (`settings`: the preview's own; nil: the interface's).
    func say(_ utterance: Utterance, settings: SpeechSettings?)
    /// Reads `story` from word `fromWord`, its recording (if it has one) at `recordingTempo`
    /// (nil: always the synthetic voice), waiting after story sentence `holdAfter` (nil: none),
    /// with a soft tone before the sentence holding each of `bookmarks` (story words);
    /// returns a notice to show and say (a voice fallback).
    func narrate(
        _ story: Story, fromWord: Int, settings: SpeechSettings, recordingTempo: Double?, stepMode: Bool, holdAfter: Int?,
        bookmarks: [(word: Int, label: String)], input: Int
    ) -> String?
    /// Goes on with the story paused in the speech service, where it was heard, with what changed
    /// while it was paused; false when none is held (the caller narrates anew).
    func resumeStory(settings: SpeechSettings, recordingTempo: Double?, stepMode: Bool, holdAfter: Int?, input: Int) -> Bool
    /// The person stopped: the story leaves (the Session narrates again to go on).
    func stopStory()
    /// The person paused: the speech service keeps the story where it was heard.
    func pauseStory()
    /// Carries out an effect of the Session's on the story's narration (see `ServiceSpeech`).
    func perform(narration effect: Effect, of session: Session, input: Int) -> String?
    /// Rate, pitch and volume change from the next sentence; the voice stays.
    func change(settings: SpeechSettings)
    /// The recording's tempo changes from the next sentence.
    func change(tempo: Double)
    /// The story waits after sentence `sentence` (of `Story.sentences`; nil: none), as in step
    /// mode: the next is not begun. Holds for the story being read and the next one narrated.
    func hold(afterSentence sentence: Int?)
    /// Everything stops (leaving the program).
    func silence()
    /// Time passed: what is due happens. Returns the story's events to give the Session.
    func tick(now: UInt64) -> [NarrationEvent]
    /// What the speech service reported (through the loop's inbox), in the Session's terms.
    func receive(_ events: [SpeechService.Event]) -> [NarrationEvent]
    /// The next event of a virtual story, when a script waits for it.
    func takeVirtualEvent() -> NarrationEvent?
    /// On a virtual clock: what the interface is saying is heard to its end (a script's line is
    /// answered before the next one comes, as a listener would wait for it).
    func settle()
    /// When the shell must look again (monotonic ns), if no input comes.
    var deadline: UInt64? { get }
    /// Notices about the story's recording (a clip list or a clip that cannot be played), to be
    /// shown and said; each is given once.
    func takeNotices() -> [String]
}

extension ReplSpeech {
    func settle() {}
    func takeNotices() -> [String] { [] }
    func receive(_ events: [SpeechService.Event]) -> [NarrationEvent] { [] }
    func change(tempo: Double) {}
    func hold(afterSentence sentence: Int?) {}

    /// The book's recording at its own pace, where the story has one.
    func narrate(_ story: Story, fromWord: Int, settings: SpeechSettings, stepMode: Bool, input: Int) -> String? {
        narrate(story, fromWord: fromWord, settings: settings, recordingTempo: 1, stepMode: stepMode, holdAfter: nil, bookmarks: [], input: input)
    }

}

/// Speech through the one `SpeechService`: its events go where `post` sends them (the loop's inbox,
/// which hands them to `receive` on the loop's thread), or by default to a queue of its own that
/// `tick` reads (the benchmarks), `wake` telling when it has something.
///
/// On a `VirtualClockSink` (scripts without sound) nothing is heard and time passes only when the
/// script waits: the story's events wait in `backlog` and are taken one at a time
/// (`takeVirtualEvent`), the clock moved on to the next scheduled frame when none is left.
package final class ServiceSpeech: ReplSpeech {
    var clock: SpeechClock { virtual == nil ? .paced : .virtual }
    var isAudible: Bool { virtual == nil }
    private let virtual: VirtualClockSink?
    /// The story's events on a virtual clock, not yet taken by a waiting script.
    private var backlog: [NarrationEvent] = []
    package let wake: WakePipe
    private(set) var service: SpeechService!
    private let inbox = LockedValue<[SpeechService.Event]>([])
    private let post: @Sendable (SpeechService.Event) -> Void
    var messages: MessageCatalog = .english
    var trace: ((String) -> Void)?
    /// The settings interface speech uses now (the profile's; its voice when one is chosen).
    package var interfaceSettings: () -> SpeechSettings = { SpeechSettings() }
    /// Voices already resolved (with their notice, said once per language).
    private var voices: [String: VoiceCatalog.Resolution] = [:]
    private var noticed: Set<String> = []
    // What follows is no reading state (the Session keeps it: where reading is, paused or not,
    // what is held in the service) but the loop's view of what the service reported: which story
    // its events are of, in the story's terms, and whether it is still to be heard.

    /// The story told last: narration sentence → story sentence, and the first word of each.
    private var story: (items: [Narration.Item], firstWord: [Int])?
    /// The story sentence last reported started (the service reports it again after a hold).
    private var currentSentence: Int?
    private var storyLoaded = false
    /// The story is being read or waits to go on; on a virtual clock, also while events the
    /// script has not taken are left.
    var isStoryLoaded: Bool { storyLoaded || !backlog.isEmpty }
    private var storyHeard = false
    /// The story is being heard now; on a virtual clock, whenever it would go on as time passes
    /// (an answer said in between holds it only for that answer).
    var isStoryRunning: Bool { virtual == nil ? storyHeard : isStoryLoaded }
    /// The recording of the story last read (its file, and the clip list resolved): a move
    /// narrates again, and the clip list is read once.
    private var recording: (path: String, recording: NarrationRecording?)?
    private var notices: [String] = []
    /// The `.narrate` requests sent to the service: the story its events must be of (older ones,
    /// still in the loop's inbox as a move replaced the story, are not this story's).
    private var narrations = 0

    package init(
        sink: any PCMSink, onFirstSamples: (@Sendable (Utterance, ContinuousClock.Instant) -> Void)? = nil,
        post: (@Sendable (SpeechService.Event) -> Void)? = nil
    ) {
        let wake = WakePipe()
        self.wake = wake
        virtual = sink as? VirtualClockSink
        let inbox = self.inbox
        let post =
            post ?? { event in
                inbox.withLock { $0.append(event) }
                wake.signal()
            }
        self.post = post
        service = SpeechService(sink: sink, onFirstSamples: onFirstSamples, onEvent: post)
    }

    /// Writes the queue's decisions to `$STORYREADER_SPEECH_LOG` (created empty), when it names a file.
    static func speechLog() -> ((String) -> Void)? {
        guard let path = ProcessInfo.processInfo.environment["STORYREADER_SPEECH_LOG"], !path.isEmpty,
            FileManager.default.createFile(atPath: path, contents: nil), let log = FileHandle(forWritingAtPath: path)
        else { return nil }
        return { line in log.write(Data((line + "\n").utf8)) }
    }

    /// Resolves the voices of `languages` now, once, so that no utterance waits for it later.
    package func prepareVoices(_ languages: [String]) {
        for language in languages { _ = resolution(for: language) }
    }

    private func resolution(for wanted: String) -> VoiceCatalog.Resolution {
        if let known = voices[wanted] { return known }
        let resolution =
            (try? EspeakEngine.shared.resolveVoice(wanted, messages: messages))
            ?? VoiceCatalog.Resolution(voice: "en", notice: messages.tr("no voice for '{voice}': reading with 'en'", ["voice": wanted]))
        voices[wanted] = resolution
        return resolution
    }

    /// The voice for `wanted`; the notice only the first time it is used, in the language spoken now.
    func resolveVoice(_ wanted: String) -> (voice: String, notice: String?) {
        let resolution = resolution(for: wanted)
        guard resolution.notice != nil, noticed.insert(wanted).inserted else { return (resolution.voice, nil) }
        let notice =
            (try? EspeakEngine.shared.resolveVoice(wanted, messages: messages))?.notice
            ?? messages.tr("no voice for '{voice}': reading with 'en'", ["voice": wanted])
        return (resolution.voice, notice)
    }

    var isBusy: Bool { service.isBusy }

    package func say(_ utterance: Utterance, settings: SpeechSettings?) {
        var spoken = settings ?? interfaceSettings()
        // No voice chosen: the interface's own language speaks the interface.
        spoken.voice = resolution(for: spoken.voice ?? utterance.language ?? "en").voice
        service.send(.say(utterance, settings: spoken))
    }

    /// Carries out what the Session asked of the story's narration (`narrate`, `resumeNarration`,
    /// `pauseNarration`, `stopNarration`, `changeSpeech`, `changeTempo`, `holdNarration`), with
    /// the child's choices the Session holds (the recording or the synthetic voice, its tempo, the
    /// bedtime timer's last sentence, the bookmarks a soft tone is heard before): the one place this is done, for the shell, the benchmarks
    /// and the tests. Other effects are left alone. Returns a notice to show and say.
    package func perform(narration effect: Effect, of session: Session, input: Int) -> String? {
        let reading = session.state.profile.settings
        // The child's choice: the book's recording at their tempo, or always the synthetic voice.
        let tempo = reading.narration == .recording ? reading.recordingTempo : nil
        switch effect {
        case .narrate(let storyID, let fromWord, let settings, let stepMode):
            guard let story = session.state.reader?.story, story.id == storyID else { return nil }
            messages = session.state.messages
            return narrate(
                story, fromWord: fromWord, settings: settings, recordingTempo: tempo, stepMode: stepMode,
                holdAfter: session.bedtimeLastSentence, bookmarks: session.bookmarkTones, input: input)
        case .resumeNarration(let settings, let stepMode):
            messages = session.state.messages
            if resumeStory(settings: settings, recordingTempo: tempo, stepMode: stepMode, holdAfter: session.bedtimeLastSentence, input: input) {
                return nil
            }
            // Nothing held any more (the service forgot it): read on from the Session's word.
            guard let reader = session.state.reader else { return nil }
            return narrate(
                reader.story, fromWord: reader.wordIndex, settings: settings, recordingTempo: tempo, stepMode: stepMode,
                holdAfter: session.bedtimeLastSentence, bookmarks: session.bookmarkTones, input: input)
        case .pauseNarration: pauseStory()
        case .stopNarration: stopStory()
        // Rate, pitch and volume change from the next sentence; the voice stays.
        case .changeSpeech(let settings): change(settings: settings)
        case .changeTempo(let tempo): change(tempo: tempo)
        case .holdNarration(let sentence): hold(afterSentence: sentence)
        default: break
        }
        return nil
    }

    package func narrate(
        _ story: Story, fromWord: Int, settings: SpeechSettings, recordingTempo: Double?, stepMode: Bool, holdAfter: Int?,
        bookmarks: [(word: Int, label: String)], input: Int
    ) -> String? {
        backlog.removeAll()
        let narration: Narration
        do {
            narration = try Narration(story: story, announcingPages: true)
        } catch {
            // Nothing speakable: the story ends at once.
            stopStory()
            storyLoaded = true
            post(.story(SpeechService.StoryEvent(kind: .end, frame: 0, story: narrations)))
            return error.localized(messages)
        }
        // The profile's voice, else the story's language; a missing one falls back with a notice.
        let (voice, notice) = resolveVoice(settings.voice ?? story.language)
        var resolved = settings.clamped().settings
        resolved.voice = voice
        var firstWord: [Int] = []
        var count = 0
        for sentence in story.sentences {
            firstWord.append(count)
            count += sentence.words.count
        }
        let storySentence = firstWord.lastIndex { $0 <= fromWord } ?? 0
        let item = narration.item(forStorySentence: storySentence) ?? narration.items.count
        let word =
            item < narration.items.count && narration.items[item].storySentenceIndex == storySentence
            ? fromWord - firstWord[storySentence] : 0
        self.story = (narration.items, firstWord)
        currentSentence = nil
        storyLoaded = true
        storyHeard = false
        var recordingNotice: String?
        if recordingTempo != nil, recording?.path != story.path {
            do {
                recording = (story.path, try StoryRecording.load(for: story, narration: narration))
            } catch {
                recording = (story.path, nil)
                recordingNotice = messages.tr("{problem}: eSpeak NG reads the story", ["problem": error.localized(messages)])
            }
        }
        // The child's setting "always the synthetic voice": the recording is not even read.
        let played = recordingTempo == nil ? nil : recording?.recording
        narrations += 1
        var request = SpeechService.StoryRequest(
            narration: narration, sentence: item, word: max(0, word), settings: resolved,
            stepMode: stepMode ? .sentence : .off, title: story.title, recording: played,
            tempo: recordingTempo ?? 1, holdAfter: holdAfter.flatMap { wanted in narration.items.lastIndex { $0.storySentenceIndex == wanted } })
        request.tones = bookmarks.compactMap { mark in
            // The narration item of the sentence holding the word, which plays the tone at the word.
            guard let sentence = firstWord.lastIndex(where: { $0 <= mark.word }),
                let item = narration.items.firstIndex(where: { $0.storySentenceIndex == sentence })
            else { return nil }
            return SpeechService.Tone(item: item, word: mark.word - firstWord[sentence], label: mark.label)
        }
        service.send(.narrate(request), input: input)
        return [notice, recordingNotice].compactMap { $0 }.joined(separator: " ").nilIfEmpty
    }

    func takeNotices() -> [String] {
        defer { notices.removeAll() }
        return notices
    }

    func resumeStory(settings: SpeechSettings, recordingTempo: Double?, stepMode: Bool, holdAfter: Int?, input: Int) -> Bool {
        // The service may have ended the story before it heard the pause (its end was still on its
        // way to the Session): then there is nothing to resume.
        guard story != nil, service.storyPosition != nil else { return false }
        backlog.removeAll()
        storyLoaded = true
        storyHeard = false
        currentSentence = nil
        service.send(.settings(settings.clamped().settings))
        if let recordingTempo { service.send(.tempo(recordingTempo)) }
        service.send(.stepMode(stepMode ? .sentence : .off))
        hold(afterSentence: holdAfter)
        service.send(.resume, input: input)
        return true
    }

    package func stopStory() {
        backlog.removeAll()
        guard story != nil else { return }
        storyLoaded = false
        storyHeard = false
        story = nil
        service.send(.stop)
    }

    /// The service keeps the story where it was heard: a recording at the sample, synthesis at the word.
    func pauseStory() {
        backlog.removeAll()
        guard storyLoaded else { return }
        storyLoaded = false
        storyHeard = false
        service.send(.pause)
    }

    func change(settings: SpeechSettings) {
        service.send(.settings(settings))
    }

    func hold(afterSentence sentence: Int?) {
        guard let story else { return }
        service.send(.holdAfter(sentence.flatMap { wanted in story.items.lastIndex { $0.storySentenceIndex == wanted } }))
    }

    /// Heard only while the book's recording plays (the service keeps it for the story).
    func change(tempo: Double) {
        service.send(.tempo(tempo))
    }

    package func silence() {
        backlog.removeAll()
        storyLoaded = false
        story = nil
        service.send(.silence)
    }

    var deadline: UInt64? { nil }

    /// The events in this speech's own queue (without a loop's inbox: the benchmarks, and a virtual
    /// clock, where the story's events wait for the script).
    package func tick(now: UInt64) -> [NarrationEvent] {
        wake.drain()
        let events = receive(inbox.take(leaving: []))
        guard virtual != nil else { return events }
        backlog += events
        return []
    }

    /// The next event of the story on a virtual clock: the clock moves on, scheduled frame after
    /// scheduled frame, until the story says something or nothing more is scheduled.
    func takeVirtualEvent() -> NarrationEvent? {
        guard let virtual else { return nil }
        var stalled = 0
        while backlog.isEmpty {
            let before = virtual.framesPlayed
            service.flush()
            _ = tick(now: 0)
            if !backlog.isEmpty { break }
            guard storyLoaded, let next = nextFrame(virtual) else { return nil }
            virtual.play(upTo: next)
            // The clock moves at every turn, or the service writes what it held: never a loop for nothing.
            stalled = virtual.framesPlayed == before ? stalled + 1 : 0
            if stalled > 1000 { return nil }
        }
        return backlog.removeFirst()
    }

    /// Where the virtual clock moves next: the next scheduled frame, else the end of what was
    /// written (sound without events, as the last word of a sentence is heard); nil: nothing more.
    private func nextFrame(_ virtual: VirtualClockSink) -> Int? {
        service.nextScheduledFrame ?? (virtual.framesWritten > virtual.framesPlayed ? virtual.framesWritten : nil)
    }

    func settle() {
        guard let virtual else { return }
        service.flush()
        _ = tick(now: 0)
        while service.isSpeakingInterface, let next = nextFrame(virtual) {
            virtual.play(upTo: next)
            service.flush()
            _ = tick(now: 0)
        }
    }

    package func receive(_ events: [SpeechService.Event]) -> [NarrationEvent] {
        var out: [NarrationEvent] = []
        for event in events {
            switch event {
            case .queue(let command):
                log(command)
                if case .start(let utterance) = command, utterance.kind == .story { storyHeard = true }
                if case .interrupt(let utterance) = command, utterance.kind == .story {
                    storyHeard = false
                    trace?("story held")
                }
            case .finished, .utteranceFailed:
                break
            case .story(let heard):
                if case .recordingUnavailable(let sentence, let problem) = heard.kind {
                    notices.append(
                        messages.tr(
                            "sentence {sentence}: {problem}: eSpeak NG reads what the recording cannot",
                            [
                                "sentence": String(sentence + 1), "problem": problem.localized(messages),
                            ]))
                }
                if case .sentence(let index) = heard.kind { trace?(Self.sourceLine(sentence: index, heard.clip)) }
                if case .tone(let label) = heard.kind, storyLoaded, heard.story == narrations { trace?("tone " + label) }
                out += storyEvents(heard)
            case .storyFailed:
                // Said as the end of what could be read: the Session closes the story.
                if storyLoaded {
                    storyLoaded = false
                    out.append(.finished)
                }
            }
        }
        return out
    }

    /// The service's events in the Session's terms (story sentences and words).
    private func storyEvents(_ event: SpeechService.StoryEvent) -> [NarrationEvent] {
        guard storyLoaded, event.story == narrations else { return [] }
        var out: [NarrationEvent] = []
        switch event.kind {
        case .sentence(let index):
            guard let story, index < story.items.count else { break }
            let sentence = story.items[index].storySentenceIndex
            // After a hold for an answer the sentence goes on: not a new one.
            guard currentSentence != sentence else { break }
            if let previous = currentSentence { out.append(.sentenceFinished(previous)) }
            currentSentence = sentence
            out.append(.sentenceStarted(sentence))
        case .word(let index, let word):
            guard let story, index < story.items.count else { break }
            out.append(.word(story.firstWord[story.items[index].storySentenceIndex] + word))
        case .waitingForStep(let index):
            guard let story, index < story.items.count else { break }
            currentSentence = nil
            out.append(.sentenceFinished(story.items[index].storySentenceIndex))
        case .end:
            if let previous = currentSentence { out.append(.sentenceFinished(previous)) }
            currentSentence = nil
            storyLoaded = false
            storyHeard = false
            out.append(.finished)
        default:
            break
        }
        return out
    }

    /// The speech log's line for a sentence heard: "story sentence 3: recording book.mp3
    /// 0:00:01.200-0:00:03.450" (its file and clip, then each later clip of it: ", then
    /// book2.mp3 0:00:00.000-end" where it runs to its file's end), or "story sentence 3: synthesis".
    static func sourceLine(sentence: Int, _ clip: NarrationRecording.Sentence?) -> String {
        guard let clip else { return "story sentence \(sentence + 1): synthesis" }
        func named(_ clip: NarrationRecording.Sentence, end: String) -> String {
            let file = Sanitizer.sanitizeLine((clip.audio as NSString).lastPathComponent)
            return "\(file) \(StoryRecording.clock(clip.begin))-\(clip.end.map(StoryRecording.clock) ?? end)"
        }
        let later = clip.more.map { ", then " + named($0, end: "end") }.joined()
        return "story sentence \(sentence + 1): recording \(named(clip, end: StoryRecording.clock(clip.begin)))\(later)"
    }

    private func log(_ command: SpeechCommand) {
        for line in command.logLines { trace?(line) }
    }
}

extension String {
    fileprivate var nilIfEmpty: String? { isEmpty ? nil : self }
}
