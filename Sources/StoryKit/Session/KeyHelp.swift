/// What each key does: the key maps (the screens' and the reader's), and their words for help and
/// learn mode, so that help, learn mode and the keys can never disagree.
public enum KeyHelp {
    /// The command a key stands for on this screen; nil when the key is not bound.
    public static func command(for key: Key, focused: AccessibilityElement?, route: Route, paused: Bool = false) -> Command? {
        if route == .reader { return readingCommand(for: key, focused: focused, paused: paused) }
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
        case .control("s"): return .save
        case .character("h"): return .nextHeading
        case .character("H"): return .previousHeading
        case .character("?"): return .help
        case .character("]"): return .nextSentence
        case .character("["): return .previousSentence
        case .character("}"): return .nextParagraph
        case .character("{"): return .previousParagraph
        case .character("+"), .character("="): return adjustable ? .increase : .faster
        case .character("-"): return adjustable ? .decrease : .slower
        // Shift-F10, as on the desktops; `a` where the focused item has actions.
        case .unknown("CSI 21;2~"): return .actions
        case .character("a") where !(focused?.customActions.isEmpty ?? true): return .actions
        // The bookmarks screen: Delete removes the focused bookmark, as its action does.
        case .delete where focused?.id.hasPrefix("bookmark-") == true: return .action("delete")
        default: return nil
        }
    }

    /// The reader's keys: reading keys first; Tab and Shift-Tab still reach the screen's buttons,
    /// and Enter presses the one focused (the Pause button, unless Tab moved on).
    /// While paused, Left and Right move word by word (word mode); `[` and `]` still move by sentence.
    static func readingCommand(for key: Key, focused: AccessibilityElement?, paused: Bool = false) -> Command? {
        switch key {
        case .space: return .togglePause
        case .enter: return focused == nil || focused?.id == "play" || !(focused?.traits.contains(.button) ?? false) ? .togglePause : .activate
        case .right: return paused ? .nextWord : .nextSentence
        case .left: return paused ? .previousWord : .previousSentence
        case .character("]"): return .nextSentence
        case .character("["): return .previousSentence
        case .character("e"), .character("E"): return .explainWord
        case .character("b"): return .bookmark
        case .character("n"): return .bookmarkNote("")
        case .character("B"): return .bookmarks(all: false)
        case .character("r"), .character("R"): return .coach
        case .down, .character("}"): return .nextParagraph
        case .up, .character("{"): return .previousParagraph
        case .pageDown: return .nextPage
        case .pageUp: return .previousPage
        case .home: return .beginning
        case .end: return .end
        case .character("g"), .character("G"): return .goToPrintPage(nil)
        case .character("+"), .character("="): return .faster
        case .character("-"): return .slower
        case .character("s"), .character("S"): return .stepMode
        case .character("w"), .character("W"), .control("w"): return .whereAmI
        case .character("q"), .character("Q"), .escape: return .stop
        case .tab: return .next
        case .shiftTab: return .previous
        case .character("h"): return .nextHeading
        case .character("H"): return .previousHeading
        case .character("?"): return .help
        case .control("q"), .control("c"), .control("d"): return .quit
        default: return nil
        }
    }

    /// What a command does, in a few words (learn mode, help).
    static func does(_ command: Command, route: Route) -> String? {
        switch command {
        case .next: return route == .reader ? N_("moves to the next button on the reading screen") : N_("next item")
        case .previous: return route == .reader ? N_("moves to the previous button on the reading screen") : N_("previous item")
        case .activate: return N_("presses the focused item")
        case .back: return N_("goes back")
        case .home: return N_("goes to the library")
        case .nextHeading: return N_("next heading")
        case .previousHeading: return N_("previous heading")
        case .whereAmI: return route == .reader ? N_("says the story, page and sentence you are at") : N_("says where you are")
        case .quit: return N_("leaves Magical Stories")
        case .help: return N_("opens help")
        case .togglePause: return N_("pauses the story, or goes on from the word where it paused")
        case .nextSentence: return route == .reader ? N_("next sentence") : N_("next sentence while reading")
        case .previousSentence: return route == .reader ? N_("previous sentence") : N_("previous sentence while reading")
        case .nextParagraph: return route == .reader ? N_("next paragraph") : N_("next paragraph while reading")
        case .previousParagraph: return route == .reader ? N_("previous paragraph") : N_("previous paragraph while reading")
        case .nextPage: return N_("next page")
        case .previousPage: return N_("previous page")
        case .goToPrintPage: return N_("asks for a print page's number: type it and press Enter to read from that page; Escape cancels")
        case .beginning: return N_("goes to the beginning of the story")
        case .end: return N_("goes to the last sentence of the story")
        case .stepMode: return N_("step mode on or off: each sentence waits for Space")
        case .nextWord: return N_("next word, said aloud")
        case .previousWord: return N_("previous word, said aloud")
        case .goToWord: return N_("goes on reading from that word; paused, says it slowly and spells it first")
        case .explainWord: return N_("says the word slowly, spells it, shows it big with its syllables, then goes on reading from it")
        case .stop: return N_("stops reading, keeps your place, and goes back")
        case .faster: return route == .reader ? N_("reads faster") : N_("reads faster; on a setting, turns it up")
        case .slower: return route == .reader ? N_("reads slower") : N_("reads slower; on a setting, turns it down")
        case .increase: return N_("turns the focused setting up")
        case .decrease: return N_("turns the focused setting down")
        case .actions: return N_("lists what you can do with the focused item, such as Read or Save to favourites")
        case .save: return N_("saves the profile form, from any field")
        case .action("delete"): return N_("deletes the focused bookmark, and says so")
        case .bookmark: return N_("saves a bookmark at the word being read; reading goes on")
        case .bookmarkNote: return N_("types a note for the bookmark just made; Escape keeps it without a note")
        case .bookmarks: return N_("opens your bookmarks of this story; Enter reads from one, Delete removes it")
        case .coach:
            return N_("I read it myself: you read aloud, I listen, and after a silence I say the next word; press r again to stop")
        default: return nil
        }
    }

    /// "Down arrow: next item." — learn mode's answer for a key, on the screen where it was pressed.
    /// - Parameter paused: the reader's keys while paused (learn mode over a story, which Help paused).
    public static func describe(
        _ key: Key, route: Route, focused: AccessibilityElement? = nil, paused: Bool = false,
        messages: MessageCatalog = .english
    ) -> String {
        let what: String
        if let command = command(for: key, focused: focused, route: route, paused: paused), let words = does(command, route: route) {
            what = messages.tr(words)
        } else if key == .character(":") {
            what = messages.tr("opens the command line")
        } else if route != .reader, case .character(let character) = key, character.isLetter || character.isNumber {
            what = messages.tr(
                "jumps to the next item starting with {letter}; press it again for the next, or type more letters within a second and a half to find a name",
                ["letter": String(character).uppercased()])
        } else {
            what = route == .reader ? messages.tr("does nothing while reading") : messages.tr("does nothing")
        }
        return messages.tr("{key}: {does}.", ["key": key.spokenName(messages), "does": what])
    }

    /// The reader's keys, for help, `read --help`, the README and learn mode (one list).
    public static let readingKeys: [(keys: String, does: String)] = [
        (N_("Space or Enter"), N_("pause, and go on from the word where it paused")),
        (N_("Left and Right arrows"), N_("previous and next sentence; while paused, previous and next word, said aloud")),
        (N_("Up and Down arrows"), N_("previous and next paragraph")),
        (N_("Page Up and Page Down"), N_("previous and next page")),
        (N_("Home and End"), N_("beginning of the story, and its last sentence")),
        (N_("g, a number, Enter"), N_("go to that print page of the book (or the story's own page); Escape cancels")),
        (N_("- and +"), N_("slower and faster, from the next sentence")),
        (N_("e"), N_("explain the word: said slowly, spelled, shown big with its syllables, then reading goes on from it")),
        (N_("s"), N_("step mode: each sentence waits for Space")),
        (N_("b"), N_("bookmark the word being read (a soft tone plays when reading passes it); then n types a note")),
        (N_("Shift B"), N_("your bookmarks of this story: Enter reads from one, Delete removes it")),
        (
            N_("r"),
            N_(
                "I read it myself: you read aloud and I listen, the word you read highlighted; after a silence I say the next word; r or Escape stops. Your voice is never recorded or kept"
            )
        ),
        (N_("w or Control W"), N_("where am I: the story, page and sentence")),
        (N_("q or Escape"), N_("stop, keep your place, and go back")),
        (N_("Tab and Shift Tab"), N_("the reading screen's buttons; Enter presses the one focused")),
        (N_("[ ] and { }"), N_("also previous and next sentence, and paragraph")),
    ]
}
