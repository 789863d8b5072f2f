import Foundation
import StoryKit
import StoryKitTestSupport
import Testing

@testable import StoryReader

/// The mark follows the voice: the REPL's own parts (the speech service on a sink whose clock the
/// test moves, the Session, the braille display of the shell) and a real BRLTTY playing a
/// 40-cell display. After every word the speech service says is heard, that word is marked on the
/// display before the clock moves on.
@Suite(.serialized)
struct BrailleFollowsSpeechTests {
    @Test func theMarkMovesWordByWordWithTheSpeechServicesWordEvents() throws {
        guard let display = try VirtualBrailleDisplay(cells: 40) else { return }
        let braille = ReplBraille(
            mode: .on, takesEveryKey: false,
            address: BrailleDisplay.Address(host: display.brlapiHost, auth: "none"))
        defer { braille.stop() }
        let deadline = Date().addingTimeInterval(10)
        while braille.cells == nil, Date() < deadline {
            _ = braille.takeEvents()
            usleep(10_000)
        }
        try #require(braille.cells == 40, "BrlAPI did not connect:\n\(display.log)")
        try EspeakEngine.shared.start()
        let sink = ManualClockSink()
        let speech = ServiceSpeech(sink: sink)
        speech.prepareVoices(["en"])
        let fixture = try ReplFixture(withProfiles: false)
        defer { fixture.remove() }
        var session = Session(
            catalog: StoryCatalog(library: StoryLibrary.load(folders: [fixture.stories])),
            snapshot: SessionSnapshot(profiles: [ChildProfile(id: 1, name: "Ada", age: 6)]), profile: "Ada")
        _ = session.start()
        for effect in session.handle(.command(.read("tiny fox"))) {
            guard case .narrate(_, let fromWord, let settings, let stepMode) = effect, let story = session.state.reader?.story else { continue }
            _ = speech.narrate(story, fromWord: fromWord, settings: settings, stepMode: stepMode, input: 1)
        }
        let story = try #require(session.state.reader?.story)
        var heard: [Int] = []
        var played = 0
        while heard.count < story.words.count, played < 60_000 {
            sink.advance(milliseconds: 20)
            speech.service.flush()
            played += 20
            for event in speech.tick(now: monotonicNanoseconds()) {
                // In the shell's order (ReplShell.deliver, then followBraille after the turn).
                if case .word = event { braille.storyHeard() }
                _ = session.handle(.narration(event))
                _ = braille.follow(session, code: .grade1, now: monotonicNanoseconds())
                guard case .word(let index) = event, let reader = session.state.reader else { continue }
                heard.append(index)
                let sentence = story.sentences[reader.sentence]
                var line = try BrailleLine(
                    text: sentence.text, table: "en-ueb-g1.ctb",
                    words: sentence.words.map { ($0.range.start - sentence.range.start)..<($0.range.end - sentence.range.start) },
                    width: 40)
                line.mark(word: index - reader.map.firstWord(ofSentence: reader.sentence))
                #expect(
                    display.waitFor(timeout: 5) { $0 == line.shown } != nil,
                    "‘\(story.words[index].text)’ (word \(index)) was heard but not marked on the display")
            }
        }
        #expect(heard == Array(0..<story.words.count), "every word heard once, in order: \(heard)")
    }
}
