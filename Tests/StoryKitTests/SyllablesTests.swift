import Foundation
import StoryKitTestSupport
import Testing

@testable import StoryKit

/// Reading syllables from libhyphen's patterns (Debian's dictionaries) with the exceptions a
/// child needs: each language's word list below was written by hand and checked against what
/// the dictionaries give.
@Suite struct SyllablesTests {
    /// Drawing only looks up loaded patterns (it reads no file): the shell loads them first, as here.
    init() { for language in ["en", "es", "fr", "de"] { Syllables.preload(language) } }

    static let expected: [String: String] = [
        "en":
            "but·ter·fly el·e·phant rain·bow ba·by o·pen hap·py ti·ger li·on i·de·a ver·y o·ver sto·ry po·ta·to prin·cess sau·sage choc·o·late won·der·ful light·house com·pu·ter di·no·saur um·brel·la whis·pered hun·dred kit·chen Grand·ma to·geth·er re·mem·ber ad·ven·ture beau·ti·ful yes·ter·day",
        "es":
            "ma·ri·po·sa dra·gón prin·ce·sa cho·co·la·te e·le·fan·te es·tre·lla hi·po te·nía ca·ra·me·lo za·pa·to pe·que·ño bos·que gui·ta·rra ra·tón ma·ña·na",
        "fr": "pa·pil·lon é·toi·le ti·mi·de cho·co·lat é·lé·phant prin·cesse château fo·rêt lu·mière his·toire pe·ti·te mai·son so·leil gre·nouille bon·jour",
        "de":
            "Schmet·ter·ling Groß·mut·ter Prin·zes·sin Scho·ko·la·de Ele·fant Re·gen·bo·gen Mär·chen Dra·che Brü·der Ge·schich·te Son·ne Ka·nin·chen Stra·ße Häus·chen wun·der·bar",
    ]

    @Test(arguments: ["en", "es", "fr", "de"])
    func wordsSplitIntoReadingSyllables(language: String) throws {
        #expect(Syllables.languages.contains(language), "the \(language) patterns are installed (scripts/setup.sh installs hyphen-\(language))")
        let expected = try #require(Self.expected[language]).split(separator: " ").map(String.init)
        for written in expected {
            let word = written.replacingOccurrences(of: Syllables.dot, with: "")
            #expect(Syllables.dotted(word, language: language) == written, "\(language): \(word)")
        }
    }

    /// The German patterns are ISO-8859-1: the words are given to them in it, so ß and the
    /// umlauts split where they should (read as UTF-8 bytes, "Großmutter" splits inside ß).
    @Test func germanUmlautsAndSharpSSplitAsLetters() {
        #expect(Syllables.dotted("Großmutter", language: "de") == "Groß·mut·ter")
        #expect(Syllables.dotted("Häuschen", language: "de") == "Häus·chen")
        #expect(Syllables.dotted("Märchen", language: "de-DE") == "Mär·chen")
    }

    /// Every English story gets the American patterns: the British ones split by word structure.
    @Test func everyEnglishVoiceUsesTheAmericanPatterns() {
        for language in ["en", "en-GB", "en-us", "en_GB"] {
            #expect(Syllables.dotted("chocolate", language: language) == "choc·o·late", "\(language)")
        }
    }

    @Test func everyExceptionIsASplitWithAVowelInEachPart() {
        for language in ["en", "es", "fr", "de"] {
            let table = SyllableExceptions.table(for: language)
            #expect(table.count >= 5)
            for (word, cuts) in table {
                #expect(!cuts.isEmpty, "\(language) \(word)")
                #expect(Hyphenator.voiced(cuts, in: Array(word.unicodeScalars)) == cuts, "\(language) \(word): a part without a vowel")
            }
        }
    }

    @Test func aSyllableAlwaysHasAVowel() {
        let word = Array("mañana".unicodeScalars)
        // What the Spanish patterns give for "mañana": a break on each side of ñ.
        #expect(Hyphenator.voiced([2, 3], in: word) == [2])
        #expect(Hyphenator.voiced([1], in: Array("st".unicodeScalars)) == [])
        #expect(Hyphenator.voiced([3], in: Array("tent".unicodeScalars)) == [])
        #expect(Hyphenator.voiced([2, 4], in: word) == [2, 4])
    }

    /// In running text: offsets count scalars of the whole text; punctuation, short words and
    /// languages without patterns get no dots; capitals split like small letters.
    @Test func breaksInRunningText() {
        let text = "The butterfly, Happy!"
        let breaks = Syllables.breaks(in: text, language: "en")
        var shown = ""
        for (offset, scalar) in text.unicodeScalars.enumerated() {
            shown.unicodeScalars.append(scalar)
            if breaks.contains(offset + 1) { shown += Syllables.dot }
        }
        #expect(shown == "The but·ter·fly, Hap·py!")
        #expect(Syllables.breaks(in: text, language: "ja").isEmpty)
        #expect(Syllables.breaks(in: text, language: nil).isEmpty)
        #expect(Syllables.breaks(in: "a to it", language: "en").isEmpty)
    }
}
