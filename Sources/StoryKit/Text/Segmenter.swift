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

    /// The sentences of `text`, whose first scalar stands at `offset` in the story text.
    public static func sentences(in text: String, startingAt offset: Int) -> [Sentence] {
        let characters = Array(text)
        var scalarStarts: [Int] = []
        scalarStarts.reserveCapacity(characters.count + 1)
        var position = offset
        for character in characters {
            scalarStarts.append(position)
            position += character.unicodeScalars.count
        }
        scalarStarts.append(position)

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
                let sentenceText = String(characters[first..<last])
                let words = self.words(in: characters, from: first, to: last, scalarStarts: scalarStarts)
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
                    } else if characters[end] == " " || characters[end] == "\u{A0}" || characters[end] == "\u{202F}",
                              end + 1 < characters.count, characters[end + 1] == "»" {
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
                if characters[end].isWhitespace, endsSentence(characters, terminatorAt: index, after: end) {
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
        let characters = Array(text)
        var scalarStarts: [Int] = []
        var position = offset
        for character in characters {
            scalarStarts.append(position)
            position += character.unicodeScalars.count
        }
        scalarStarts.append(position)
        return words(in: characters, from: 0, to: characters.count, scalarStarts: scalarStarts)
    }

    private static func words(in characters: [Character], from: Int, to: Int, scalarStarts: [Int]) -> [Word] {
        var words: [Word] = []
        var index = from
        while index < to {
            let character = characters[index]
            if isEmoji(character) {
                words.append(Word(text: String(character), range: TextRange(start: scalarStarts[index], end: scalarStarts[index + 1])))
                index += 1
                continue
            }
            guard isWordCharacter(character) else {
                index += 1
                continue
            }
            var end = index + 1
            while end < to {
                if isWordCharacter(characters[end]) {
                    end += 1
                } else if end + 1 < to, isJoiner(characters[end], before: characters[end - 1], after: characters[end + 1]) {
                    end += 2
                } else {
                    break
                }
            }
            words.append(Word(text: String(characters[index..<end]), range: TextRange(start: scalarStarts[index], end: scalarStarts[end])))
            index = end
        }
        return words
    }

    // Punctuation tests compare the single scalar: comparing Characters costs a string comparison.
    private static func scalar(_ character: Character) -> UInt32 {
        let scalars = character.unicodeScalars
        return scalars.count == 1 ? scalars.first!.value : 0
    }

    private static func isTerminator(_ character: Character) -> Bool {
        switch scalar(character) {
        case 0x2E, 0x21, 0x3F, 0x2026: true  // . ! ? …
        default: false
        }
    }

    private static func isCloser(_ character: Character) -> Bool {
        switch scalar(character) {
        case 0x201D, 0x2019, 0x22, 0x27, 0x29, 0x5D, 0xBB, 0x2A, 0x5F: true  // ” ’ " ' ) ] » * _
        default: false
        }
    }

    private static func endsSentence(_ characters: [Character], terminatorAt index: Int, after end: Int) -> Bool {
        // The next visible character: a lower-case letter continues the sentence.
        var next = end
        while next < characters.count, characters[next].isWhitespace { next += 1 }
        guard next < characters.count else { return true }
        var probe = next
        while probe < characters.count, !characters[probe].isLetter, !characters[probe].isNumber,
              isOpener(characters[probe]) { probe += 1 }
        if probe < characters.count, characters[probe].isLowercase { return false }
        // A full stop after an abbreviation or a single-letter initial does not end the sentence.
        if scalar(characters[index]) == 0x2E && (index + 1 == end || !isTerminator(characters[index + 1])) {
            var wordStart = index
            while wordStart > 0, characters[wordStart - 1].isLetter || scalar(characters[wordStart - 1]) == 0x2E { wordStart -= 1 }
            let word = String(characters[wordStart..<index]).lowercased()
            if word.count == 1, characters[wordStart].isUppercase { return false }
            if abbreviations.contains(word) { return false }
        }
        return true
    }

    private static func isOpener(_ character: Character) -> Bool {
        switch scalar(character) {
        // “ ‘ " ' ( [ « ¿ ¡ — – - * _
        case 0x201C, 0x2018, 0x22, 0x27, 0x28, 0x5B, 0xAB, 0xBF, 0xA1, 0x2014, 0x2013, 0x2D, 0x2A, 0x5F: true
        default: false
        }
    }

    static func isWordCharacter(_ character: Character) -> Bool {
        guard let first = character.unicodeScalars.first else { return false }
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

    private static func isJoiner(_ character: Character, before: Character, after: Character) -> Bool {
        switch scalar(character) {
        case 0x27, 0x2019, 0x2D, 0x2010, 0x2011, 0xB7:  // ' ’ - ‐ ‑ ·
            return isWordCharacter(before) && isWordCharacter(after)
        case 0x2E, 0x2C:  // . ,
            return before.isNumber && after.isNumber
        default:
            return false
        }
    }

    static func isEmoji(_ character: Character) -> Bool {
        guard let first = character.unicodeScalars.first, !first.isASCII else { return false }
        let properties = first.properties
        if properties.isEmojiPresentation { return true }
        // Text-style emoji made pictures by VS16 (❤️); keycaps (1️⃣) start with a digit and stay words.
        return properties.isEmoji && first.value > 0xFF && character.unicodeScalars.contains { $0.value == 0xFE0F }
    }
}
