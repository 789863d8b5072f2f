import Foundation

/// One SMIL document of a book's recorded narration (an EPUB 3 Media Overlay, a DAISY 2.02 or
/// DAISY 3 SMIL file): each `par` pairs a fragment of a text document (`text
/// src="chapter.xhtml#s1"`) with a clip of audio (`audio src clipBegin clipEnd`, DAISY 2.02's
/// `clip-begin="npt=1.2s"`), in reading order. Nested `seq`s (a table, a list) are read through:
/// their `par`s keep document order. A `par` whose audio is several clips of one file in a row
/// (DAISY's `<par><text/><seq><audio/><audio/></seq></par>`) is one clip from the first's begin to
/// the last's end; where its audio goes on in another file (a DAISY section recorded over several
/// files), each file's stretch is a `Par` of the same text, in order. Several documents may share
/// one audio file.
struct MediaOverlay {
    struct Par: Hashable {
        /// The content document's path in the book, and the fragment id in it.
        var document: String
        var fragment: String
        /// The audio file's path in the book.
        var audio: String
        var begin: Int
        var end: Int?
        /// The ids of the `par` and of its `text` (what a DAISY book's NCC or NCX links to).
        var ids: [String] = []
    }

    var pars: [Par] = []
    /// How many pars (or clips of a par) were left out (a clock that is not one, a `par` without
    /// text or audio, a clip of its file that goes back or overlaps the one before).
    var unreadable = 0
    /// The links that `resolve` found outside the book, as written.
    var outside: [String] = []

    /// `resolve` makes a link a path in the book, nil when it points outside it (the EPUB reader's
    /// default keeps every path inside its archive). `textless`: a `par` with audio and no text is
    /// kept, its document and fragment empty (an audio-only DAISY 3 book's SMIL is all such).
    init(
        tree: XMLTree, base: String, resolve: (String, String) -> String? = { XHTMLDecoding.resolve($0, against: $1) }, textless: Bool = false
    ) {
        // XMLTree keeps elements in document order: a par's text and audio follow it, deeper.
        var current: (depth: Int, text: String?, clips: [(source: String, begin: Int, end: Int?)], ids: [String])?
        func close() {
            defer { current = nil }
            guard let par = current else { return }
            if textless, par.text == nil, !par.clips.isEmpty {
                for clip in par.clips {
                    guard let audio = resolve(clip.source, base) else {
                        outside.append(clip.source)
                        continue
                    }
                    pars.append(Par(document: "", fragment: "", audio: audio, begin: clip.begin, end: clip.end, ids: par.ids))
                }
                return
            }
            guard let text = par.text, let hash = text.firstIndex(of: "#"), !par.clips.isEmpty else {
                unreadable += 1
                return
            }
            let fragment = String(text[text.index(after: hash)...])
            guard !fragment.isEmpty else {
                unreadable += 1
                return
            }
            guard let document = resolve(String(text[..<hash]), base) else { return outside.append(text) }
            for clip in par.clips {
                guard let audio = resolve(clip.source, base) else {
                    outside.append(clip.source)
                    continue
                }
                pars.append(Par(document: document, fragment: fragment, audio: audio, begin: clip.begin, end: clip.end, ids: par.ids))
            }
        }
        func clock(_ value: String?) -> Int?? {
            guard let value else { return .some(nil) }
            // DAISY 2.02 writes "npt=12.3s" (SMIL 1.0's normal play time).
            let plain = value.hasPrefix("npt=") ? String(value.dropFirst(4)) : value
            return StoryRecording.clockValue(plain).map { .some($0) } ?? nil
        }
        func add(audio attributes: [String: String]) {
            guard let source = attributes["src"], !source.isEmpty,
                case .some(let begin) = clock(attributes["clipBegin"] ?? attributes["clip-begin"]),
                case .some(let end) = clock(attributes["clipEnd"] ?? attributes["clip-end"])
            else {
                // A par left without a clip is counted when it closes.
                if current?.clips.isEmpty == false { unreadable += 1 }
                return
            }
            let start = begin ?? 0
            if let end, end <= start {
                if current?.clips.isEmpty == false { unreadable += 1 }
                return
            }
            guard let clip = current?.clips.last, clip.source == source else {
                // The par's first clip, or its audio going on in another file.
                current?.clips.append((source, start, end))
                return
            }
            // The next clip of the same file, from where the last ended or later, extends it.
            guard let last = clip.end, start >= last, let count = current?.clips.count else {
                unreadable += 1
                return
            }
            current?.clips[count - 1].end = end
        }
        for element in tree.elements {
            if let par = current, element.depth <= par.depth { close() }
            switch element.name.split(separator: ":").last.map(String.init) ?? element.name {
            case "par":
                current = (element.depth, nil, [], element.attributes["id"].map { [$0] } ?? [])
            case "text" where current != nil:
                current?.text = element.attributes["src"]
                if let id = element.attributes["id"] { current?.ids.append(id) }
            case "audio" where current != nil:
                add(audio: element.attributes)
            default:
                break
            }
        }
        close()
    }
}
