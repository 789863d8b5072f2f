import Foundation
package import StoryKit

/// `--braille`: whether to use a braille display through BRLTTY.
package enum BrailleMode: String, CaseIterable {
    /// Use one when BRLTTY runs; say nothing when it does not.
    case auto
    /// Use one, and say so once when there is none.
    case on
    case off
}

/// The braille display of the REPL, the kiosk and `read`: it follows the session as the screen
/// does, after every turn of the loop, so it shows what speech says through the same events (the
/// speech service's word heard → the Session's reader → here), never through a path of its own.
///
/// Browsing, it shows the focused element's spoken form; reading, the sentence being read in the
/// child's braille code with the word being heard marked with dots 7–8; announcements for
/// BRLTTY's message time, then what was there before (sooner when the voice goes back to the
/// story: braille follows the voice).
package final class ReplBraille {
    /// How long an announcement stays (BRLTTY's own default message time, 4 s).
    static let messageNanoseconds: UInt64 = 4_000_000_000

    let mode: BrailleMode
    /// Wakes the poll loop when the display's thread has something.
    let wake = WakePipe()
    private let inbox = LockedValue<[BrailleDisplay.Event]>([])
    private var display: BrailleDisplay?
    /// The display's cells (nil: not connected).
    package private(set) var cells: Int?
    /// The cells last handed to the display.
    package private(set) var shown: [UInt8] = []

    /// Where the line on the display came from.
    enum Source: Hashable {
        /// Sentence `index` of the story being read, whose first word is `firstWord` of the story.
        case sentence(story: String, index: Int, firstWord: Int)
        case element
    }
    private var source: Source?
    private var key: (text: String, table: String, cells: Int)?
    private var line: BrailleLine?
    private var message: (line: BrailleLine, until: UInt64)?
    /// A table that would not load is told once.
    private var failedTables: Set<String> = []

    /// - Parameters:
    ///   - address: where BrlAPI is (by default `$BRLAPI_HOST`, else the local BRLTTY).
    ///   - post: where the display's events go (the loop's inbox, which hands them to `receive`);
    ///     nil: a queue of this display's own, read by `takeEvents` (the benchmarks, the tests).
    ///   - tables: liblouis tables to compile when a display connects, on the display's thread,
    ///     before the loop hears of it: following the session then reads no table file (a first
    ///     use compiles one, tens of milliseconds).
    package init(
        mode: BrailleMode, takesEveryKey: Bool, address: BrailleDisplay.Address = BrailleDisplay.Address(),
        tables: [String] = [], post: (@Sendable (BrailleDisplay.Event) -> Void)? = nil
    ) {
        self.mode = mode
        guard mode != .off else { return }
        let inbox = self.inbox
        let wake = self.wake
        let post =
            post ?? { event in
                inbox.withLock { $0.append(event) }
                wake.signal()
            }
        display = BrailleDisplay(
            address: address, takesEveryKey: takesEveryKey,
            onEvent: { event in
                if case .connected = event {
                    for table in tables { _ = BrailleTranslator.canLoad(table) }
                }
                post(event)
            })
        // A local BRLTTY answers (or refuses) in milliseconds: the first screen then reaches the
        // display, and `--braille on`'s notice comes before the first command of a script.
        display?.waitForFirstAttempt()
    }

    /// What the display's thread reported to this display's own queue since the last call.
    package func takeEvents() -> [BrailleDisplay.Event] {
        wake.drain()
        return receive(inbox.take(leaving: []))
    }

    /// What the display's thread reported, kept track of (the loop's thread); returns them.
    package func receive(_ events: [BrailleDisplay.Event]) -> [BrailleDisplay.Event] {
        for event in events {
            switch event {
            case .connected(let count):
                cells = count
                key = nil
            case .lost, .unavailable:
                cells = nil
            case .key:
                break
            }
        }
        return events
    }

    /// The story's voice went on (a word heard): an announcement gives the display back to it.
    package func storyHeard() { message = nil }

    /// When the loop must look again (an announcement's end), if nothing else comes.
    var deadline: UInt64? { message?.until }

    /// Gives the display back (leaving the program).
    package func stop() { display?.stop() }

    /// Shows an announcement for a while, in `table` (the interface's language).
    /// - Returns: the table, when it could not be loaded (once per table).
    func announce(_ text: String, table: String, now: UInt64) -> String? {
        guard let cells else { return nil }
        let shown = Sanitizer.sanitizeLine(text)
        do {
            var announcement = try BrailleLine(text: shown, table: table, words: BrailleLine.wordRanges(of: shown), width: cells)
            announcement.mark(word: nil)
            message = (announcement, now + Self.messageNanoseconds)
            show(announcement.shown)
            return nil
        } catch {
            return failed(error)
        }
    }

    /// The display follows the session: the reader's sentence and word, or the focused element.
    /// - Parameter code: the child's braille code.
    /// - Returns: the table, when it could not be loaded (once per table).
    package func follow(_ session: Session, code: BrailleCode, now: UInt64) -> String? {
        guard let cells, display != nil else { return nil }
        if let shown = message, now < shown.until { return nil }
        message = nil
        let state = session.state
        var text: String
        var words: [Range<Int>]
        var from: Source
        let table: String
        var marked: Int?
        if state.route == .reader, let reader = state.reader, reader.story.sentences.indices.contains(reader.sentence) {
            let index = reader.sentence
            let sentence = reader.story.sentences[index]
            let firstWord = reader.map.firstWord(ofSentence: index)
            text = sentence.text
            words = sentence.words.map { ($0.range.start - sentence.range.start)..<($0.range.end - sentence.range.start) }
            from = .sentence(story: reader.story.id, index: index, firstWord: firstWord)
            table = code.table(forLanguage: reader.story.language)
            if reader.status != .finished, (firstWord..<(firstWord + words.count)).contains(reader.wordIndex) {
                marked = reader.wordIndex - firstWord
            }
        } else {
            text =
                session.focusedElement.map { SpokenForm.describe($0, hints: false, messages: state.messages) }
                ?? SpokenForm.finish(session.screen.title)
            text = Sanitizer.sanitizeLine(text)
            words = BrailleLine.wordRanges(of: text)
            from = .element
            table = code.table(forLanguage: state.language)
        }
        if key?.text != text || key?.table != table || key?.cells != cells || source != from || line == nil {
            do {
                line = try BrailleLine(text: text, table: table, words: words, width: cells)
            } catch {
                line = nil
                key = nil
                show([])
                return failed(error)
            }
            key = (text, table, cells)
            source = from
        }
        line?.mark(word: marked)
        if let line { show(line.shown) }
        return nil
    }

    /// What a display key means here: a command for the session, a key, or nothing (the display
    /// only moved its window).
    enum Action: Equatable {
        case command(Command)
        case key(Key)
        case none
    }

    func action(for key: BrailleKey, reading: Bool) -> Action {
        // A key on an announcement only dismisses it, as on BRLTTY's own messages: the cells
        // under the finger were the announcement's, not the line's.
        if message != nil {
            message = nil
            return .none
        }
        switch key {
        case .route(let cell):
            guard let line, let word = line.word(atCell: cell) else { return .none }
            if case .sentence(_, _, let firstWord) = source, reading { return .command(.goToWord(firstWord + word)) }
            return .command(.activate)
        case .panBack:
            if line?.panBack() == true { return .none }
            return reading ? .command(.previousSentence) : .none
        case .panOn:
            if line?.panOn() == true { return .none }
            return reading ? .command(.nextSentence) : .none
        case .lineUp: return reading ? .command(.previousSentence) : .key(.up)
        case .lineDown: return reading ? .command(.nextSentence) : .key(.down)
        case .key(let key): return .key(key)
        }
    }

    /// The window after a pan that stayed inside the line.
    func showLine() {
        if let line, message == nil { show(line.shown) }
    }

    private func show(_ cells: [UInt8]) {
        shown = cells
        display?.show(cells)
    }

    private func failed(_ error: BrailleError) -> String? {
        guard failedTables.insert(error.table).inserted else { return nil }
        return error.table
    }
}
