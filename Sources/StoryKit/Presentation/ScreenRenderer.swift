/// What the renderer needs besides the screen: settings and what the terminal can do.
public struct RenderOptions: Sendable, Hashable {
    public var textSize: TextSizePreset
    public var theme: ThemeName
    public var style: TerminalStyle
    /// What the terminal is known to support (from `TerminalCapabilities`); block letters otherwise.
    public var scaling: TextScaling
    /// Line focus, syllables and spacing for the story text.
    public var aids: ReadingAids
    /// The language of the story shown, for its syllables ("en", "es", "fr", "de").
    public var language: String?

    public init(
        textSize: TextSizePreset = .default, theme: ThemeName = .default, style: TerminalStyle = .plain, scaling: TextScaling = .none,
        aids: ReadingAids = .off, language: String? = nil
    ) {
        self.textSize = textSize
        self.theme = theme
        self.style = style
        self.scaling = scaling
        self.aids = aids
        self.language = language
    }
}

/// A screen drawn for a terminal.
public struct RenderedScreen: Sendable, Hashable {
    /// At most `height` lines, with escape sequences as the style allows (none when plain).
    public var lines: [String]
    /// "accessibility2, shown as block letters".
    public var sizeDescription: String
    /// The line showing the word being heard (in normal-size text), if there is one.
    public var highlightLine: Int?
    /// The first line of the focused element, if it is on screen.
    public var focusLine: Int?
    /// Where the terminal's own cursor belongs, for screen readers and braille displays that
    /// follow it: on the word being heard, else at the start of the focused element's label.
    public var cursor: TerminalPosition?
    /// How text was drawn large.
    public var method: LargeTextMethod
    /// The text of each large line on screen (a double-size line, a band of block letters), top
    /// to bottom: what a child sees big, checked by tests without reading block-letter art.
    public var largeLines: [String] = []
}

/// A place on the terminal, counted from 0 (line from the top, column from the left).
public struct TerminalPosition: Sendable, Hashable {
    public var line: Int
    public var column: Int

    public init(line: Int, column: Int) {
        self.line = line
        self.column = column
    }
}

/// Draws a `Screen` (an element tree) as terminal lines: text size, theme, focus and the word
/// being heard. A pure function: the shell writes the lines.
///
/// - The screen's title is the first line, always. The body scrolls so that the word being heard
///   (or else the focused element) is on screen; "↑ more above" and "↓ more below" say when it did.
/// - Focus is shown by `❯` and bold as well as colour; state by symbol and word (✓ read,
///   ★ favourite, ▶ playing); the word being heard by the highlight colours and underline, by
///   reverse video and underline without colour, and by `^^^` under it without any escapes.
/// - At the accessibility sizes, headings and the sentence being heard are drawn 2× or 3× (DEC
///   double-size lines, kitty OSC 66, or block letters), and the normal-size text stays.
/// - No line is wider than the terminal; nothing is cut: long words break, everything wraps.
public enum ScreenRenderer {
    public static let focusMarker = "❯"

    public static func render(_ screen: Screen, focus: String?, options: RenderOptions, width: Int, height: Int) -> RenderedScreen {
        var builder = Builder(options: options, width: max(width, 12), focus: focus)
        return builder.render(screen, height: max(height, 4))
    }
}

// MARK: - Rows and spans

struct Span: Hashable {
    var text: String
    var role: ThemeRole
    var bold = false
    var underline = false
    var italic = false
    var isHighlight = false
    /// Drawn at normal size on a kitty-scaled row (the margin).
    var unscaled = false
    /// Story text away from the line focus: drawn faint.
    var dimmed = false
}

enum RowKind: Hashable {
    /// Normal-size text.
    case normal
    /// A row of block letters, a row of `^` marks.
    case block, caret
    case decTop, decBottom
    case kitty(Int)
    case spacer
}

struct Row: Hashable {
    var spans: [Span]
    var kind: RowKind = .normal
    /// Columns to mark with `^` on a row below when no escapes are allowed.
    var caretColumns: [Range<Int>] = []
    var elementID: String?
    var isFocusStart = false
    var isHighlight = false
    /// The rest of a unit begun on an earlier row (the lower half of a double-size line, the
    /// rows of a block letter, a row of `^` marks): never shown without its first row.
    var continuesUnit = false
    /// The text a large unit draws (on its first row): what the big view shows, in words.
    var largeText: String?
    /// A normal-size line of story text (what line focus counts).
    var isReadingLine = false

    static let blank = Row(spans: [])

    /// The terminal column where span `index` starts (double-size and kitty-scaled text counted
    /// at its drawn width).
    func column(beforeSpan index: Int) -> Int {
        let scale =
            switch kind {
            case .decTop, .decBottom: 2
            case .kitty(let factor): factor
            default: 1
            }
        return spans.prefix(index).reduce(0) { $0 + DisplayWidth.of($1.text) * ($1.unscaled ? 1 : scale) }
    }

    var width: Int {
        let text = spans.reduce(0) { $0 + ($1.unscaled ? 0 : DisplayWidth.of($1.text)) }
        let margin = spans.reduce(0) { $0 + ($1.unscaled ? DisplayWidth.of($1.text) : 0) }
        switch kind {
        case .decTop, .decBottom: return (text + margin) * 2
        case .kitty(let scale): return text * scale + margin
        default: return text + margin
        }
    }
}

struct Builder {
    let options: RenderOptions
    let width: Int
    let focus: String?
    let layout: TextSizeLayout
    let method: LargeTextMethod
    let theme: Theme
    var rows: [Row] = []
    /// The screen's language, for the renderer's own words.
    var messages: MessageCatalog = .english
    /// Between a label and its value ("Length: 826 words"): French typography puts a no-break space
    /// before the colon ("Longueur : 826 mots").
    var colon: String { messages.text(Self.colonMessage) }
    static let colonMessage = N_(": ")

    init(options: RenderOptions, width: Int, focus: String?) {
        self.options = options
        self.width = width
        self.focus = focus
        self.layout = TextSizeLayout(options.textSize)
        // Scaled text needs escapes; without them only block letters can be large.
        let scaling = options.style.attributes ? options.scaling : .none
        self.method = layout.method(scaling: scaling)
        self.theme = Theme.named(options.theme)
    }

    var columnWidth: Int { layout.columnWidth(terminalWidth: width) }

    mutating func render(_ screen: Screen, height: Int) -> RenderedScreen {
        messages = screen.messages
        // The title: one or more normal-size lines, bold, in the heading colour.
        var header: [Row] = []
        for line in TextWrap.wrap(Sanitizer.sanitizeLine(screen.title), width: width) {
            header.append(Row(spans: [Span(text: line.text, role: .heading, bold: true)]))
        }
        rows = []
        for element in screen.elements { add(element) }
        while rows.last == .blank { rows.removeLast() }
        applyLineFocus()
        if options.style.attributes == false { rows = withCarets(rows) }

        // The footer: scroll indicators and the focused element's hint.
        let hint = focusedElement(in: screen.elements)?.hint.map(Sanitizer.sanitizeLine)
        func footer(above: Bool, below: Bool) -> [Row] {
            var parts: [String] = []
            if above { parts.append(messages.tr("↑ more above")) }
            if below { parts.append(messages.tr("↓ more below")) }
            if let hint, !hint.isEmpty { parts.append(hint) }
            guard !parts.isEmpty else { return [] }
            return TextWrap.wrap(parts.joined(separator: " · "), width: width).map { Row(spans: [Span(text: $0.text, role: .secondary)]) }
        }
        let headerRows = Array(header.prefix(max(1, height / 4)))
        let worstFooter = footer(above: true, below: true).count
        let bodyHeight = max(1, height - headerRows.count - worstFooter)

        // Which rows must be seen: the word being heard (its large form and its line), else focus.
        var anchor: ClosedRange<Int>?
        let highlightRows = rows.indices.filter { rows[$0].isHighlight }
        if let first = highlightRows.first, let last = highlightRows.last {
            anchor = first...last
            if last - first + 1 > bodyHeight {
                // The large line with the word being heard and its normal-size line do not both
                // fit: the large one stays (that is what the preset is for), else the plain line.
                let large = highlightRows.filter { rows[$0].kind != .normal && rows[$0].kind != .caret }
                let plain = highlightRows.filter { rows[$0].kind == .normal || rows[$0].kind == .caret }
                if let start = large.first, let end = large.last, end - start + 1 <= bodyHeight {
                    anchor = start...end
                } else if let line = plain.last {
                    anchor = max(plain.first ?? line, line - bodyHeight + 1)...line
                }
            }
        } else if let start = rows.firstIndex(where: { $0.isFocusStart }) {
            var end = start
            while end + 1 < rows.count, let id = rows[end + 1].elementID, id == rows[start].elementID { end += 1 }
            anchor = start...min(end, start + bodyHeight - 1)
        }
        var top = 0
        if let anchor, rows.count > bodyHeight {
            top = anchor.lowerBound - bodyHeight / 3
            top = min(max(0, top), rows.count - bodyHeight)
            if anchor.upperBound >= top + bodyHeight { top = anchor.upperBound - bodyHeight + 1 }
            if anchor.lowerBound < top { top = anchor.lowerBound }
            // Never start halfway through a large line or a marked one: skip its rest.
            while top < rows.count - 1, top < (anchor.upperBound), rows[top].continuesUnit { top += 1 }
        }
        var body = Array(rows[top..<min(rows.count, top + bodyHeight)])
        // Nor end halfway through one.
        while !body.isEmpty, top + body.count < rows.count, rows[top + body.count].continuesUnit { body.removeLast() }
        let above = top > 0
        let below = top + body.count < rows.count
        let all = headerRows + body + footer(above: above, below: below)
        let lines = all.map(encode)
        let highlightLine = all.firstIndex { $0.isHighlight && $0.kind == .normal }
        let focusLine = all.firstIndex { $0.isFocusStart }
        var cursor: TerminalPosition?
        if let line = highlightLine, let span = all[line].spans.firstIndex(where: \.isHighlight) {
            cursor = TerminalPosition(line: line, column: all[line].column(beforeSpan: span))
        } else if let focus, let line = all.firstIndex(where: { $0.elementID == focus && $0.kind == .normal && !$0.caretColumns.isEmpty }),
            let caret = all[line].caretColumns.first
        {
            // A text field: at the insertion point.
            cursor = TerminalPosition(line: line, column: caret.lowerBound)
        } else if let line = focusLine, let marker = all[line].spans.firstIndex(where: { $0.text.contains(ScreenRenderer.focusMarker) }) {
            cursor = TerminalPosition(line: line, column: all[line].column(beforeSpan: marker + 1))
        }
        if let position = cursor, position.line >= height { cursor = nil }
        return RenderedScreen(
            lines: Array(lines.prefix(height)), sizeDescription: layout.description(scaling: options.style.attributes ? options.scaling : .none),
            highlightLine: highlightLine, focusLine: focusLine, cursor: cursor, method: method,
            largeLines: all.prefix(height).compactMap(\.largeText))
    }

    private func focusedElement(in elements: [AccessibilityElement]) -> AccessibilityElement? {
        guard let focus else { return nil }
        for element in elements {
            if element.id == focus { return element }
            if let found = focusedElement(in: element.children) { return found }
        }
        return nil
    }

    // MARK: Elements

    private mutating func addSpacing(_ count: Int) {
        guard !rows.isEmpty else { return }
        var trailing = 0
        while trailing < rows.count, rows[rows.count - 1 - trailing] == .blank { trailing += 1 }
        for _ in trailing..<count { rows.append(.blank) }
    }

    private func gutter(_ focused: Bool, first: Bool) -> Span {
        focused && first ? Span(text: ScreenRenderer.focusMarker + " ", role: .focus, bold: true) : Span(text: "  ", role: .text)
    }

    private mutating func add(_ element: AccessibilityElement) {
        let focused = element.id == focus
        let label = Sanitizer.sanitizeLine(element.label)
        let value = element.value.map(Sanitizer.sanitizeLine)
        if element.traits.contains(.header) {
            addSpacing(layout.paragraphSpacing)
            if case .readingText(let text, let highlight, let emphasis) = element.content {
                addLarge(text, role: .heading, highlight: highlight, id: element.id)
                addReading(
                    Sanitizer.sanitize(text), highlight: highlight, emphasis: emphasis, role: .heading, bold: true, id: element.id, focused: focused,
                    band: false)
            } else {
                addLarge(label, role: .heading, highlight: nil, id: element.id)
                var text = label
                if let value, !value.isEmpty { text += " — " + value }
                addWrapped(text, role: .heading, bold: true, id: element.id, focused: focused)
            }
            addSpacing(1)
            for child in element.children { add(child) }
            return
        }
        switch element.content {
        case .readingText(let text, let highlight, let emphasis):
            addSpacing(layout.paragraphSpacing)
            addReading(
                Sanitizer.sanitize(text), highlight: highlight, emphasis: emphasis, role: .text, bold: false, id: element.id, focused: focused, band: true)
        case .picture(let art):
            addSpacing(layout.paragraphSpacing)
            addWrapped("▣ " + label, role: .secondary, id: element.id, focused: focused)
            for line in art ?? [] {
                // Picture art is decorative (the label describes it): clipped to the width, never wrapped.
                var clipped = ""
                var used = 0
                for character in Sanitizer.sanitizeLine(line) {
                    let characterWidth = DisplayWidth.of(character)
                    if used + characterWidth > width - 2 { break }
                    clipped.append(character)
                    used += characterWidth
                }
                rows.append(Row(spans: [Span(text: "  ", role: .text), Span(text: clipped, role: .secondary)], elementID: element.id))
            }
        case .field(let text, let cursor):
            addField(label: label, text: Sanitizer.sanitizeLine(text), cursor: cursor, id: element.id, focused: focused)
        case .bigWord(let text):
            addSpacing(1)
            addBigWord(Sanitizer.sanitizeLine(text), id: element.id)
            addWrapped(label, role: .heading, bold: true, id: element.id, focused: focused)
            addSpacing(1)
        case .plain:
            if element.traits.contains(.button), element.children.isEmpty, !element.combinesChildren {
                addButton(label: label, value: value, id: element.id, focused: focused)
            } else if element.combinesChildren {
                addCard(element, label: label, value: value, focused: focused)
            } else {
                var text = label
                if element.traits.contains(.warning) { text = "⚠ " + text }
                if let value, !value.isEmpty {
                    // State words get their symbols in state displays (progress), never in prose
                    // such as help's list of commands, where "read" is a command.
                    let isState = element.traits.contains(.updatesFrequently) || !element.traits.contains(.staticText)
                    text += colon + (isState ? StateBadge.decorate(value, messages: messages) : value)
                }
                if element.traits.contains(.selected) { text += " ✓ " + messages.tr("selected") }
                if element.traits.contains(.notEnabled) { text += " (" + messages.tr("not available") + ")" }
                // A setting changed with left and right: the arrows say so.
                if element.traits.contains(.adjustable) { text = "◀ " + text + " ▶" }
                addWrapped(text, role: element.traits.contains(.warning) ? .warning : .text, id: element.id, focused: focused)
            }
        }
        if !element.combinesChildren {
            for child in element.children { add(child) }
        }
    }

    /// Buttons flow on one line, `[ Play ] [ Stop ]`, wrapping as needed.
    private mutating func addButton(label: String, value: String?, id: String, focused: Bool) {
        var text = "[\(label)"
        if let value, !value.isEmpty { text += colon + StateBadge.decorate(value, messages: messages) }
        text += "]"
        let marker = focused ? ScreenRenderer.focusMarker : " "
        let itemWidth = DisplayWidth.of(text) + 1
        let span = Span(text: text, role: focused ? .focus : .text, bold: focused, underline: focused && options.style.colors == .none)
        if let last = rows.last, last.kind == .normal, last.elementID?.hasPrefix("button:") == true,
            last.width + 1 + itemWidth <= width
        {
            rows[rows.count - 1].spans += [Span(text: " " + marker, role: .focus, bold: focused), span]
            if focused {
                rows[rows.count - 1].isFocusStart = true
                rows[rows.count - 1].elementID = "button:" + id
            }
            return
        }
        if itemWidth + 1 <= width {
            rows.append(Row(spans: [Span(text: " " + marker, role: .focus, bold: focused), span], elementID: "button:" + id, isFocusStart: focused))
        } else {
            // A button too long for a line: wrapped like any text.
            addWrapped(text, role: .text, id: "button:" + id, focused: focused)
        }
    }

    /// A story card: its label, then its state and details, indented.
    private mutating func addCard(_ element: AccessibilityElement, label: String, value: String?, focused: Bool) {
        addWrapped(label, role: focused ? .focus : .text, bold: true, id: element.id, focused: focused)
        var details: [String] = []
        if let value, !value.isEmpty { details.append(StateBadge.decorate(value, messages: messages)) }
        details += element.children.filter { !$0.isHidden }.map { child in
            var text = Sanitizer.sanitizeLine(child.label)
            if let value = child.value, !value.isEmpty { text += colon + Sanitizer.sanitizeLine(value) }
            return text
        }
        if !details.isEmpty {
            for line in TextWrap.wrap(details.joined(separator: " · "), width: width - 4) {
                rows.append(Row(spans: [Span(text: "    ", role: .text)] + badgeSpans(line.text, role: .secondary), elementID: element.id))
            }
        }
    }

    private mutating func addField(label: String, text: String, cursor: Int, id: String, focused: Bool) {
        let characters = Array(text)
        let position = min(max(cursor, 0), characters.count)
        let before = String(characters[..<position])
        let at = position < characters.count ? String(characters[position]) : " "
        let after = position + 1 < characters.count ? String(characters[(position + 1)...]) : ""
        // Wrap "label: text" and mark the cursor cell.
        let full = "\(label)\(colon)\(before)\(at)\(after)"
        let cursorOffset = "\(label)\(colon)\(before)".unicodeScalars.count
        let lines = TextWrap.wrap(full, width: width - 2)
        for (index, line) in lines.enumerated() {
            var spans = [gutter(focused, first: index == 0)]
            var carets: [Range<Int>] = []
            for grapheme in line.graphemes {
                let isCursor = focused && grapheme.scalarRange.start == cursorOffset
                spans.append(
                    Span(text: String(grapheme.character), role: isCursor ? .highlight : (focused ? .focus : .text), underline: isCursor, isHighlight: false))
                if isCursor { carets.append((2 + grapheme.column)..<(2 + grapheme.column + max(1, grapheme.width))) }
            }
            rows.append(Row(spans: merge(spans), caretColumns: carets, elementID: id, isFocusStart: focused && index == 0))
        }
    }

    /// Text wrapped to the width, with the gutter; the state symbols coloured.
    private mutating func addWrapped(_ text: String, role: ThemeRole, bold: Bool = false, id: String, focused: Bool) {
        let role = focused ? .focus : role
        for (index, line) in TextWrap.wrap(text, width: width - 2).enumerated() {
            var spans = [gutter(focused, first: index == 0)] + badgeSpans(line.text, role: role)
            for i in spans.indices.dropFirst() { spans[i].bold = bold || focused }
            rows.append(Row(spans: spans, elementID: id, isFocusStart: focused && index == 0))
        }
    }

    /// Splits text so that ✓ ★ ▶ ✗ take the state colour.
    private func badgeSpans(_ text: String, role: ThemeRole) -> [Span] {
        var spans: [Span] = []
        var current = ""
        for character in text {
            if StateBadge.symbols.contains(character) {
                if !current.isEmpty { spans.append(Span(text: current, role: role)) }
                spans.append(Span(text: String(character), role: .state, bold: true))
                current = ""
            } else {
                current.append(character)
            }
        }
        if !current.isEmpty { spans.append(Span(text: current, role: role)) }
        return spans
    }

    /// A paragraph of story text at normal size (with the large band of the sentence being heard first).
    private mutating func addReading(
        _ text: String, highlight: TextRange?, emphasis: [TextRange], role: ThemeRole, bold: Bool, id: String, focused: Bool, band: Bool
    ) {
        if band, layout.scale > 1, let highlight {
            let sentences = Segmenter.sentences(in: text, startingAt: 0)
            if let sentence = sentences.first(where: { $0.range.contains(highlight.start) }) ?? sentences.first {
                let sentenceText = text.scalars(in: sentence.range)
                addLarge(sentenceText, role: .text, highlight: highlight.shifted(by: -sentence.range.start), id: id)
                addSpacing(1)
            }
        }
        // Reading aids: syllable dots after some letters, double gaps between words, a blank
        // line between lines. Each grapheme keeps its place in the text, so the highlight and
        // the `^` marks follow the word being heard whatever is drawn around it.
        let aids = options.aids
        let breaks = aids.syllables ? Syllables.breaks(in: text, language: options.language) : []
        let wide = aids.spacing == .wide
        let lines = TextWrap.wrap(
            text, width: columnWidth,
            measureAt: { character, range in
                if character == " " { return wide ? 2 : 1 }
                return DisplayWidth.of(character) + (breaks.contains(range.end) ? 1 : 0)
            })
        let lineSpacing = wide ? max(1, layout.lineSpacing) : layout.lineSpacing
        for (index, line) in lines.enumerated() {
            if index > 0 { for _ in 0..<lineSpacing { rows.append(Row(spans: [], elementID: id)) } }
            var spans = [gutter(focused, first: index == 0)]
            var carets: [Range<Int>] = []
            var isHighlightRow = false
            for grapheme in line.graphemes {
                let lit = highlight.map { grapheme.scalarRange.start < $0.end && grapheme.scalarRange.end > $0.start } ?? false
                let emphasised = emphasis.contains { grapheme.scalarRange.start < $0.end && grapheme.scalarRange.end > $0.start }
                var drawn = String(grapheme.character)
                if grapheme.character == " " { drawn = String(repeating: " ", count: grapheme.width) }
                spans.append(
                    Span(
                        text: drawn, role: lit ? .highlight : role, bold: bold || lit,
                        underline: lit, italic: emphasised, isHighlight: lit))
                if breaks.contains(grapheme.scalarRange.end), grapheme.character != " " {
                    // The dot belongs to the word: highlighted with it, never underlined alone.
                    spans.append(Span(text: Syllables.dot, role: lit ? .highlight : .secondary, bold: bold || lit, isHighlight: lit))
                }
                if lit {
                    isHighlightRow = true
                    let start = 2 + grapheme.column
                    if let last = carets.last, last.upperBound == start {
                        carets[carets.count - 1] = last.lowerBound..<(start + grapheme.width)
                    } else {
                        carets.append(start..<(start + grapheme.width))
                    }
                }
            }
            rows.append(
                Row(
                    spans: merge(spans), caretColumns: carets, elementID: id, isFocusStart: focused && index == 0,
                    isHighlight: isHighlightRow, isReadingLine: true))
        }
    }

    /// Line focus: only the lines around the word being heard are shown in full; the other lines
    /// of story text are dimmed, or blank where dimming would not show (high-contrast themes,
    /// which must not lower any text's contrast, and output without escapes). Nothing moves:
    /// a blank line keeps its row, so the focused lines never jump about.
    private mutating func applyLineFocus() {
        guard let count = options.aids.lineFocus.lines else { return }
        let reading = rows.indices.filter { rows[$0].isReadingLine && rows[$0].kind == .normal }
        guard let heard = reading.firstIndex(where: { rows[$0].isHighlight }) else { return }
        var first = max(0, heard - (count - 1) / 2)
        let last = min(reading.count - 1, first + count - 1)
        first = max(0, last - count + 1)
        let blank = theme.name.isHighContrast || !options.style.attributes
        for (position, index) in reading.enumerated() where position < first || position > last {
            if blank {
                // The gutter stays (it may hold the focus marker); the text goes.
                let first = rows[index].spans.first
                let gutter = String((first?.text ?? "  ").prefix(2))
                rows[index].spans = [Span(text: gutter, role: first?.role ?? .text, bold: first?.bold ?? false)]
                rows[index].caretColumns = []
            } else {
                // The focus marker keeps its colour.
                for span in rows[index].spans.indices where rows[index].spans[span].role != .focus { rows[index].spans[span].dimmed = true }
            }
        }
    }

    /// Large text (headings, the sentence being heard) at scale 2 or 3; nothing at scale 1. As
    /// block letters, 3× is the tall font where the column has room for it (`BlockFont.forScale`).
    /// The whole text is drawn, over as many rows as it takes: the body scrolls to keep the
    /// large line with the word being heard on screen, so no word is ever left out.
    private mutating func addLarge(_ text: String, role: ThemeRole, highlight: TextRange?, id: String) {
        guard layout.scale > 1 else { return }
        let scale = layout.scale
        let wrapWidth = columnWidth
        let font = BlockFont.forScale(scale, columns: wrapWidth)
        // The reading aids hold in large text too: a syllable dot after a break, two spaces
        // between words with wide spacing (the big letters' own gaps stay as they are).
        let breaks = options.aids.syllables ? Syllables.breaks(in: text, language: options.language) : []
        let spaces = options.aids.spacing == .wide ? 2 : 1
        let dotted: (Character, TextRange) -> Bool = { character, range in character != " " && breaks.contains(range.end) }
        let dotWidth = font.glyphWidth(Character(Syllables.dot))
        let lines: [WrappedLine]
        switch method {
        case .normal:
            return
        case .decDoubleSize, .kittyTextSizing:
            let factor = method == .decDoubleSize ? 2 : scale
            lines = TextWrap.wrap(
                text, width: wrapWidth,
                measureAt: { character, range in
                    (character == " " ? spaces : DisplayWidth.of(character) + (dotted(character, range) ? 1 : 0)) * factor
                })
        case .blockLetters:
            lines = TextWrap.wrap(
                text, width: wrapWidth + font.spacing,
                measureAt: { character, range in
                    let glyph = font.glyphWidth(character)
                    guard glyph > 0 else { return 0 }
                    if character == " " { return (glyph + font.spacing) * spaces }
                    return glyph + font.spacing + (dotted(character, range) ? dotWidth + font.spacing : 0)
                })
        }
        for line in lines {
            let lit: (PlacedGrapheme) -> Bool = { grapheme in
                highlight.map { grapheme.scalarRange.start < $0.end && grapheme.scalarRange.end > $0.start } ?? false
            }
            let isHighlight = line.graphemes.contains(where: lit)
            switch method {
            case .decDoubleSize, .kittyTextSizing:
                // The margin: one double-width cell, or two normal cells before kitty's scaled text.
                var spans = [method == .decDoubleSize ? Span(text: " ", role: role) : Span(text: "  ", role: role, unscaled: true)]
                for grapheme in line.graphemes {
                    let text = grapheme.character == " " ? String(repeating: " ", count: spaces) : String(grapheme.character)
                    spans.append(Span(text: text, role: lit(grapheme) ? .highlight : role, bold: true, underline: lit(grapheme), isHighlight: lit(grapheme)))
                    if dotted(grapheme.character, grapheme.scalarRange) {
                        spans.append(Span(text: Syllables.dot, role: lit(grapheme) ? .highlight : .secondary, bold: true, isHighlight: lit(grapheme)))
                    }
                }
                spans = merge(spans)
                if method == .decDoubleSize {
                    rows.append(Row(spans: spans, kind: .decTop, elementID: id, isHighlight: isHighlight, largeText: line.text))
                    rows.append(Row(spans: spans, kind: .decBottom, elementID: id, isHighlight: isHighlight, continuesUnit: true))
                } else {
                    rows.append(Row(spans: spans, kind: .kitty(scale), elementID: id, isHighlight: isHighlight, largeText: line.text))
                    for _ in 1..<scale { rows.append(Row(spans: [], kind: .spacer, elementID: id, isHighlight: isHighlight, continuesUnit: true)) }
                }
            case .blockLetters:
                var glyphRows: [[Span]] = Array(repeating: [Span(text: "  ", role: role)], count: font.height)
                var carets: [Range<Int>] = []
                var column = 2
                var first = true
                var previousLit = false
                for grapheme in line.graphemes {
                    let isLit = lit(grapheme)
                    // A letter, its syllable dot where a break follows it, and a wide gap's second space.
                    var pieces: [Character] = [grapheme.character]
                    if dotted(grapheme.character, grapheme.scalarRange) { pieces.append(Character(Syllables.dot)) }
                    if grapheme.character == " " { pieces += Array(repeating: " ", count: spaces - 1) }
                    for piece in pieces {
                        let glyph = font.glyph(piece)
                        let glyphWidth = font.glyphWidth(piece)
                        guard glyphWidth > 0 else { continue }
                        // The gap inside a highlighted word is highlighted too: one block, not letters.
                        let gapLit = isLit && previousLit
                        previousLit = isLit
                        for row in 0..<font.height {
                            if !first { glyphRows[row].append(Span(text: " ", role: gapLit ? .highlight : role, isHighlight: gapLit)) }
                            glyphRows[row].append(Span(text: glyph[row], role: isLit ? .highlight : role, isHighlight: isLit))
                        }
                        if !first { column += font.spacing }
                        if isLit {
                            if let last = carets.last, last.upperBound + font.spacing == column {
                                carets[carets.count - 1] = last.lowerBound..<(column + glyphWidth)
                            } else {
                                carets.append(column..<(column + glyphWidth))
                            }
                        }
                        column += glyphWidth
                        first = false
                    }
                }
                for row in 0..<font.height {
                    rows.append(
                        Row(
                            spans: merge(glyphRows[row]), kind: .block, caretColumns: row == font.height - 1 ? carets : [], elementID: id,
                            isHighlight: isHighlight, continuesUnit: row > 0, largeText: row == 0 ? line.text : nil))
                }
            case .normal:
                break
            }
        }
    }

    /// One word in block letters at any text size (tall ones where they fit), cut to the width.
    private mutating func addBigWord(_ word: String, id: String) {
        let font = BlockFont.forScale(3, columns: columnWidth)
        var shown = word
        while shown.count > 1, font.width(of: shown) > columnWidth { shown.removeLast() }
        for (index, line) in font.render(shown).enumerated() {
            rows.append(
                Row(
                    spans: [Span(text: "  ", role: .text), Span(text: line, role: .heading)], kind: .block, elementID: id,
                    continuesUnit: index > 0, largeText: index == 0 ? word : nil))
        }
    }

    /// Adjacent spans with the same style become one.
    private func merge(_ spans: [Span]) -> [Span] {
        var merged: [Span] = []
        for span in spans {
            if var last = merged.last, last.role == span.role, last.bold == span.bold, last.underline == span.underline,
                last.italic == span.italic, last.isHighlight == span.isHighlight, last.unscaled == span.unscaled, last.dimmed == span.dimmed
            {
                last.text += span.text
                merged[merged.count - 1] = last
            } else {
                merged.append(span)
            }
        }
        return merged
    }

    /// Without escapes, a row of `^` under the word being heard (and the cursor).
    private func withCarets(_ rows: [Row]) -> [Row] {
        var result: [Row] = []
        for row in rows {
            result.append(row)
            guard !row.caretColumns.isEmpty else { continue }
            var text = ""
            for range in row.caretColumns {
                text += String(repeating: " ", count: max(0, range.lowerBound - DisplayWidth.of(text)))
                text += String(repeating: "^", count: range.count)
            }
            result.append(
                Row(spans: [Span(text: text, role: .highlight)], kind: .caret, elementID: row.elementID, isHighlight: row.isHighlight, continuesUnit: true))
        }
        return result
    }

    // MARK: Encoding

    func encodeRow(_ row: Row) -> String { encode(row) }

    private func encode(_ row: Row) -> String {
        let style = options.style
        guard style.attributes else { return row.spans.map(\.text).joined() }
        var line = ""
        switch row.kind {
        case .decTop: line += "\u{1B}#3"
        case .decBottom: line += "\u{1B}#4"
        default:
            // A row that was double-size in an earlier frame (at this size or another one chosen
            // since) stays so until told otherwise, and would wrap and scroll the whole screen.
            if options.scaling.contains(.decDoubleSize) { line += "\u{1B}#5" }
        }
        let base = sgr(Span(text: "", role: .text))
        line += base
        if row.kind == .spacer {
            // Under kitty's scaled text: the cells it covers, left alone (they are its own).
            return line
        }
        var current = base
        for span in row.spans {
            // Only what changes is written.
            let code = sgr(span)
            if code != current { line += code }
            current = code
            if case .kitty(let scale) = row.kind, !span.unscaled {
                line += "\u{1B}]66;s=\(scale);\(span.text)\u{07}"
            } else {
                line += span.text
            }
        }
        guard style.colors != .none else { return line + "\u{1B}[0m" }
        // Every cell in the theme's colours, to the right edge: explicit spaces (a double-size
        // row has half as many cells), then the theme's background left set, so that whatever
        // erases after the line (EL, ED below the last line, a resize) erases in the theme's
        // colour rather than the terminal's own (background-colour erase).
        let doubled = row.kind == .decTop || row.kind == .decBottom
        let cells = doubled ? width / 2 : width
        let used = doubled ? row.width / 2 : row.width
        let remaining = max(0, cells - used)
        if current != base { line += base }
        line += String(repeating: " ", count: remaining)
        return line
    }

    private func sgr(_ span: Span) -> String {
        var codes: [String] = ["0"]
        if span.bold { codes.append("1") }
        if span.italic { codes.append("3") }
        if span.underline { codes.append("4") }
        let colors = options.style.colors
        if colors == .none {
            if span.dimmed { codes.append("2") }
            if span.isHighlight || span.role == .highlight { codes.append("7") }
        } else {
            codes.append(color(span.dimmed ? theme.dimmedText : theme.foreground(span.role), background: false))
            codes.append(color(theme.background(for: span.role), background: true))
        }
        return "\u{1B}[" + codes.joined(separator: ";") + "m"
    }

    private func color(_ color: ThemeColor, background: Bool) -> String {
        switch options.style.colors {
        case .trueColor:
            return "\(background ? 48 : 38);2;\(color.rgb.red);\(color.rgb.green);\(color.rgb.blue)"
        case .ansi256:
            return "\(background ? 48 : 38);5;\(color.ansi256)"
        case .ansi16:
            let index = color.ansi16
            let base = index < 8 ? (background ? 40 : 30) + index : (background ? 100 : 90) + index - 8
            return "\(base)"
        case .none:
            return ""
        }
    }
}
