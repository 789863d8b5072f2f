import Foundation

/// One EPUB 3 Media Overlay (a SMIL document): each `par` pairs a fragment of a content document
/// (`text src="chapter.xhtml#s1"`) with a clip of audio (`audio src clipBegin clipEnd`), in
/// reading order. Nested `seq`s (a table, a list) are read through: their `par`s keep document
/// order. Several documents may share one audio file.
struct MediaOverlay {
    struct Par: Hashable {
        /// The content document's path in the archive, and the fragment id in it.
        var document: String
        var fragment: String
        /// The audio file's path in the archive.
        var audio: String
        var begin: Int
        var end: Int?
    }

    var pars: [Par] = []
    /// How many pars were left out (a clock that is not one, a `par` without text or audio).
    var unreadable = 0

    init(tree: XMLTree, base: String) {
        // XMLTree keeps elements in document order: a par's text and audio follow it.
        var current: (text: String?, audio: [String: String]?)?
        func close() {
            defer { current = nil }
            guard let par = current else { return }
            guard let text = par.text, let hash = text.firstIndex(of: "#"), let audio = par.audio, let source = audio["src"], !source.isEmpty else {
                unreadable += 1
                return
            }
            let document = XHTMLDecoding.resolve(String(text[..<hash]), against: base)
            let fragment = String(text[text.index(after: hash)...])
            let begin = audio["clipBegin"].map(StoryRecording.clockValue) ?? 0
            let end = audio["clipEnd"].map(StoryRecording.clockValue)
            guard !fragment.isEmpty, let begin, end.map({ $0 != nil }) ?? true else {
                unreadable += 1
                return
            }
            if let end = end ?? nil, end <= begin {
                unreadable += 1
                return
            }
            pars.append(Par(document: document, fragment: fragment, audio: XHTMLDecoding.resolve(source, against: base), begin: begin, end: end ?? nil))
        }
        for element in tree.elements {
            switch element.name.split(separator: ":").last.map(String.init) ?? element.name {
            case "par":
                close()
                current = (nil, nil)
            case "text" where current != nil:
                current?.text = element.attributes["src"]
            case "audio" where current != nil:
                current?.audio = element.attributes
            case "seq", "body":
                close()
            default:
                break
            }
        }
        close()
    }
}
