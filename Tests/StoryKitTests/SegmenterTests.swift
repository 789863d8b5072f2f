import StoryKitTestSupport
import Testing

@testable import StoryKit

@Suite struct SegmenterTests {
    /// The sentences of `text`, checking that each range maps back to its text on the way.
    func sentences(_ text: String, offset: Int = 0) -> [String] {
        let prefix = String(repeating: "x", count: offset)
        let sentences = Segmenter.sentences(in: text, startingAt: offset)
        let scalars = Array((prefix + text).unicodeScalars)
        for sentence in sentences {
            #expect(StoryChecks.maps(sentence.range, in: scalars, to: sentence.text), "sentence range \(sentence.range)")
            for word in sentence.words {
                #expect(StoryChecks.maps(word.range, in: scalars, to: word.text), "word range \(word.range)")
            }
        }
        return sentences.map(\.text)
    }

    @Test(arguments: [
        ("The sun set. The moon rose.", ["The sun set.", "The moon rose."]),
        ("“Help!” cried the mouse. Nobody came.", ["“Help!” cried the mouse.", "Nobody came."]),
        ("“Help!” The cat ran.", ["“Help!”", "The cat ran."]),
        ("Mr. Fox and Mrs. Hen met Dr. Owl. They talked.", ["Mr. Fox and Mrs. Hen met Dr. Owl.", "They talked."]),
        ("Aesop, translated by V. S. Vernon Jones. The end.", ["Aesop, translated by V. S. Vernon Jones.", "The end."]),
        ("Wait… What was that? Nothing.", ["Wait…", "What was that?", "Nothing."]),
        ("It was dark... So dark.", ["It was dark...", "So dark."]),
        ("What?! Really?! Yes.", ["What?!", "Really?!", "Yes."]),
        ("He said, “Go home.” She went.", ["He said, “Go home.”", "She went."]),
        ("She said, ‘Stop!’ (Then she left.) Bye.", ["She said, ‘Stop!’", "(Then she left.)", "Bye."]),
        ("¿Dónde está? ¡Aquí está! Bien.", ["¿Dónde está?", "¡Aquí está!", "Bien."]),
        ("—¡Ay, no! —dijo Fermín—. ¡Hip!", ["—¡Ay, no! —dijo Fermín—.", "¡Hip!"]),
        ("« Regardez-moi ! » criait l’Étoile.", ["« Regardez-moi ! » criait l’Étoile."]),
        ("It cost 3.50 pounds. Cheap.", ["It cost 3.50 pounds.", "Cheap."]),
        ("No full stop at the end", ["No full stop at the end"]),
        ("  Spaces around.  ", ["Spaces around."]),
        ("", []),
        ("Twinkle, twinkle.\nHow I wonder.", ["Twinkle, twinkle.", "How I wonder."]),
    ])
    func sentenceSplits(_ text: String, _ expected: [String]) {
        #expect(sentences(text) == expected)
    }

    @Test func rangesCountFromTheOffset() throws {
        let sentences = Segmenter.sentences(in: "Hi. 🧑‍🌾 Bye.", startingAt: 10)
        #expect(sentences.map(\.range) == [TextRange(start: 10, end: 13), TextRange(start: 14, end: 22)])
        #expect(sentences.last?.words.map(\.range) == [TextRange(start: 14, end: 17), TextRange(start: 18, end: 21)])
        #expect(self.sentences("One. Two.", offset: 7) == ["One.", "Two."])
    }

    @Test func aMegabyteWithoutPunctuationIsCutIntoShortSentences() {
        var text = ""
        var longestWord = 0
        var index = 0
        let words = ["fox", "ran", "and", "ran", "and", "ran", "supercalifragilistic", "🧑‍🌾", "café"]
        while text.utf8.count < 1_048_576 {
            let word = words[index % words.count]
            longestWord = max(longestWord, word.unicodeScalars.count + 1)
            text += word + " "
            index += 1
        }
        let sentences = Segmenter.sentences(in: text, startingAt: 0)
        #expect(sentences.count > 1_000)
        let longest = sentences.map(\.range.length).max() ?? 0
        #expect(longest <= Segmenter.maximumSentenceScalars + longestWord, "longest sentence: \(longest) scalars")
        #expect(sentences.reduce(0) { $0 + $1.words.count } == index)
        let scalars = Array(text.unicodeScalars)
        #expect(sentences.allSatisfy { StoryChecks.maps($0.range, in: scalars, to: $0.text) })
    }

    @Test func emojiHeavyTextIsCutByScalarsNotCharacters() {
        // Each farmer is one character of three scalars: a cut counted in characters lets a
        // sentence grow to three times the limit.
        let text = String(repeating: "🧑‍🌾 ", count: 5_000)
        let sentences = Segmenter.sentences(in: text, startingAt: 0)
        let longest = sentences.map(\.range.length).max() ?? 0
        #expect(longest <= Segmenter.maximumSentenceScalars + 4, "longest sentence: \(longest) scalars")
    }

    @Test(arguments: [
        ("Pip’s friend don’t", ["Pip’s", "friend", "don’t"]),
        ("Pip's friend can't", ["Pip's", "friend", "can't"]),
        ("a star-shaped kite", ["a", "star-shaped", "kite"]),
        ("3,000 stars and 3.5 moons", ["3,000", "stars", "and", "3.5", "moons"]),
        ("Robot K-9 said hi.", ["Robot", "K-9", "said", "hi"]),
        ("café crème brûlée", ["café", "crème", "brûlée"]),
        ("cafe\u{301} ok", ["cafe\u{301}", "ok"]),
        ("a 🌻 and a 🧑‍🌾!", ["a", "🌻", "and", "a", "🧑‍🌾"]),
        ("🌻🌻", ["🌻", "🌻"]),
        ("“Quoted,” she said — then (softly) left...", ["Quoted", "she", "said", "then", "softly", "left"]),
        ("end-- start 'tis '90s", ["end", "start", "tis", "90s"]),
        ("l’Étoile d’or", ["l’Étoile", "d’or"]),
        ("Straße Ωmega 東京", ["Straße", "Ωmega", "東京"]),
        ("1️⃣ keycap", ["1️⃣", "keycap"]),
    ])
    func words(_ text: String, _ expected: [String]) {
        let words = Segmenter.words(in: text, startingAt: 3)
        #expect(words.map(\.text) == expected)
        let shifted = Array(("abc" + text).unicodeScalars)
        #expect(words.allSatisfy { StoryChecks.maps($0.range, in: shifted, to: $0.text) })
    }
}
