import Foundation

extension ReadAlongBook {
    /// One story as an XHTML document and its media overlay: the story's blocks in order (headings,
    /// paragraphs, pictures' descriptions), page breaks marked, every narrated sentence in an
    /// element with an id — and every word too when the overlay is by words.
    struct ChapterDocument {
        let chapter: Chapter
        let number: Int
        let granularity: Granularity
        let audioDuration: Int
        let pageLabelPrefix: String

        static func baseName(_ number: Int) -> String { String(format: "story-%03d", number) }
        var xhtmlName: String { Self.baseName(number) + ".xhtml" }
        var smilName: String { Self.baseName(number) + ".smil" }
        var overlayID: String { Self.baseName(number) + "-overlay" }
        var prefix: String { "s\(number)" }

        /// The page breaks (every page but the first starts with one).
        var pageBreaks: [(id: String, label: String)] {
            let pages = Set(chapter.narration.items.map(\.pageIndex)).sorted().filter { $0 > 0 }
            return pages.map { ("\(prefix)-page\($0 + 1)", pageLabelPrefix + "\($0 + 1)") }
        }

        /// One highlight: the element's id and its clip.
        struct Clip {
            var id: String
            var begin: Int
            var end: Int
        }

        /// Every clip in reading order: increasing, never empty, never past the audio.
        var clips: [Clip] {
            var clips: [Clip] = []
            for sentence in chapter.timed.sentences {
                let id = "\(prefix)-\(sentence.item)"
                let end = min(sentence.end, audioDuration)
                if granularity == .words, let spans = wordSpans(sentence.item), !sentence.words.isEmpty {
                    // Each word runs to the next word's start; the last to the sentence's end. The
                    // time before the first word (a picture's "Picture:") goes with the first.
                    let starts = sentence.words.map(\.start)
                    for (position, word) in sentence.wordIndices.enumerated() where spans[word] != nil {
                        let begin = position == 0 ? sentence.start : starts[position]
                        let wordEnd = min(position + 1 < starts.count ? starts[position + 1] : sentence.end, end)
                        clips.append(Clip(id: "\(id)-w\(word)", begin: begin, end: wordEnd))
                    }
                } else {
                    clips.append(Clip(id: id, begin: sentence.start, end: end))
                }
            }
            // A word whose event came with the next one's (eSpeak NG merges some) has no time of its own.
            var kept: [Clip] = []
            for clip in clips where clip.end > clip.begin && clip.begin >= (kept.last?.end ?? 0) { kept.append(clip) }
            return kept
        }

        /// The overlay's length: the sum of its clips.
        var duration: Int { clips.reduce(0) { $0 + $1.end - $1.begin } }

        /// Where each word of item `index` stands in its sentence text (scalar offsets), or nil when
        /// the words cannot be placed (then the sentence is one highlight).
        func wordSpans(_ index: Int) -> [Int: Range<Int>]? {
            let item = chapter.narration.items[index]
            let length = item.text.unicodeScalars.count
            var spans: [Int: Range<Int>] = [:]
            var last = 0
            for (position, word) in item.words.enumerated() {
                let start = word.range.start - item.range.start
                let end = word.range.end - item.range.start
                guard start >= last, end >= start, end <= length else { return nil }
                spans[position] = start..<end
                last = end
            }
            return spans
        }

        /// The sentence as XHTML: its text, with word elements when the overlay is by words.
        func sentenceMarkup(_ index: Int) -> String {
            let item = chapter.narration.items[index]
            let id = "\(prefix)-\(index)"
            var inner = ""
            if granularity == .words, let spans = wordSpans(index) {
                let scalars = Array(item.text.unicodeScalars)
                func text(_ range: Range<Int>) -> String { ReadAlongBook.escaped(String(String.UnicodeScalarView(scalars[range]))) }
                var at = 0
                for position in item.words.indices {
                    guard let span = spans[position] else { continue }
                    inner += text(at..<span.lowerBound)
                    inner += "<span id=\"\(id)-w\(position)\">\(text(span))</span>"
                    at = span.upperBound
                }
                inner += text(at..<scalars.count)
            } else {
                inner = ReadAlongBook.escaped(item.text)
            }
            return "<span id=\"\(id)\">\(ReadAlongBook.escaped(item.prefix))\(inner)</span>"
        }

        func xhtml() -> String {
            let story = chapter.story
            var body = "<section id=\"\(prefix)\" epub:type=\"bodymatter chapter\" role=\"doc-chapter\" aria-labelledby=\"\(prefix)-title\">\n"
            body += "<h1 id=\"\(prefix)-title\">\(ReadAlongBook.escaped(story.title))</h1>\n"
            if let author = story.author, !author.isEmpty { body += "<p class=\"byline\">\(ReadAlongBook.escaped(author))</p>\n" }
            let items = chapter.narration.items
            var index = 0
            var page = 0
            while index < items.count {
                let block = items[index].blockIndex
                var end = index
                while end < items.count, items[end].blockIndex == block { end += 1 }
                if items[index].pageIndex > page {
                    page = items[index].pageIndex
                    body +=
                        "<span epub:type=\"pagebreak\" role=\"doc-pagebreak\" id=\"\(prefix)-page\(page + 1)\" title=\"\(pageLabelPrefix)\(page + 1)\" aria-label=\"Page \(pageLabelPrefix)\(page + 1)\"></span>\n"
                }
                let sentences = (index..<end).map(sentenceMarkup).joined(separator: " ")
                switch items[index].kind {
                case .heading: body += "<h2>\(sentences)</h2>\n"
                case .paragraph: body += "<p>\(sentences)</p>\n"
                case .picture: body += "<figure class=\"picture\"><figcaption>\(sentences)</figcaption></figure>\n"
                }
                index = end
            }
            body += "</section>\n"
            return ReadAlongBook.xhtmlDocument(title: story.title, language: story.language, body: body)
        }

        func smil() -> String {
            var pars = ""
            for (position, clip) in clips.enumerated() {
                pars += "<par id=\"\(prefix)-par\(position + 1)\"><text src=\"\(xhtmlName)#\(clip.id)\"/>"
                pars += "<audio src=\"audio/book.mp3\" clipBegin=\"\(ReadAlongBook.clock(clip.begin))\" clipEnd=\"\(ReadAlongBook.clock(clip.end))\"/></par>\n"
            }
            return """
                <?xml version="1.0" encoding="UTF-8"?>
                <smil xmlns="http://www.w3.org/ns/SMIL" xmlns:epub="http://www.idpf.org/2007/ops" version="3.0">
                <body>
                <seq id="\(prefix)-seq" epub:textref="\(xhtmlName)#\(prefix)" epub:type="bodymatter chapter">
                \(pars)</seq>
                </body>
                </smil>

                """
        }
    }
}
