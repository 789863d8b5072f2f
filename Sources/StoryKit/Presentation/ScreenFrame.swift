/// A whole terminal frame for the interactive program: the screen, then a caption area and the
/// command line (or a key reminder) at the bottom.
///
/// The drop-in for the REPL's plain renderer: `ScreenFrame(…).lines(options:)` gives exactly `rows`
/// lines (blank theme rows fill a short screen), none wider than `columns`. Captions wrap (never cut): the newest is shown whole
/// when it fits the caption area, older ones fill what is left.
public struct ScreenFrame: Sendable, Hashable {
    /// The keys line at the foot of every screen, and of the reader (its own keys first); in the
    /// screen's language when drawn.
    public static let screenKeyHelp = N_("Tab moves · Enter chooses · Esc back · ? help · : command")
    public static let readingKeyHelp = N_("Space pause · ←→ sentence · ↑↓ paragraph · PgUp/PgDn page · +- speed · w where · q stop · ? help")

    public var screen: Screen
    public var focusedID: String?
    /// Printed twins of what was said, oldest first.
    public var captions: [String]
    /// The `:` command being typed, if any.
    public var commandLine: String?
    /// Shown when no command is being typed.
    public var keyHelp: String
    public var columns: Int
    public var rows: Int

    public init(
        screen: Screen, focusedID: String?, captions: [String] = [], commandLine: String? = nil,
        keyHelp: String = ScreenFrame.screenKeyHelp, columns: Int, rows: Int
    ) {
        self.screen = screen
        self.focusedID = focusedID
        self.captions = captions
        self.commandLine = commandLine
        self.keyHelp = keyHelp
        self.columns = columns
        self.rows = rows
    }

    /// The lines to draw, with escape sequences as `options.style` allows.
    public func lines(options: RenderOptions) -> [String] { render(options: options).lines }

    /// The lines, and where the terminal's cursor belongs: at the end of a `:` command being
    /// typed, else on the word being heard or the focused element.
    public func render(options: RenderOptions) -> (lines: [String], cursor: TerminalPosition?) {
        let width = max(columns, 12)
        let height = max(rows, 8)
        var footer: [(text: String, role: ThemeRole)] = [(String(repeating: "─", count: width), .secondary)]
        // Captions: up to a quarter of the screen (at least 2 rows), the newest first in priority.
        let captionRows = max(2, height / 4)
        var captionLines: [String] = []
        for caption in captions.reversed() {
            let wrapped = TextWrap.wrap("» " + Sanitizer.sanitizeLine(caption), width: width).map(\.text)
            if captionLines.count + wrapped.count > captionRows {
                if captionLines.isEmpty { captionLines = Array(wrapped.prefix(captionRows)) }
                break
            }
            captionLines = wrapped + captionLines
        }
        footer += captionLines.map { ($0, ThemeRole.text) }
        let bottom = commandLine.map { ":" + Sanitizer.sanitizeLine($0) + "▏" } ?? screen.messages.text(keyHelp)
        // A command being typed shows its end (where the typing is); the keys line is shown whole
        // (on a narrow terminal it takes three or four rows rather than lose its first keys).
        let wrappedBottom = TextWrap.wrap(bottom, width: width)
        let bottomLines = commandLine == nil ? wrappedBottom.prefix(4) : wrappedBottom.suffix(2)
        footer += bottomLines.map { ($0.text, commandLine == nil ? ThemeRole.secondary : ThemeRole.focus) }
        let rendered = ScreenRenderer.render(screen, focus: focusedID, options: options, width: width, height: max(4, height - footer.count))
        let screenLines = rendered.lines
        let builder = Builder(options: options, width: width, focus: nil)
        let footerLines = footer.map { builder.encodeLine($0.text, role: $0.role) }
        // Short screens are padded with the theme's blank rows, so the key help stays at the
        // bottom and no row is left in the terminal's own colours.
        let padding = Array(repeating: builder.encodeLine("", role: .text), count: max(0, height - screenLines.count - footerLines.count))
        let all = Array((screenLines + padding + footerLines).prefix(height))
        var cursor = rendered.cursor
        if commandLine != nil, let last = bottomLines.last {
            // On the `▏` drawn after the typed text.
            cursor = TerminalPosition(line: all.count - 1, column: max(0, DisplayWidth.of(last.text) - 1))
        }
        return (all, cursor)
    }
}

extension Builder {
    /// One line of text in a role, encoded like the screen's lines.
    func encodeLine(_ text: String, role: ThemeRole) -> String {
        encodeRow(Row(spans: [Span(text: text, role: role)]))
    }
}
