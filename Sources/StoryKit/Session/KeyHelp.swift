/// What each key does: the key map, and its words for learn mode.
public enum KeyHelp {
    /// The command a key stands for on this screen; nil when the key is not bound.
    public static func command(for key: Key, focused: AccessibilityElement?, route: Route) -> Command? {
        let adjustable = focused?.traits.contains(.adjustable) ?? false
        switch key {
        case .tab, .down: return .next
        case .shiftTab, .up: return .previous
        case .right: return adjustable ? .increase : .next
        case .left: return adjustable ? .decrease : .previous
        case .enter, .space: return .activate
        case .escape: return .back
        case .home: return .home
        case .pageDown: return .nextHeading
        case .pageUp: return .previousHeading
        case .control("w"): return .whereAmI
        case .control("q"), .control("c"), .control("d"): return .quit
        case .character("h"): return .nextHeading
        case .character("H"): return .previousHeading
        case .character("?"): return .help
        case .character("]"): return .nextSentence
        case .character("["): return .previousSentence
        case .character("}"): return .nextParagraph
        case .character("{"): return .previousParagraph
        case .character("+"), .character("="): return adjustable ? .increase : .faster
        case .character("-"): return adjustable ? .decrease : .slower
        default: return nil
        }
    }

    /// "Down arrow: next item." — learn mode's answer for a key.
    public static func describe(_ key: Key, route: Route) -> String {
        let does: String
        switch command(for: key, focused: nil, route: route) {
        case .next?: does = "next item"
        case .previous?: does = "previous item"
        case .activate?: does = "presses the focused item"
        case .back?: does = "goes back"
        case .home?: does = "goes to the library"
        case .nextHeading?: does = "next heading"
        case .previousHeading?: does = "previous heading"
        case .whereAmI?: does = "says where you are"
        case .quit?: does = "leaves Magical Stories"
        case .help?: does = "opens help"
        case .nextSentence?: does = "next sentence while reading"
        case .previousSentence?: does = "previous sentence while reading"
        case .nextParagraph?: does = "next paragraph while reading"
        case .previousParagraph?: does = "previous paragraph while reading"
        case .faster?: does = "reads faster; on a setting, turns it up"
        case .slower?: does = "reads slower; on a setting, turns it down"
        default:
            if case .character(let character) = key, character.isLetter || character.isNumber {
                does = "jumps to the next item starting with \(String(character).uppercased())"
            } else if key == .character(":") {
                does = "opens the command line"
            } else {
                does = "does nothing"
            }
        }
        return "\(key.description): \(does)."
    }
}
