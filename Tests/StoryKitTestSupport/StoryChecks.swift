public import StoryKit

/// Checks every story must pass, whatever its file said: each block, sentence, word and emphasis
/// range lies inside `Story.text` and maps back to its own text, and `text` is the blocks joined
/// by a blank line. Returns one line per broken rule (empty when the story is sound).
public enum StoryChecks {
    public static func violations(in story: Story) -> [String] {
        var problems: [String] = []
        // Compared scalar by scalar (String's == would accept a canonically equivalent text), and
        // on an array so that a story of a million scalars is checked in linear time.
        let scalars = Array(story.text.unicodeScalars)
        func check(_ range: TextRange, _ expected: String, _ what: String) {
            if range.start < 0 || range.end > scalars.count || range.start > range.end {
                problems.append("\(what) range \(range) is outside the text (\(scalars.count) scalars)")
            } else if !scalars[range.start..<range.end].elementsEqual(expected.unicodeScalars) {
                let found = String(String.UnicodeScalarView(scalars[range.start..<range.end]))
                problems.append("\(what) range \(range) maps to \(debug(found)), not \(debug(expected))")
            }
        }
        let blocks = story.blocks
        let joined = blocks.map(\.text).joined(separator: "\n\n")
        if !joined.unicodeScalars.elementsEqual(story.text.unicodeScalars) { problems.append("text is not the blocks joined by a blank line") }
        for (b, block) in blocks.enumerated() {
            check(block.range, block.text, "block \(b)")
            for (s, sentence) in block.sentences.enumerated() {
                check(sentence.range, sentence.text, "block \(b) sentence \(s)")
                if sentence.range.start < block.range.start || sentence.range.end > block.range.end {
                    problems.append("block \(b) sentence \(s) \(sentence.range) is outside its block \(block.range)")
                }
                for (w, word) in sentence.words.enumerated() {
                    check(word.range, word.text, "block \(b) sentence \(s) word \(w)")
                    if word.range.start < sentence.range.start || word.range.end > sentence.range.end {
                        problems.append("word \(debug(word.text)) \(word.range) is outside its sentence \(sentence.range)")
                    }
                }
            }
            for emphasis in block.emphasis where emphasis.start < block.range.start || emphasis.end > block.range.end {
                problems.append("block \(b) emphasis \(emphasis) is outside the block \(block.range)")
            }
        }
        return problems
    }

    /// Whether `range` of `text` holds exactly the scalars of `expected`.
    public static func maps(_ range: TextRange, in scalars: [Unicode.Scalar], to expected: String) -> Bool {
        range.start >= 0 && range.end <= scalars.count && range.start <= range.end
            && scalars[range.start..<range.end].elementsEqual(expected.unicodeScalars)
    }

    static func debug(_ text: String) -> String {
        let shown = text.count > 60 ? String(text.prefix(60)) + "…" : text
        return "\"" + shown.unicodeScalars.map { $0.isASCII && $0.value >= 0x20 ? String($0) : $0.escaped(asASCII: false) }.joined() + "\""
    }
}

/// A small seeded random generator, so property tests are repeatable (SplitMix64).
public struct SeededGenerator: RandomNumberGenerator, Sendable {
    private var state: UInt64
    public init(seed: UInt64) { state = seed }
    public mutating func next() -> UInt64 {
        state &+= 0x9E37_79B9_7F4A_7C15
        var z = state
        z = (z ^ (z >> 30)) &* 0xBF58_476D_1CE4_E5B9
        z = (z ^ (z >> 27)) &* 0x94D0_49BB_1331_11EB
        return z ^ (z >> 31)
    }
}
