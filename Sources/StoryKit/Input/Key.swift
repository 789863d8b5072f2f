/// A key as the session sees it, decoded from the terminal by the shell.
public enum Key: Sendable, Hashable, CustomStringConvertible {
    case up, down, left, right, home, end, pageUp, pageDown
    case tab, shiftTab, enter, space, escape, backspace, delete
    /// A printable character (letters, digits, punctuation).
    case character(Character)
    /// Ctrl plus a letter (`ctrl("c")`).
    case control(Character)
    /// A sequence the decoder did not know (kept so learn mode can say so).
    case unknown(String)

    /// The key's name, spoken in learn mode ("Down arrow", "Enter", "letter A").
    public var description: String {
        switch self {
        case .up: N_("Up arrow")
        case .down: N_("Down arrow")
        case .left: N_("Left arrow")
        case .right: N_("Right arrow")
        case .home: N_("Home")
        case .end: N_("End")
        case .pageUp: N_("Page Up")
        case .pageDown: N_("Page Down")
        case .tab: N_("Tab")
        case .shiftTab: N_("Shift Tab")
        case .enter: N_("Enter")
        case .space: N_("Space")
        case .escape: N_("Escape")
        case .backspace: N_("Backspace")
        case .delete: N_("Delete")
        case .character(let character):
            character.isLetter ? "letter \(character.uppercased())" : (Key.symbolNames[character] ?? "\(character)")
        case .control(let character): "Control \(character.uppercased())"
        case .unknown: N_("an unknown key")
        }
    }

    /// The key's name in the interface's language.
    public func spokenName(_ messages: MessageCatalog) -> String {
        switch self {
        case .character(let character):
            character.isLetter
                ? messages.tr("letter {letter}", ["letter": character.uppercased()])
                : Key.symbolNames[character].map { messages.tr($0) } ?? "\(character)"
        case .control(let character): messages.tr("Control {key}", ["key": character.uppercased()])
        default: messages.tr(description)
        }
    }

    static let symbolNames: [Character: String] = [
        "?": N_("question mark"), ":": N_("colon"), "[": N_("left bracket"), "]": N_("right bracket"), "{": N_("left brace"),
        "}": N_("right brace"), "-": N_("minus"), "+": N_("plus"), "=": N_("equals"), ".": N_("full stop"), ",": N_("comma"),
        "/": N_("slash"), "<": N_("less than"), ">": N_("greater than"),
    ]

    /// A pair of symbol keys written together ("[ ]") and its one name.
    static let symbolPairNames: [String: String] = ["[ ]": N_("square brackets"), "{ }": N_("braces")]

    /// A list of keys as it is said, from the same names as a key alone: eSpeak NG says "- and +"
    /// as "and plus" and "[ ] and { }" as "and", so each symbol is named ("minus and plus",
    /// "square brackets and braces"), and a label that names its symbols already ("? (question
    /// mark)") is said by its names alone. Letters and words stay as they are.
    public static func spokenKeys(_ shown: String, _ messages: MessageCatalog) -> String {
        var tokens = shown.split(separator: " ").map(String.init)
        func isSymbol(_ token: String) -> Bool { token.count == 1 && token.first.map { symbolNames[$0] != nil } == true }
        if let open = tokens.firstIndex(where: { $0.hasPrefix("(") }), shown.hasSuffix(")"), tokens[..<open].contains(where: isSymbol) {
            return String(tokens[open...].joined(separator: " ").dropFirst().dropLast())
        }
        var said: [String] = []
        while !tokens.isEmpty {
            let token = tokens.removeFirst()
            if let next = tokens.first, let pair = symbolPairNames[token + " " + next] {
                tokens.removeFirst()
                said.append(messages.tr(pair))
            } else if isSymbol(token), let name = token.first.flatMap({ symbolNames[$0] }) {
                said.append(messages.tr(name))
            } else {
                said.append(token)
            }
        }
        return said.joined(separator: " ")
    }
}
