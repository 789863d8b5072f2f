import StoryKit

/// Draws a screen as plain terminal lines: the focused element marked with `>`, the word being
/// heard in reverse video on a terminal (`[brackets]` when `styled` is false), a caption area.
///
/// One file on purpose: the Presentation renderer (text sizes, themes, motion) replaces it.
enum PlainRenderer {
    struct Frame {
        var screen: Screen
        var focusedID: String?
        var captions: [String]
        var commandLine: String?
        var columns: Int
        var rows: Int
        var styled: Bool
    }

    static let reverse = "\u{1B}[7m"
    static let bold = "\u{1B}[1m"
    static let reset = "\u{1B}[0m"

    /// The lines of the frame, exactly `rows` of them at most.
    static func lines(_ frame: Frame) -> [String] {
        let width = frame.columns
        var body: [String] = [frame.styled ? bold + fit(frame.screen.title, width) + reset : fit(frame.screen.title, width), ""]
        var focusLine = 0
        func add(_ element: AccessibilityElement, depth: Int) {
            guard !element.isHidden else { return }
            let focused = element.id == frame.focusedID
            let marker = focused ? "> " : "  "
            let indent = String(repeating: "  ", count: depth)
            if focused { focusLine = body.count }
            switch element.content {
            case .readingText(let text, let highlight, _):
                let marked = mark(text, highlight: highlight, styled: frame.styled)
                let wrapped = wrap(marked.plain, width: width - 2 - indent.count)
                for (index, line) in wrapped.enumerated() {
                    body.append((index == 0 ? marker : "  ") + indent + restyle(line, frame.styled))
                }
                body.append("")
            case .field(let text, _):
                body.append(marker + indent + fit("\(element.label): [\(text)]", width - 2 - indent.count))
            case .picture, .plain:
                var text = element.label
                if let value = element.value, !value.isEmpty { text += " — " + value }
                if element.combinesChildren {
                    let extra = element.children.filter { !$0.isHidden }.map(\.label)
                    if !extra.isEmpty { text += " (" + extra.joined(separator: ", ") + ")" }
                }
                if element.traits.contains(.header) { text = "## " + text }
                if element.traits.contains(.warning) { text = "⚠ " + text }
                if element.traits.contains(.button) { text = "[ " + text + " ]" }
                if element.traits.contains(.adjustable) { text = "◀ " + text + " ▶" }
                let line = marker + indent + fit(text, width - 2 - indent.count)
                body.append(focused && frame.styled ? reverse + line + reset : line)
            }
            if !element.combinesChildren { element.children.forEach { add($0, depth: depth + (element.traits.contains(.header) ? 0 : 1)) } }
        }
        frame.screen.elements.forEach { add($0, depth: 0) }

        // The caption area and the command line at the bottom.
        var footer: [String] = [String(repeating: "─", count: width)]
        footer += frame.captions.suffix(3).map { fit("» " + $0, width) }
        footer.append(frame.commandLine.map { fit(":" + $0, width) } ?? fit("Tab moves · Enter chooses · Esc back · h headings · ? help · : command", width))
        let room = max(1, frame.rows - footer.count)
        var start = 0
        if body.count > room { start = min(max(0, focusLine - room / 2), body.count - room) }
        var visible = Array(body[start..<min(body.count, start + room)])
        while visible.count < room { visible.append("") }
        return visible + footer
    }

    /// The text with the highlighted word marked by private characters, later turned into style.
    private static func mark(_ text: String, highlight: TextRange?, styled: Bool) -> (plain: String, Void) {
        guard let highlight, !highlight.isEmpty else { return (text, ()) }
        let scalars = Array(text.unicodeScalars)
        let lower = min(max(highlight.start, 0), scalars.count), upper = min(max(highlight.end, lower), scalars.count)
        var view = String.UnicodeScalarView()
        view.append(contentsOf: scalars[..<lower])
        view.append("\u{E000}")
        view.append(contentsOf: scalars[lower..<upper])
        view.append("\u{E001}")
        view.append(contentsOf: scalars[upper...])
        return (String(view), ())
    }

    private static func restyle(_ line: String, _ styled: Bool) -> String {
        line.replacingOccurrences(of: "\u{E000}", with: styled ? reverse : "[")
            .replacingOccurrences(of: "\u{E001}", with: styled ? reset : "]")
    }

    /// Greedy word wrap by display width (the markers take no room on a styled terminal; brackets do, ignored here).
    static func wrap(_ text: String, width: Int) -> [String] {
        var lines: [String] = []
        var current = ""
        var used = 0
        for word in text.split(separator: " ", omittingEmptySubsequences: false) {
            let length = DisplayWidth.of(String(word).replacingOccurrences(of: "\u{E000}", with: "").replacingOccurrences(of: "\u{E001}", with: ""))
            if used > 0, used + 1 + length > width {
                lines.append(current)
                current = ""
                used = 0
            }
            if used > 0 { current += " "; used += 1 }
            current += word
            used += length
        }
        if !current.isEmpty || lines.isEmpty { lines.append(current) }
        return lines
    }

    static func fit(_ text: String, _ width: Int) -> String {
        let line = Sanitizer.sanitizeLine(text)
        guard DisplayWidth.of(line) > width else { return line }
        var result = ""
        var used = 0
        for character in line {
            let columns = DisplayWidth.of(character)
            if used + columns > width - 1 { break }
            result.append(character)
            used += columns
        }
        return result + "…"
    }
}
