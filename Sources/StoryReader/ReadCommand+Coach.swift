import ArgumentParser
import Foundation
import StoryKit
import Synchronization

/// `read --coach`: the child reads the story aloud and the coach follows (issue 45).
struct CoachOptions: ParsableArguments {
    @Flag(
        help: ArgumentHelp(
            helpMessages.tr(
                "The child reads, the program listens: each word read is followed, and after a silence the next word is said for them. The child's voice is never written anywhere."
            )))
    var coach = false

    @Option(
        help: ArgumentHelp(
            helpMessages.tr("With --coach: take this WAV file (16 kHz mono 16-bit) as the microphone; time does not wait."), valueName: "file"))
    var listen: String?

    @OptionGroup var microphone: MicrophoneOptions

    func validate() throws {
        if !coach, listen != nil {
            throw ValidationError(helpMessages.tr("--listen goes with --coach"))
        }
    }
}

/// The read-along coach's microphone and patience, for `read --coach` and for the `r` key in the
/// reader of the REPL, the kiosk and `read`.
struct MicrophoneOptions: ParsableArguments {
    @Option(
        help: ArgumentHelp(
            helpMessages.tr(
                "The ALSA capture device the read-along coach listens on (default: $STORYREADER_MIC_DEVICE, else 'default'), opened only while the child reads to it (the r key while reading, or read --coach) and closed when they stop. Nothing it hears is written anywhere. Without one, reading goes on as before."
            ), valueName: "name"))
    var mic: String?

    @Option(
        help: ArgumentHelp(
            helpMessages.tr("Seconds of silence before the read-along coach says the next word for the child, 2–8 (default: the child's Coach waits, else 3)."),
            valueName: "seconds"))
    var coachWait: Double?

    func validate() throws {
        if let coachWait, !(2...8).contains(coachWait) {
            throw ValidationError(helpMessages.tr("--coach-wait {value}: use a number of seconds from 2 to 8", ["value": String(coachWait)]))
        }
    }

    var waitMilliseconds: Int? { coachWait.map { Int(($0 * 1000).rounded()) } }

    /// The session's silence before help, and the shell's microphone.
    func apply(to shell: ReplShell) {
        shell.microphoneDevice = mic
        if let waitMilliseconds { shell.session.setCoachWait(milliseconds: waitMilliseconds) }
    }
}

extension ReadCommand {
    /// Said when --coach is asked for a story the coach cannot follow (it is then read as without).
    static func englishOnly(_ story: Story, _ messages: MessageCatalog) -> String {
        ListeningModel.englishOnly(title: story.title, messages)
    }

    /// Follows the child reading in the WAV file given with --listen (`path`), fed as fast as it
    /// decodes (time does not wait), until the last word or Ctrl-C. The coach's events are printed
    /// as JSON lines with --events json; the help word is said in the story's voice as it is given,
    /// and the tally at the end in the interface's, through the speech service (and printed on
    /// standard error: standard output holds the events). The microphone is not this: `read
    /// --coach` without --listen is the reader with `r` pressed (`ReplListening`).
    func runCoach(_ story: Story, narration: Narration, model: ListeningModel, listening path: String) throws {
        let messages = global.messages
        let child = try childReading()
        var storySettings = settings(over: child?.profile.settings.speech ?? .storyDefaults)
        storySettings.voice = try resolvedVoice(story, over: storySettings) ?? story.language
        let sentences = narration.items.enumerated().filter { $0.element.kind != .picture }.map {
            CoachSentence(id: $0.offset, words: $0.element.words.map(\.text))
        }
        let printer = events == .json ? CoachEventPrinter(narration: narration) : nil
        // Help words reach the speech from the listening thread through this, said on this one.
        let helpWords = LockedValue<[String]>([])
        // A tenth of a second at a time, as a microphone gives it.
        let chunk = ReadingCoach.sampleRate / 10
        let next: () -> [Int16]
        let coach: ReadingCoach
        do {
            let samples = try ListeningAudio.samples(wavFile: path)
            var start = 0
            next = {
                defer { start += chunk }
                return start < samples.count ? Array(samples[start..<min(samples.count, start + chunk)]) : []
            }
            // --coach-wait, else the child's own (the profile form's "Coach waits"), else 3 s.
            let wait = coachOptions.microphone.waitMilliseconds ?? (child?.profile.settings.coachWaitSeconds ?? CoachWait.standard) * 1000
            coach = try ReadingCoach(sentences: sentences, model: model, settings: .init(waitMilliseconds: wait)) { event in
                printer?.print(event)
                if case .help(let word, _) = event { helpWords.withLock { $0.append(word.text) } }
            }
        } catch {
            throw UserFailure(message: error.localized(messages))
        }
        let voice = try CoachVoice(noAudio: noAudio, device: device, story: storySettings, messages: messages, warn: warn)
        let stopped = LockedValue(false)
        TerminalMode.onStopSignal { stopped.withLock { $0 = true } }
        while !coach.isDone, !stopped.withLock({ $0 }) {
            let samples = next()
            if samples.isEmpty { break }
            coach.feed(samples)
            coach.wait()
            for word in helpWords.take(leaving: []) {
                // Everything said is shown: without the events, the word helped with is a caption line.
                if printer == nil { TerminalIO.write(Sanitizer.visibleLines(word) + "\n") }
                voice.help(word, language: story.language)
            }
        }
        let tally = coach.finish()
        // Kept for the child named by --profile (history, the site), unless nothing was read or said.
        if let child, tally.read + tally.helped > 0 {
            child.store.storyTitles.know([(story.id, story.title)])
            do {
                try child.store.recordCoachedRead(profileID: child.id, storyID: story.id, tally: tally)
            } catch {
                warn(messages.tr("could not record the read: {problem}", ["problem": StoreCommandSupport.describe(error, messages)]))
            }
        }
        let sentence = Self.coachedSentence(tally, messages)
        FileHandle.standardError.write(Data((Sanitizer.visibleLines(sentence) + "\n").utf8))
        voice.say(sentence)
        voice.finish()
        if stopped.withLock({ $0 }) { throw ExitCode(130) }
    }

    /// "You read 42 words by yourself, and I helped with 3."
    static func coachedSentence(_ tally: CoachTally, _ messages: MessageCatalog) -> String {
        tally.spoken(messages)
    }
}

/// What the coach says aloud in `read --coach`, through the one speech service (its queue's
/// decisions in `$STORYREADER_SPEECH_LOG`): on the audio device (or paced silence), or with
/// --no-audio on a clock that moves only as each thing is said (time does not wait).
final class CoachVoice {
    private let speech: ServiceSpeech
    private let story: SpeechSettings
    private let language: String

    init(noAudio: Bool, device: String?, story: SpeechSettings, messages: MessageCatalog, warn: @escaping (String) -> Void) throws {
        let sink: any PCMSink
        if noAudio {
            do { try EspeakEngine.shared.start() } catch { throw UserFailure(message: messages.describe(error)) }
            sink = VirtualClockSink()
        } else {
            sink = try ReplCommand.openAudio(noAudio: false, device: device, messages: messages, warn: warn).sink
        }
        speech = ServiceSpeech(sink: sink)
        speech.messages = messages
        speech.trace = ServiceSpeech.speechLog()
        self.story = story
        language = messages.language
    }

    /// The next word, said for the child in the story's voice (a message: never dropped); as one
    /// run in the story's language, which the speech log names (`runs en[word]`).
    func help(_ word: String, language storyLanguage: String) {
        let text = Sanitizer.sanitizeLine(word)
        var utterance = Utterance(text, priority: .message)
        utterance.language = storyLanguage
        utterance.runs = [SpeechRun(text: text, language: storyLanguage)]
        speech.say(utterance, settings: story)
        heard()
    }

    /// `text` in the interface's language and voice.
    func say(_ text: String) {
        var utterance = Utterance(Sanitizer.sanitizeLine(text), priority: .message)
        utterance.language = language
        speech.say(utterance, settings: nil)
        heard()
    }

    /// What was said so far is logged; on the virtual clock it is heard out at once.
    private func heard() {
        speech.settle()
        _ = speech.tick(now: 0)
    }

    /// Waits until everything said is heard (on a device: at most 10 s).
    func finish() {
        let clock = SystemMonotonicClock()
        let deadline = clock.now() + 10
        while speech.isAudible, speech.isBusy, clock.now() < deadline {
            Thread.sleep(forTimeInterval: 0.02)
            _ = speech.tick(now: 0)
        }
        _ = speech.tick(now: 0)
        speech.silence()
    }
}

/// The coach's events as JSON lines (`read --coach --events json`).
final class CoachEventPrinter: Sendable {
    let narration: Narration

    init(narration: Narration) {
        self.narration = narration
    }

    func print(_ event: CoachEvent) {
        TerminalIO.write(jsonLine(event) + "\n")
    }

    func jsonLine(_ event: CoachEvent) -> String {
        switch event {
        case .heard(let word, let ms, let end):
            return "{\"type\":\"heard\",\(place(word)),\"ms\":\(ms),\"end_ms\":\(end)}"
        case .skipped(let word, let ms):
            return "{\"type\":\"skipped\",\(place(word)),\"ms\":\(ms)}"
        case .help(let word, let ms):
            return "{\"type\":\"help\",\(place(word)),\"ms\":\(ms)}"
        case .finished(let tally):
            return "{\"type\":\"coached\",\"read\":\(tally.read),\"helped\":\(tally.helped),\"skipped\":\(tally.skipped)}"
        }
    }

    /// `"word":W,"start":S,"end":E`: the word as written and its offsets in the story's plain text.
    private func place(_ word: CoachWord) -> String {
        let range = narration.items[word.sentence].words[word.index].range
        return "\"word\":\(EventPrinter.jsonString(word.text)),\"start\":\(range.start),\"end\":\(range.end)"
    }
}
