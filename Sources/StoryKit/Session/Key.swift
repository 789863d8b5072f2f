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
        case .up: "Up arrow"
        case .down: "Down arrow"
        case .left: "Left arrow"
        case .right: "Right arrow"
        case .home: "Home"
        case .end: "End"
        case .pageUp: "Page Up"
        case .pageDown: "Page Down"
        case .tab: "Tab"
        case .shiftTab: "Shift Tab"
        case .enter: "Enter"
        case .space: "Space"
        case .escape: "Escape"
        case .backspace: "Backspace"
        case .delete: "Delete"
        case .character(let character):
            character.isLetter ? "letter \(character.uppercased())" : (Key.symbolNames[character] ?? "\(character)")
        case .control(let character): "Control \(character.uppercased())"
        case .unknown: "an unknown key"
        }
    }

    static let symbolNames: [Character: String] = [
        "?": "question mark", ":": "colon", "[": "left bracket", "]": "right bracket", "{": "left brace",
        "}": "right brace", "-": "minus", "+": "plus", "=": "equals", ".": "full stop", ",": "comma",
        "/": "slash", "<": "less than", ">": "greater than",
    ]
}
