import StoryKit

/// What the reading screen shows: the story's title, a status line with the keys, and the block
/// being read, wrapped, with the word being heard in reverse video (visible without colour too).
struct ReaderScreen {
    var title: String
    var narration: Narration
    var blocks: [StoryBlock]
    var sentence: Int
    var word: Int?
    var status: String
    var columns: Int
    var lines: Int
    /// A notice that stays on screen (no audio device, a voice fallback).
    var notice: String? = nil

    static let keysHelp = "Space pause · ←/→ sentence · ↑/↓ paragraph · +/- speed · s/p step · q quit"

    /// The screen as lines of text with SGR escapes (reverse video for the word heard).
    func render() -> [String] {
        let width = max(20, columns)
        var output = [Self.clip(title, width), Self.clip(status, width), Self.clip(Self.keysHelp, width)]
        if let notice { output.append(Self.clip("Note: " + notice, width)) }
        output.append("")
        guard sentence < narration.items.count else {
            output.append("The end.")
            return output
        }
        let item = narration.items[sentence]
        let block = blocks[item.blockIndex]
        var highlight: TextRange? = nil
        if let word, word < item.words.count { highlight = item.words[word].range }
        let prefix: String = if case .picture = block.kind { "[Picture] " } else { "" }
        let wrapped = Self.wrap(block.text, startingAt: block.range.start, width: width, prefix: prefix)
        let available = max(1, lines - output.count - 1)
        var first = 0
        if let highlight, let line = wrapped.firstIndex(where: { $0.range.end > highlight.start }) {
            first = max(0, min(line - available / 2, wrapped.count - available))
        }
        for line in wrapped.dropFirst(first).prefix(available) {
            output.append(Self.draw(line, highlight: highlight))
        }
        return output
    }

    struct Line {
        var text: [Unicode.Scalar]
        /// The story text range the line shows (after the prefix).
        var range: TextRange
        var prefix: String
    }

    /// Wraps `text` (whose first scalar is story offset `start`) at spaces to `width` columns.
    static func wrap(_ text: String, startingAt start: Int, width: Int, prefix: String = "") -> [Line] {
        let scalars = Array(text.unicodeScalars)
        var lines: [Line] = []
        var lineStart = 0
        var firstLine = true
        while lineStart < scalars.count {
            let room = max(1, width - (firstLine ? prefix.count : 0))
            var end = lineStart
            var lastSpace: Int? = nil
            var used = 0
            while end < scalars.count, scalars[end] != "\n" {
                let w = DisplayWidth.of(String(scalars[end]))
                if used + w > room { break }
                if scalars[end] == " " { lastSpace = end }
                used += w
                end += 1
            }
            var next = end
            if end < scalars.count, scalars[end] != "\n", let lastSpace, lastSpace > lineStart {
                end = lastSpace
                next = lastSpace + 1
            } else if end < scalars.count, scalars[end] == "\n" {
                next = end + 1
            } else if end == lineStart {
                end = lineStart + 1
                next = end
            }
            lines.append(Line(text: Array(scalars[lineStart..<end]), range: TextRange(start: start + lineStart, end: start + end),
                              prefix: firstLine ? prefix : ""))
            firstLine = false
            lineStart = next
        }
        return lines
    }

    static func draw(_ line: Line, highlight: TextRange?) -> String {
        var out = line.prefix
        for (index, scalar) in line.text.enumerated() {
            let offset = line.range.start + index
            if let highlight, offset == max(highlight.start, line.range.start), highlight.contains(offset) { out += "\u{1B}[7m" }
            out.unicodeScalars.append(scalar)
            if let highlight, offset == min(highlight.end, line.range.end) - 1, highlight.contains(offset) { out += "\u{1B}[27m" }
        }
        return out
    }

    static func clip(_ text: String, _ width: Int) -> String {
        var out = ""
        var used = 0
        for character in text {
            let w = DisplayWidth.of(character)
            if used + w > width { break }
            out.append(character)
            used += w
        }
        return out
    }
}
