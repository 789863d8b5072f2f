import CHyphen
import Foundation

/// Reading syllables ("but·ter·fly"), shown on screen for children learning to read; speech is
/// never changed.
///
/// The splits come from libhyphen with the hyphenation patterns Debian ships (LibreOffice's):
/// `en_US` for every English story (the British patterns split by word structure, "chocol·ate",
/// which is not how a child sounds a word out), Spanish, French and German. The dictionaries' own
/// minimum fragment sizes are kept (lowering them gives "s·to·ry"); the German file is ISO-8859-1,
/// so words are given to it in that encoding ("Groß·mut·ter", not a split inside "ß"). Patterns
/// are made for line breaking, not for reading, and leave many short words whole (baby, open,
/// tiger, story): a small list per language fills those in. These are reading syllables, not a
/// dictionary's.
public enum Syllables {
    /// Drawn between syllables.
    public static let dot = "·"

    /// Where the dots go in `text`: the scalar offsets after which one is drawn. Empty for a
    /// language without patterns.
    /// Empty too while the language's patterns are not loaded (`preload`): drawing and the Session
    /// never read a file.
    public static func breaks(in text: String, language: String?) -> Set<Int> {
        guard let language, Hyphenator.file(for: language) != nil else { return [] }
        // libhyphen runs on its owner's thread (a hop of some microseconds, once per text drawn).
        let found = try? dictionaries.withHandle { loaded -> Set<Int> in
            guard let hyphenator = loaded.loaded(language: language) else { return [] }
            return breaks(in: text, with: hyphenator)
        }
        return found ?? []
    }

    private static func breaks(in text: String, with hyphenator: Hyphenator) -> Set<Int> {
        var result: Set<Int> = []
        var word: [Unicode.Scalar] = []
        var wordStart = 0
        var offset = 0
        func finishWord() {
            defer { word = [] }
            guard word.count >= 3 else { return }
            for position in hyphenator.breaks(in: word) { result.insert(wordStart + position) }
        }
        for scalar in text.unicodeScalars {
            if scalar.properties.isAlphabetic || (scalar.properties.generalCategory == .nonspacingMark && !word.isEmpty) {
                if word.isEmpty { wordStart = offset }
                word.append(scalar)
            } else {
                finishWord()
            }
            offset += 1
        }
        finishWord()
        return result
    }

    /// `word` split into its reading syllables.
    public static func split(_ word: String, language: String) -> [String] {
        let scalars = Array(word.unicodeScalars)
        let cuts = breaks(in: word, language: language).sorted()
        var parts: [String] = []
        var start = 0
        for cut in cuts + [scalars.count] where cut > start {
            var part = ""
            part.unicodeScalars.append(contentsOf: scalars[start..<cut])
            parts.append(part)
            start = cut
        }
        return parts
    }

    /// `word` with its dots: "but·ter·fly".
    public static func dotted(_ word: String, language: String) -> String {
        split(word, language: language).joined(separator: dot)
    }

    /// Loads `language`'s patterns now (the shell does, off the loop, as a story is read in, and
    /// before the loop for the stories it holds), so that neither drawing nor the Session reads a file.
    public static func preload(_ language: String) {
        _ = try? dictionaries.withHandle { loaded in loaded.load(language) != nil }
    }

    /// The languages with patterns here.
    public static var languages: [String] {
        let found = try? dictionaries.withHandle { loaded in ["en", "es", "fr", "de"].filter { loaded.load($0) != nil } }
        return found ?? []
    }

    /// libhyphen's dictionaries, loaded, used and kept on one thread of their own (the project's
    /// idiom for a C library, `HandleOwner`): a file is read only by `preload`, and drawing only
    /// looks up what is loaded. Kept for the run.
    static let dictionaries = HandleOwner<HyphenDictionaries>(name: "storyreader.hyphen", open: { HyphenDictionaries() })
}

/// The pattern files loaded so far, by file (nil: the file would not load). Only on
/// `Syllables.dictionaries`' thread.
final class HyphenDictionaries {
    private var loaded: [String: Hyphenator?] = [:]

    /// The patterns of `language` if they were loaded (never reads a file).
    func loaded(language: String) -> Hyphenator? {
        guard let file = Hyphenator.file(for: language) else { return nil }
        return loaded[file] ?? nil
    }

    /// The patterns of `language`, loaded now if they were not.
    func load(_ language: String) -> Hyphenator? {
        guard let file = Hyphenator.file(for: language) else { return nil }
        if let known = loaded[file] { return known }
        let hyphenator = Hyphenator(path: Hyphenator.folder + "/" + file, language: String(language.lowercased().prefix(2)))
        loaded[file] = hyphenator
        return hyphenator
    }
}

/// One loaded pattern file, owned by `Syllables.dictionaries`' thread: made, used and freed there.
final class Hyphenator {
    private let dictionary: UnsafeMutablePointer<HyphenDict>
    private let isLatin1: Bool
    private let exceptions: [String: [Int]]

    /// Where Debian puts the patterns.
    static let folder = "/usr/share/hyphen"

    static func file(for language: String) -> String? {
        switch language.lowercased().prefix(2) {
        case "en": "hyph_en_US.dic"
        case "es": "hyph_es_ES.dic"
        case "fr": "hyph_fr.dic"
        case "de": "hyph_de_DE.dic"
        default: nil
        }
    }

    init?(path: String, language: String) {
        // The first line names the file's encoding.
        guard let handle = FileHandle(forReadingAtPath: path) else { return nil }
        let head = handle.readData(ofLength: 64)
        try? handle.close()
        let encoding = String(decoding: head, as: UTF8.self).split(whereSeparator: \.isNewline).first.map(String.init) ?? ""
        guard let dictionary = hnj_hyphen_load(path) else { return nil }
        self.dictionary = dictionary
        self.isLatin1 = encoding.uppercased().hasPrefix("ISO8859-1") || encoding.uppercased().hasPrefix("ISO-8859-1")
        self.exceptions = SyllableExceptions.table(for: language)
    }

    deinit { hnj_hyphen_free(dictionary) }

    /// The scalar offsets inside `word` after which a syllable ends.
    func breaks(in word: [Unicode.Scalar]) -> [Int] {
        var lower = ""
        for scalar in word {
            let mapped = String(scalar).lowercased()
            // A letter whose lower case is longer or shorter would shift every offset after it.
            guard mapped.unicodeScalars.count == 1 else { return [] }
            lower += mapped
        }
        if let known = exceptions[lower] { return known }
        // The word in the file's encoding, and the scalar each byte belongs to.
        var bytes: [CChar] = []
        var owner: [Int] = []
        for (index, scalar) in lower.unicodeScalars.enumerated() {
            if isLatin1 {
                guard scalar.value <= 0xFF else { return [] }
                bytes.append(CChar(bitPattern: UInt8(scalar.value)))
                owner.append(index)
            } else {
                for byte in String(scalar).utf8 {
                    bytes.append(CChar(bitPattern: byte))
                    owner.append(index)
                }
            }
        }
        var hyphens = [CChar](repeating: 0, count: bytes.count + 5)
        var replacements: UnsafeMutablePointer<UnsafeMutablePointer<CChar>?>?
        var positions: UnsafeMutablePointer<Int32>?
        var cuts: UnsafeMutablePointer<Int32>?
        let status = bytes.withUnsafeBufferPointer { word in
            hyphens.withUnsafeMutableBufferPointer { marks in
                // 0: the dictionary's own minimum fragment sizes (LEFTHYPHENMIN, RIGHTHYPHENMIN).
                hnj_hyphen_hyphenate3(
                    dictionary, word.baseAddress, Int32(word.count), marks.baseAddress, nil,
                    &replacements, &positions, &cuts, 0, 0, 0, 0)
            }
        }
        if let replacements {
            // Non-standard hyphenation (old German "Schiff-fahrt"): not used, only freed.
            for index in 0..<bytes.count { free(replacements[index]) }
            free(replacements)
            free(positions)
            free(cuts)
        }
        guard status == 0 else { return [] }
        var result: [Int] = []
        for index in 0..<(bytes.count - 1) where hyphens[index] & 1 == 1 {
            // A break after the last byte of a scalar, never inside one.
            if owner[index] != owner[index + 1] { result.append(owner[index] + 1) }
        }
        return Self.voiced(result, in: Array(lower.unicodeScalars))
    }

    static let vowels = Set("aeiouyáéíóúàèìòùâêîôûäëïöüÿæœ".unicodeScalars)

    /// Only breaks that leave a vowel in every part: a syllable always has one, and a pattern
    /// that splits a letter off on its own ("ma·ñ·ana") is wrong for a reader. A part without a
    /// vowel joins the part after it (a consonant starts the next syllable: "ma·ñana"), or the
    /// one before it at the end of the word.
    static func voiced(_ breaks: [Int], in word: [Unicode.Scalar]) -> [Int] {
        var cuts = breaks.filter { $0 > 0 && $0 < word.count }
        func hasVowel(_ start: Int, _ end: Int) -> Bool { word[start..<end].contains(where: vowels.contains) }
        var index = 0
        while index <= cuts.count, !cuts.isEmpty {
            let start = index == 0 ? 0 : cuts[index - 1]
            let end = index < cuts.count ? cuts[index] : word.count
            if hasVowel(start, end) {
                index += 1
            } else if index < cuts.count {
                cuts.remove(at: index)
            } else {
                cuts.removeLast()
                index = max(0, index - 1)
            }
        }
        return cuts
    }
}
