/// Splits a block of plain text into sentences and words, each with its scalar range.
///
/// The rules are made for children's stories read aloud:
/// - a sentence ends at `.`, `!`, `?` or `…` (and runs of them), after any closing quotes or
///   brackets, when whitespace follows and the next word does not start in lower case (so
///   “Help!” cried the mouse stays one sentence), and not after a known abbreviation or an initial;
/// - a very long stretch without an end (a 1 MB line) is cut at a space every `maximumSentenceScalars`;
/// - a word is a run of letters, digits and marks, joined by an apostrophe, a hyphen, or a `.`/`,`
///   between digits (`Pip’s`, `don’t`, `star-shaped`, `3,000`, `K-9`); an emoji is a word on its own.
public enum Segmenter {
    /// Longest sentence, in scalars, before it is cut at a space.
    public static let maximumSentenceScalars = 600

    private static let abbreviations: Set<String> = [
        "mr", "mrs", "ms", "dr", "st", "mt", "jr", "sr", "sra", "srta", "vs", "etc", "prof", "capt",
        "mme", "mlle", "dra", "hr", "nr", "no", "fig", "e.g", "i.e", "z.b", "ca",
    ]

    /// A character of the text as the rules look at it: its first scalar (which is what
    /// `Character.isWhitespace`, `isLetter` and `isNumber` look at), its one scalar's value when it
    /// has only one (0 otherwise), and where it is in the text. Walking these instead of an array
    /// of `Character` spares building a Character for each (half of parsing a story).
    private struct Glyph {
        var first: Unicode.Scalar
        var single: UInt32
        var index: String.Index

        var isWhitespace: Bool {
            if first.isASCII {
                let value = first.value
                return value == 0x20 || (value >= 0x09 && value <= 0x0D)
            }
            return first.properties.isWhitespace
        }
        var isLetter: Bool {
            if first.isASCII {
                let value = first.value | 0x20
                return value >= 0x61 && value <= 0x7A
            }
            return first.properties.isAlphabetic
        }
        var isNumber: Bool {
            if first.isASCII { return first.value >= 0x30 && first.value <= 0x39 }
            return first.properties.numericType != nil
        }
    }

    /// The sentences of `text`, whose first scalar stands at `offset` in the story text.
    public static func sentences(in text: String, startingAt offset: Int) -> [Sentence] {
        let (characters, scalarStarts, textEnd) = walk(text, startingAt: offset)
        func stringIndex(_ position: Int) -> String.Index { position < characters.count ? characters[position].index : textEnd }

        var sentences: [Sentence] = []
        var start = 0  // index in characters
        var index = 0
        func emit(upTo end: Int) {
            var first = start
            var last = end
            while first < last, characters[first].isWhitespace { first += 1 }
            while last > first, characters[last - 1].isWhitespace { last -= 1 }
            if first < last {
                let range = TextRange(start: scalarStarts[first], end: scalarStarts[last])
                let sentenceText = String(text[stringIndex(first)..<stringIndex(last)])
                let words = self.words(in: characters, from: first, to: last, scalarStarts: scalarStarts, text: text, end: textEnd)
                sentences.append(Sentence(text: sentenceText, range: range, words: words))
            }
            start = end
        }

        while index < characters.count {
            let character = characters[index]
            if isTerminator(character) {
                var end = index + 1
                while end < characters.count, isTerminator(characters[end]) { end += 1 }
                while end < characters.count {
                    if isCloser(characters[end]) {
                        end += 1
                    } else if [0x20, 0xA0, 0x202F].contains(characters[end].single),
                        end + 1 < characters.count, characters[end + 1].single == 0xBB
                    {
                        // French puts a space inside the closing guillemet: « Regardez-moi ! »
                        end += 2
                    } else {
                        break
                    }
                }
                if end >= characters.count {
                    index = end
                    continue
                }
                if characters[end].isWhitespace, endsSentence(characters, text: text, terminatorAt: index, after: end) {
                    emit(upTo: end)
                }
                index = end
                continue
            }
            // Counted in scalars, as the limit says: an emoji character can be several.
            if scalarStarts[index] - scalarStarts[start] >= maximumSentenceScalars, character.isWhitespace {
                emit(upTo: index)
            }
            index += 1
        }
        emit(upTo: characters.count)
        return sentences
    }

    /// The words of `text`, whose first scalar stands at `offset`.
    public static func words(in text: String, startingAt offset: Int) -> [Word] {
        let (characters, scalarStarts, end) = walk(text, startingAt: offset)
        return words(in: characters, from: 0, to: characters.count, scalarStarts: scalarStarts, text: text, end: end)
    }

    /// The characters of `text`, where each starts in scalars (from `offset`; one more entry for
    /// the end), and the text's end. A sentence's or a word's text is then cut from `text` as
    /// UTF-8, not rebuilt a Character at a time (which cost a quarter of parsing a story).
    private static func walk(_ text: String, startingAt offset: Int) -> (characters: [Glyph], scalarStarts: [Int], end: String.Index) {
        var characters: [Glyph] = []
        var scalarStarts: [Int] = []
        let estimate = text.utf8.count + 1
        characters.reserveCapacity(estimate)
        scalarStarts.reserveCapacity(estimate)
        var position = offset
        var index = text.startIndex
        let scalars = text.unicodeScalars
        while index < text.endIndex {
            let next = text.index(after: index)
            let first = scalars[index]
            // Most characters are one scalar, and most of those one byte.
            let count = text.utf8.distance(from: index, to: next) == 1 ? 1 : scalars.distance(from: index, to: next)
            characters.append(Glyph(first: first, single: count == 1 ? first.value : 0, index: index))
            scalarStarts.append(position)
            position += count
            index = next
        }
        scalarStarts.append(position)
        return (characters, scalarStarts, text.endIndex)
    }

    private static func words(in characters: [Glyph], from: Int, to: Int, scalarStarts: [Int], text: String, end textEnd: String.Index) -> [Word] {
        func stringIndex(_ position: Int) -> String.Index { position < characters.count ? characters[position].index : textEnd }
        var words: [Word] = []
        var index = from
        while index < to {
            let character = characters[index]
            if isEmoji(character, in: text) {
                words.append(Word(text: String(text[character.index]), range: TextRange(start: scalarStarts[index], end: scalarStarts[index + 1])))
                index += 1
                continue
            }
            guard isWordScalar(character.first) else {
                index += 1
                continue
            }
            var end = index + 1
            while end < to {
                if isWordScalar(characters[end].first) {
                    end += 1
                } else if end + 1 < to, isJoiner(characters[end], before: characters[end - 1], after: characters[end + 1]) {
                    end += 2
                } else {
                    break
                }
            }
            words.append(Word(text: String(text[stringIndex(index)..<stringIndex(end)]), range: TextRange(start: scalarStarts[index], end: scalarStarts[end])))
            index = end
        }
        return words
    }

    // Punctuation tests compare the single scalar: comparing Characters costs a string comparison.
    private static func isTerminator(_ character: Glyph) -> Bool {
        switch character.single {
        case 0x2E, 0x21, 0x3F, 0x2026: true  // . ! ? …
        default: false
        }
    }

    private static func isCloser(_ character: Glyph) -> Bool {
        switch character.single {
        case 0x201D, 0x2019, 0x22, 0x27, 0x29, 0x5D, 0xBB, 0x2A, 0x5F: true  // ” ’ " ' ) ] » * _
        default: false
        }
    }

    private static func endsSentence(_ characters: [Glyph], text: String, terminatorAt index: Int, after end: Int) -> Bool {
        // The next visible character: a lower-case letter continues the sentence.
        var next = end
        while next < characters.count, characters[next].isWhitespace { next += 1 }
        guard next < characters.count else { return true }
        var probe = next
        while probe < characters.count, !characters[probe].isLetter, !characters[probe].isNumber,
            isOpener(characters[probe])
        { probe += 1 }
        if probe < characters.count, text[characters[probe].index].isLowercase { return false }
        // A full stop after an abbreviation or a single-letter initial does not end the sentence.
        if characters[index].single == 0x2E && (index + 1 == end || !isTerminator(characters[index + 1])) {
            var wordStart = index
            while wordStart > 0, characters[wordStart - 1].isLetter || characters[wordStart - 1].single == 0x2E { wordStart -= 1 }
            let word = String(text[characters[wordStart].index..<characters[index].index]).lowercased()
            if index - wordStart == 1, text[characters[wordStart].index].isUppercase { return false }
            if abbreviations.contains(word) { return false }
        }
        return true
    }

    private static func isOpener(_ character: Glyph) -> Bool {
        switch character.single {
        // “ ‘ " ' ( [ « ¿ ¡ — – - * _
        case 0x201C, 0x2018, 0x22, 0x27, 0x28, 0x5B, 0xAB, 0xBF, 0xA1, 0x2014, 0x2013, 0x2D, 0x2A, 0x5F: true
        default: false
        }
    }

    static func isWordCharacter(_ character: Character) -> Bool {
        guard let first = character.unicodeScalars.first else { return false }
        return isWordScalar(first)
    }

    /// Whether a character that starts with `first` is part of a word (the rule looks at the
    /// first scalar alone).
    private static func isWordScalar(_ first: Unicode.Scalar) -> Bool {
        // Most story text is ASCII: answer it without a Unicode property lookup.
        if first.isASCII {
            let value = first.value
            return (value >= 0x30 && value <= 0x39) || (value >= 0x41 && value <= 0x5A) || (value >= 0x61 && value <= 0x7A)
        }
        switch first.properties.generalCategory {
        case .uppercaseLetter, .lowercaseLetter, .titlecaseLetter, .modifierLetter, .otherLetter,
            .decimalNumber, .letterNumber, .otherNumber, .nonspacingMark, .spacingMark:
            return true
        default:
            return false
        }
    }

    private static func isJoiner(_ character: Glyph, before: Glyph, after: Glyph) -> Bool {
        switch character.single {
        case 0x27, 0x2019, 0x2D, 0x2010, 0x2011, 0xB7:  // ' ’ - ‐ ‑ ·
            return isWordScalar(before.first) && isWordScalar(after.first)
        case 0x2E, 0x2C:  // . ,
            return before.isNumber && after.isNumber
        default:
            return false
        }
    }

    private static func isEmoji(_ character: Glyph, in text: String) -> Bool {
        // Answered from the first scalar but for the rare text-style emoji (then the character).
        let first = character.first
        guard !first.isASCII else { return false }
        let properties = first.properties
        if properties.isEmojiPresentation { return true }
        guard properties.isEmoji, first.value > 0xFF else { return false }
        return isEmoji(text[character.index])
    }

    static func isEmoji(_ character: Character) -> Bool {
        guard let first = character.unicodeScalars.first, !first.isASCII else { return false }
        let properties = first.properties
        if properties.isEmojiPresentation { return true }
        // Text-style emoji made pictures by VS16 (❤️); keycaps (1️⃣) start with a digit and stay words.
        return properties.isEmoji && first.value > 0xFF && character.unicodeScalars.contains { $0.value == 0xFE0F }
    }
}
