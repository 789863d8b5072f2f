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

    @Option(
        help: ArgumentHelp(
            helpMessages.tr("With --coach: seconds of silence before the next word is said for the child, 2–8 (default 3)."),
            valueName: "seconds"))
    var coachWait: Double?

    func validate() throws {
        if !coach, listen != nil || coachWait != nil {
            throw ValidationError(helpMessages.tr("--listen and --coach-wait go with --coach"))
        }
        if let coachWait, !(2...8).contains(coachWait) {
            throw ValidationError(helpMessages.tr("--coach-wait {value}: use a number of seconds from 2 to 8", ["value": String(coachWait)]))
        }
    }
}

extension ReadCommand {
    /// Follows the reading in `coachOptions.listen` (the microphone is not wired yet: the REPL's
    /// key and the kiosk get it with the reader's loop), printing the coach's events as JSON lines
    /// with --events json, and the tally on standard error (standard output holds the events).
    func runCoach(_ story: Story, narration: Narration) throws {
        let messages = global.messages
        guard let model = ListeningModel.forLanguage(story.language) else {
            throw UserFailure(message: messages.tr("Coaching is English-only for now: '{title}' is not in English", ["title": story.title]))
        }
        guard let path = coachOptions.listen else {
            throw UserFailure(
                message: messages.tr("--coach listens to a WAV file for now: give --listen FILE.wav (16 kHz mono 16-bit)"))
        }
        let samples: [Int16]
        let sentences = narration.items.enumerated().filter { $0.element.kind != .picture }.map {
            CoachSentence(id: $0.offset, words: $0.element.words.map(\.text))
        }
        let printer = events == .json ? CoachEventPrinter(narration: narration) : nil
        let coach: ReadingCoach
        do {
            samples = try ListeningAudio.samples(wavFile: path)
            let wait = Int(((coachOptions.coachWait ?? 3) * 1000).rounded())
            coach = try ReadingCoach(sentences: sentences, model: model, settings: .init(waitMilliseconds: wait)) { event in
                printer?.print(event)
            }
        } catch {
            throw UserFailure(message: error.localized(messages))
        }
        // Fed as a microphone would give it, a tenth of a second at a time.
        let chunk = ReadingCoach.sampleRate / 10
        for start in stride(from: 0, to: samples.count, by: chunk) where !coach.isDone {
            coach.feed(Array(samples[start..<min(samples.count, start + chunk)]))
            coach.wait()
        }
        let tally = coach.finish()
        FileHandle.standardError.write(Data((Sanitizer.visibleLines(Self.coachedSentence(tally, messages)) + "\n").utf8))
    }

    /// "You read 42 words by yourself, and I helped with 3."
    static func coachedSentence(_ tally: CoachTally, _ messages: MessageCatalog) -> String {
        messages.trn(
            "You read {count} word by yourself, and I helped with {helped}.", "You read {count} words by yourself, and I helped with {helped}.",
            tally.read, ["helped": String(tally.helped)])
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
