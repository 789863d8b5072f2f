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
                // The first word not marked ends the test, saying what the display showed, what
                // the display's thread reported and what BRLTTY said (it failed once in CI for
                // every word, a cause not found yet).
                try #require(
                    display.waitFor(timeout: 5) { $0 == line.shown } != nil,
                    """
                    ‘\(story.words[index].text)’ (word \(index)) was heard but not marked on the display
                    expected \(line.shown)
                    shown    \(display.shown.map { "\($0)" } ?? "nothing") (\(display.written.count) writes)
                    the display's thread: cells \(braille.cells.map(String.init) ?? "none"), events \(braille.takeEvents())
                    BRLTTY running: \(display.isRunning), said: \(display.log.suffix(1500))
                    """)
            }
        }
        #expect(heard == Array(0..<story.words.count), "every word heard once, in order: \(heard)")
    }

    /// A program that connects while BRLTTY's display is still starting gets the display once it
    /// is ready, and BRLTTY lives through its writes. (The program now waits for the display's size
    /// before it takes the tty: BRLTTY 6.5 sizes a client's window then, and a client that took it
    /// at 0 cells and wrote 40 overran BRLTTY's heap — the test above failed so, 2 runs in 13,
    /// "malloc_consolidate(): invalid chunk size", the write shown by valgrind; 0 in 25 since. That
    /// race lasts a round trip and cannot be forced from here: this test does not catch it alone.)
    @Test func aProgramThatComesBeforeTheDisplayIsReadyWaitsForIt() throws {
        guard let display = try VirtualBrailleDisplay(cells: 40, sizeAfter: 1) else { return }
        let events = LockedValue<[BrailleDisplay.Event]>([])
        let braille = BrailleDisplay(address: BrailleDisplay.Address(host: display.brlapiHost, auth: "none")) { event in
            events.withLock { $0.append(event) }
        }
        defer { braille.stop() }
        let deadline = Date().addingTimeInterval(10)
        while braille.cellCount == nil, Date() < deadline { usleep(10_000) }
        #expect(braille.cellCount == 40, "\(events.withLock { $0 })\n\(display.log)")
        for round in 1...20 {
            let cells = (0..<40).map { UInt8(truncatingIfNeeded: $0 * round + 1) }
            braille.show(cells)
            try #require(display.waitFor(timeout: 5) { $0 == cells } != nil, "write \(round): \(events.withLock { $0 })\n\(display.log)")
        }
        #expect(display.isRunning, "BRLTTY died: \(display.log)")
        #expect(!events.withLock { $0 }.contains { if case .lost = $0 { true } else { false } })
    }

    /// BRLTTY with no display plugged in answers BrlAPI with a display of one cell (its "no"
    /// driver): that is no display, said once, and nothing is written to it.
    @Test func brlttyWithoutADisplayIsNoDisplay() throws {
        guard let display = try VirtualBrailleDisplay(withoutDisplay: true) else { return }
        let events = LockedValue<[BrailleDisplay.Event]>([])
        let braille = BrailleDisplay(address: BrailleDisplay.Address(host: display.brlapiHost, auth: "none")) { event in
            events.withLock { $0.append(event) }
        }
        defer { braille.stop() }
        braille.waitForFirstAttempt()
        #expect(braille.cellCount == nil)
        let seen = events.withLock { $0 }
        #expect(seen.count == 1, "\(seen)")
        #expect(seen.first == .unavailable(.noDisplay), "\(seen)\n\(display.log)")
    }
}
