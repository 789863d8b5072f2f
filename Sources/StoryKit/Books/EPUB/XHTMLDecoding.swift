import Foundation

#if canImport(FoundationXML)
    import FoundationXML
#endif

/// A document's bytes made ready for FoundationXML, which drops named entities it does not know
/// (`&nbsp;` vanishes and the words around it run together) and fails on text that is not the
/// encoding it declares.
enum XHTMLDecoding {
    /// UTF-8 with every HTML5 named entity as a numeric reference. A document that is not UTF-8
    /// is read as windows-1252 (old tools' exports) and its XML declaration made to say UTF-8.
    static func prepared(_ data: Data) -> Data {
        guard
            let text = String(data: data, encoding: .utf8)
                ?? String(data: data, encoding: .windowsCP1252).map({
                    $0.replacingOccurrences(
                        of: #"^(<\?xml[^>]*encoding=)["'][^"']*["']"#, with: "$1\"utf-8\"", options: .regularExpression)
                })
        else { return data }
        return Data(numericEntities(text).utf8)
    }

    /// A parser of the document `prepared`, fed to libxml2 in pieces: given all at once, a
    /// document over 10 MB on one line (libxml2's lookup limit without XML_PARSE_HUGE, which
    /// FoundationXML does not set) was "not well-formed", however well-formed it was.
    static func parser(_ data: Data) -> XMLParser {
        XMLParser(stream: InputStream(data: prepared(data)))
    }

    static func numericEntities(_ text: String) -> String {
        guard text.contains("&") else { return text }
        let pattern = try! NSRegularExpression(pattern: "&([A-Za-z][A-Za-z0-9]*);")
        var result = ""
        var last = text.startIndex
        for match in pattern.matches(in: text, range: NSRange(text.startIndex..., in: text)) {
            guard let whole = Range(match.range, in: text), let nameRange = Range(match.range(at: 1), in: text) else { continue }
            let name = String(text[nameRange])
            // The five XML knows stay as they are.
            guard !["amp", "lt", "gt", "quot", "apos"].contains(name), let value = HTMLEntities.table[name] else { continue }
            result += text[last..<whole.lowerBound]
            result += value.unicodeScalars.map { "&#x\(String($0.value, radix: 16));" }.joined()
            last = whole.upperBound
        }
        return result + text[last...]
    }

    /// `../images/a.png` from `epub/text/` is `epub/images/a.png`; a fragment is left off and
    /// the path percent-decoded.
    static func resolve(_ href: String, against base: String) -> String {
        let withoutFragment = href.split(separator: "#", maxSplits: 1, omittingEmptySubsequences: false).first.map(String.init) ?? href
        let clean = withoutFragment.removingPercentEncoding ?? withoutFragment
        var parts = base.split(separator: "/").map(String.init)
        for part in clean.split(separator: "/") {
            if part == ".." {
                if !parts.isEmpty { parts.removeLast() }
            } else if part != "." {
                parts.append(String(part))
            }
        }
        return parts.joined(separator: "/")
    }

    /// The fragment of an href (`fables.xhtml#the-fox` → `the-fox`).
    static func fragment(_ href: String) -> String? {
        guard let hash = href.firstIndex(of: "#") else { return nil }
        let fragment = String(href[href.index(after: hash)...])
        return fragment.isEmpty ? nil : (fragment.removingPercentEncoding ?? fragment)
    }

    /// A two-letter language code from `en-GB`, `fr`, `eng` or `ger`.
    static func languageCode(_ tag: String) -> String? {
        let tag = tag.trimmingCharacters(in: .whitespacesAndNewlines)
        guard !tag.isEmpty else { return nil }
        let primary = tag.split(separator: "-").first.map { $0.lowercased() } ?? ""
        let bibliographic = ["ger": "de", "fre": "fr", "dut": "nl", "chi": "zh", "cze": "cs", "gre": "el", "per": "fa", "wel": "cy"]
        if let code = bibliographic[primary] { return code }
        if let code = Locale.Language(identifier: primary).languageCode?.identifier(.alpha2) { return code }
        return primary.count >= 2 ? String(primary.prefix(2)) : nil
    }
}
