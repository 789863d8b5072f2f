import Foundation

/// What was said and when: each sentence of a narrated story with its start and end, and each
/// word's start, in milliseconds from the start of the audio — taken from eSpeak NG's own word
/// events as the narration player reported them (the times `read --events json` prints).
public struct TimedNarration: Sendable, Hashable {
    public struct Sentence: Sendable, Hashable {
        public var text: String
        public var kind: Narration.Item.Kind
        /// Its index in the narration's items.
        public var item: Int
        public var start: Int
        public var end: Int
        public var words: [(text: String, start: Int)] {
            get { zip(wordTexts, wordStarts).map { ($0, $1) } }
            set {
                wordTexts = newValue.map(\.text)
                wordStarts = newValue.map(\.start)
            }
        }
        /// Each timed word's index in its narration item's words (the same order as `words`).
        public var wordIndices: [Int] = []
        private var wordTexts: [String] = []
        private var wordStarts: [Int] = []

        public init(text: String, kind: Narration.Item.Kind, item: Int = 0, start: Int, end: Int, words: [(text: String, start: Int)] = []) {
            self.text = text
            self.kind = kind
            self.item = item
            self.start = start
            self.end = end
            self.words = words
        }
    }

    public var sentences: [Sentence]
    /// The length of the audio.
    public var duration: Int

    public init(sentences: [Sentence], duration: Int) {
        self.sentences = sentences
        self.duration = duration
    }

    /// Builds the timeline from the player's events, in the order they were heard.
    public init(narration: Narration, events: [NarrationPlayer.Event]) {
        var sentences: [Sentence] = []
        var duration = 0
        for event in events {
            duration = max(duration, event.milliseconds)
            switch event.kind {
            case .sentence(let index):
                if var last = sentences.popLast() {
                    last.end = event.milliseconds
                    sentences.append(last)
                }
                let item = narration.items[index]
                sentences.append(Sentence(text: item.text, kind: item.kind, item: index, start: event.milliseconds, end: event.milliseconds))
            case .word(let sentence, let word):
                guard var last = sentences.popLast() else { continue }
                let text = narration.items[sentence].words[word].text
                last.words.append((text, event.milliseconds))
                last.wordIndices.append(word)
                sentences.append(last)
            case .end:
                if var last = sentences.popLast() {
                    last.end = event.milliseconds
                    sentences.append(last)
                }
            default:
                continue
            }
        }
        self.init(sentences: sentences, duration: duration)
    }

    /// The story's sentences (headings and text); picture descriptions go to their own track.
    public var spoken: [Sentence] { sentences.filter { $0.kind != .picture } }
    public var descriptions: [Sentence] { sentences.filter { $0.kind == .picture } }
}

/// Caption files beside exported audio.
public enum CaptionFormat: String, Sendable, CaseIterable {
    /// WebVTT: a cue per sentence, each word's time inside it (`<00:00:01.200>`).
    case vtt
    /// SubRip: a cue per sentence.
    case srt
    /// Enhanced LRC: a line per sentence with each word's time (`<00:01.20>`), as children's audio players show lyrics.
    case lrc

    /// The file's text for `sentences` (caption text on one line: line breaks become spaces).
    /// - Parameter wordTimes: each word's time inside a WebVTT cue (the story's captions); a
    ///   descriptions track shows each description whole.
    public func write(_ sentences: [TimedNarration.Sentence], title: String, wordTimes: Bool = true) -> String {
        switch self {
        case .vtt:
            var out = "WEBVTT\n"
            for (index, sentence) in sentences.enumerated() {
                out += "\n\(index + 1)\n\(Self.vttTime(sentence.start)) --> \(Self.vttTime(sentence.end))\n"
                var line = ""
                for (position, word) in sentence.words.enumerated() {
                    if position > 0 { line += "<\(Self.vttTime(word.start))>" }
                    line += Self.vttEscaped(word.text) + " "
                }
                out += (sentence.words.isEmpty || !wordTimes ? Self.vttEscaped(Self.oneLine(sentence.text)) : String(line.dropLast())) + "\n"
            }
            return out
        case .srt:
            var out = ""
            for (index, sentence) in sentences.enumerated() {
                out += "\(index + 1)\n\(Self.srtTime(sentence.start)) --> \(Self.srtTime(sentence.end))\n\(Self.oneLine(sentence.text))\n\n"
            }
            return out
        case .lrc:
            var out = "[ti:\(Self.oneLine(title))]\n"
            for sentence in sentences {
                out += "[\(Self.lrcTime(sentence.start))]"
                if sentence.words.isEmpty {
                    out += Self.oneLine(sentence.text)
                } else {
                    out += sentence.words.map { "<\(Self.lrcTime($0.start))>\(Self.oneLine($0.text))" }.joined(separator: " ")
                }
                out += "\n"
            }
            return out
        }
    }

    static func oneLine(_ text: String) -> String {
        Sanitizer.sanitizeLine(text).split(whereSeparator: \.isNewline).joined(separator: " ")
    }

    /// `-->`, `<` and `&` would end or break a cue.
    static func vttEscaped(_ text: String) -> String {
        oneLine(text).replacingOccurrences(of: "&", with: "&amp;").replacingOccurrences(of: "<", with: "&lt;").replacingOccurrences(of: ">", with: "&gt;")
    }

    /// `00:01:02.345`.
    public static func vttTime(_ ms: Int) -> String {
        String(format: "%02d:%02d:%02d.%03d", ms / 3_600_000, ms / 60_000 % 60, ms / 1000 % 60, ms % 1000)
    }

    /// `00:01:02,345`.
    public static func srtTime(_ ms: Int) -> String {
        String(format: "%02d:%02d:%02d,%03d", ms / 3_600_000, ms / 60_000 % 60, ms / 1000 % 60, ms % 1000)
    }

    /// `01:02.34` (minutes may pass 59, as LRC players expect).
    public static func lrcTime(_ ms: Int) -> String {
        String(format: "%02d:%02d.%02d", ms / 60_000, ms / 1000 % 60, ms % 1000 / 10)
    }
}
