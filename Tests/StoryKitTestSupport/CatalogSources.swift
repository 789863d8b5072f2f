import Foundation
public import StoryKit

/// The English messages the sources say through `tr`, `trn` and `N_` (what every catalog must
/// translate), found by scanning `Sources/`.
public enum CatalogSources {
    /// An English message found in the sources, with its plural when it has one.
    public struct Message: Hashable, Sendable {
        public var id: String
        public var plural: String?
        public var file: String
    }

    /// Every literal passed to `tr(`, `trn(` (both forms) and `N_(` in Sources/.
    public static let messages: [Message] = {
        let literal = #""((?:[^"\\\n]|\\.)*)""#
        let patterns: [(NSRegularExpression, Bool)] = [
            (try! NSRegularExpression(pattern: #"\btrn\(\s*"# + literal + #"\s*,\s*"# + literal), true),
            (try! NSRegularExpression(pattern: #"\btr\(\s*"# + literal), false),
            (try! NSRegularExpression(pattern: #"\bN_\(\s*"# + literal), false),
        ]
        var found: [Message] = []
        let sources = TestPaths.repository.appendingPathComponent("Sources")
        let files = (FileManager.default.enumerator(at: sources, includingPropertiesForKeys: nil)?.allObjects as? [URL] ?? [])
            .filter { $0.pathExtension == "swift" }.sorted { $0.path < $1.path }
        for file in files {
            guard let text = try? String(contentsOf: file, encoding: .utf8) else { continue }
            let range = NSRange(text.startIndex..., in: text)
            for (pattern, isPlural) in patterns {
                for match in pattern.matches(in: text, range: range) {
                    func group(_ index: Int) -> String {
                        String(text[Range(match.range(at: index), in: text)!]).replacingOccurrences(of: "\\\"", with: "\"")
                            .replacingOccurrences(of: "\\\\", with: "\\")
                    }
                    found.append(Message(id: group(1), plural: isPlural ? group(2) : nil, file: file.lastPathComponent))
                }
            }
        }
        return found
    }()

}

/// A generated pseudo-language (every message accented, 40 % longer and bracketed, its
/// placeholders kept): any text shown or said without its brackets, or holding an English
/// catalog phrase, did not go through the catalog.
public enum PseudoLanguage {
    /// "Story: {title}" → "⟦Śţöŕý: {title}~~~~⟧".
    public static func pseudo(_ text: String) -> String {
        let accents: [Character: Character] = [
            "a": "á", "e": "é", "i": "í", "o": "ö", "u": "ü", "c": "ç", "n": "ñ", "s": "ś", "t": "ţ", "y": "ý", "r": "ŕ",
            "A": "Å", "E": "É", "I": "Î", "O": "Ø", "U": "Û", "C": "Ç", "N": "Ñ", "S": "Ś", "T": "Ţ", "Y": "Ý", "R": "Ŕ",
        ]
        var out = ""
        var inPlaceholder = false
        for character in text {
            if character == "{" { inPlaceholder = true }
            out.append(inPlaceholder ? character : accents[character] ?? character)
            if character == "}" { inPlaceholder = false }
        }
        let padding = String(repeating: "~", count: max(1, text.count * 2 / 5))
        return "⟦" + out + padding + "⟧"
    }

    public static let catalog: MessageCatalog = {
        // Written and read back: the generated file is itself a valid catalog.
        return try! MessageCatalog(POFile(parsing: file(language: "qps")))
    }()

    /// The pseudo-language as a `.po` file's text, its header naming `language`: written as
    /// `es.po` into a folder given by `$STORYREADER_PO_DIR`, it stands in for Spanish in the real
    /// program (a test of the binary under tmux cannot add a language of its own).
    public static func file(language: String) -> String {
        var entries: [POFile.Entry] = []
        var seen: Set<String> = []
        for message in CatalogSources.messages where seen.insert(message.id).inserted {
            let translations = message.plural.map { [pseudo(message.id), pseudo($0)] } ?? [pseudo(message.id)]
            entries.append(POFile.Entry(id: message.id, pluralID: message.plural, translations: translations))
        }
        return POFile(entries: entries, header: ["Language": language, "Plural-Forms": "nplurals=2; plural=(n != 1);"]).written()
    }

    /// English messages that would show a string missed by the catalog: whole messages without
    /// placeholders (words of two or more letters), and the fixed parts of templates.
    public static let englishFragments: [String] = {
        var fragments: Set<String> = []
        for message in CatalogSources.messages {
            for text in [message.id] + (message.plural.map { [$0] } ?? []) {
                for part in text.components(separatedBy: CharacterSet(charactersIn: "{}")).enumerated() where part.offset % 2 == 0 {
                    let trimmed = part.element.trimmingCharacters(in: .whitespacesAndNewlines.union(.punctuationCharacters))
                    // Long enough to be a phrase of the interface, not a letter or a name.
                    if trimmed.count >= 6, trimmed.contains(" ") || trimmed.first?.isLowercase == true { fragments.insert(trimmed) }
                }
            }
        }
        return fragments.sorted()
    }()

}
