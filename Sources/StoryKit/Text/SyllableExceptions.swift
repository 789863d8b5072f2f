import Foundation

/// Reading syllables for common children's words that the hyphenation patterns leave whole or
/// split where a child would not (patterns are made to break lines, and keep short words whole).
/// Each entry is written as a child sounds the word out; a test checks every one.
enum SyllableExceptions {
    static let english: [String] = [
        "ba·by", "o·pen", "hap·py", "ti·ger", "li·on", "i·de·a", "ver·y", "o·ver", "sto·ry", "po·ta·to",
        "prin·cess", "sau·sage", "bun·ny", "kit·ten", "rab·bit", "pup·py", "mon·key", "zeb·ra", "pan·da",
        "ap·ple", "but·ter", "sis·ter", "moth·er", "fa·ther", "wa·ter", "pa·per", "la·dy", "ti·ny",
        "a·go", "a·way", "a·bout", "a·round", "a·gain", "in·to", "un·der", "af·ter", "ev·er", "nev·er",
        "ev·ery", "an·y", "man·y", "on·ly", "sil·ly", "fun·ny", "mon·ster", "dra·gon", "ro·bot",
        "pi·rate", "gar·den", "for·est", "ri·ver", "wa·gon", "mo·ment", "o·cean", "qui·et", "be·gin",
        "el·e·phant", "choc·o·late", "com·pu·ter", "di·no·saur", "um·brel·la", "kit·chen", "grand·ma",
        "to·geth·er", "grand·pa",
    ]
    static let spanish: [String] = ["o·so", "a·gua", "ma·ña·na", "e·le·fan·te", "a·mi·go", "a·mi·ga", "o·jos", "a·bue·la", "a·bue·lo"]
    static let french: [String] = ["pe·tit", "lu·ne", "ma·man", "pa·pa", "a·mi", "hi·bou", "pa·pil·lon", "é·lé·phant", "ti·mi·de", "pe·ti·te", "é·toi·le"]
    static let german: [String] = ["Ma·ma", "Pa·pa", "Ha·se", "Bä·ren", "O·ma", "O·pa", "Rie·se"]

    /// Word (lower case) → the scalar offsets after which a syllable ends.
    static func table(for language: String) -> [String: [Int]] {
        let words: [String] =
            switch language {
            case "en": english
            case "es": spanish
            case "fr": french
            case "de": german
            default: []
            }
        var table: [String: [Int]] = [:]
        for written in words {
            var offsets: [Int] = []
            var count = 0
            for part in written.lowercased().split(separator: "·").dropLast() {
                count += part.unicodeScalars.count
                offsets.append(count)
            }
            table[written.lowercased().replacingOccurrences(of: "·", with: "")] = offsets
        }
        return table
    }
}
