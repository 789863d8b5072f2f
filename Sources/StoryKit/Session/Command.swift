import Foundation

/// A typed command (one line without a terminal, or after `:` on one).
public enum Command: Sendable, Hashable {
    case next, previous, activate, back, home
    case nextHeading, previousHeading, whereAmI
    case read(String)
    case pause, resume, stop, faster, slower
    case nextSentence, previousSentence, nextParagraph, previousParagraph, stepMode
    /// Word mode, while paused: the next or previous word, said aloud.
    case nextWord, previousWord
    /// Reading goes on from this word (an index into `Story.words`): a braille display's routing
    /// key, or `word N` (N counted from 1). While paused the word is said and spelled first.
    case goToWord(Int)
    /// The word being read: said slowly, spelled, shown big with its syllables; then reading goes on.
    case explainWord
    /// Space and Enter while reading: pause, or go on from the word where it paused.
    case togglePause
    case nextPage, previousPage
    /// Home and End while reading: the story's first sentence, its last sentence.
    case beginning, end
    case set(name: String, value: String)
    case increase, decrease
    /// Types text into the focused field (the profile form).
    case type(String)
    case profile(String)
    case settings, help, learn, quit
    /// Lets time pass: the story goes on (`nil`: to its end; a number: that many sentences).
    /// Handled by the shell; scripts use it to hear a story without a clock.
    case wait(Int?)
    /// Jumps to the next element starting with this letter.
    case jump(Character)
    /// Lists the focused item's actions ("Read", "Save to favourites").
    case actions
    /// Does one of the focused item's actions, named (a beginning of its name is enough).
    case action(String)

    /// Every command word, for help, completion and suggestions.
    public static let names: [String] = [
        "next", "prev", "activate", "back", "home", "heading", "where", "read", "pause", "resume", "stop",
        "faster", "slower", "set", "profile", "help", "quit", "settings", "learn", "wait", "type",
        "increase", "decrease", "sentence", "paragraph", "page", "beginning", "end", "step", "jump",
        "actions", "action", "word", "explain",
    ]

    /// What each command does, for help and learn mode.
    public static let summaries: [String: String] = [
        "next": "moves to the next item", "prev": "moves to the previous item",
        "activate": "presses the focused item", "back": "goes back to the previous screen",
        "home": "goes to the library", "heading": "moves to the next heading",
        "where": "says where you are; while reading, the page and sentence",
        "read": "reads a story: read followed by its name; a story you started goes on from your place, and read NAME from start starts again",
        "pause": "pauses the story", "resume": "goes on reading", "stop": "stops reading",
        "faster": "reads faster", "slower": "reads slower",
        "set": "changes a setting: set, its name, and a value, like set rate 160",
        "profile": "changes the profile: profile followed by a name", "help": "opens help",
        "quit": "leaves Magical Stories", "settings": "opens the settings",
        "learn": "starts learn mode", "wait": "lets the story go on: wait, or wait and a number of sentences",
        "type": "types text into the focused field", "increase": "turns the focused setting up",
        "decrease": "turns the focused setting down", "sentence": "sentence next or sentence prev moves in the story",
        "paragraph": "paragraph next or paragraph prev moves in the story",
        "page": "page next or page prev moves in the story", "beginning": "goes to the story's first sentence",
        "end": "goes to the story's last sentence", "step": "turns step mode on or off",
        "jump": "jumps to the next item starting with a letter",
        "actions": "lists what you can do with the focused item (the a key)",
        "action": "does one of the focused item's actions: action and its name, like action save",
        "word": "word next or word prev moves one word while paused, and says it; word N goes on reading from the story's Nth word",
        "explain": "says the word being read slowly, spells it, shows it big with its syllables, then reads on (the e key)",
    ]

    /// The word that names the command (for allowlists, such as the kiosk's).
    public var name: String {
        switch self {
        case .next: "next"
        case .previous: "prev"
        case .activate: "activate"
        case .back: "back"
        case .home: "home"
        case .nextHeading, .previousHeading: "heading"
        case .whereAmI: "where"
        case .read: "read"
        case .pause, .togglePause: "pause"
        case .nextPage, .previousPage: "page"
        case .beginning: "beginning"
        case .end: "end"
        case .resume: "resume"
        case .stop: "stop"
        case .faster: "faster"
        case .slower: "slower"
        case .nextSentence, .previousSentence: "sentence"
        case .nextParagraph, .previousParagraph: "paragraph"
        case .stepMode: "step"
        case .nextWord, .previousWord, .goToWord: "word"
        case .explainWord: "explain"
        case .set: "set"
        case .increase: "increase"
        case .decrease: "decrease"
        case .type: "type"
        case .profile: "profile"
        case .settings: "settings"
        case .help: "help"
        case .learn: "learn"
        case .quit: "quit"
        case .wait: "wait"
        case .jump: "jump"
        case .actions: "actions"
        case .action: "action"
        }
    }
}

/// Why a typed line is not a command, worded for the person who typed it.
public struct CommandError: Error, Sendable, Hashable, CustomStringConvertible {
    public var description: String
}

/// Parses typed lines: `next`, `:next`, `read lighthouse`, `set rate 160`.
public enum CommandParser {
    static let aliases: [String: String] = [
        "n": "next", "down": "next", "p": "prev", "previous": "prev", "up": "prev", "enter": "activate",
        "a": "activate", "select": "activate", "open": "activate", "b": "back", "escape": "back", "esc": "back",
        "h": "heading", "w": "where", "whereami": "where", "?": "help", "q": "quit", "exit": "quit",
        "play": "resume", "continue": "resume", "t": "type", "start": "beginning", "top": "beginning",
    ]

    public static func parse(_ line: String) throws(CommandError) -> Command? {
        var text = line.trimmingCharacters(in: .whitespaces)
        if text.hasPrefix(":") { text.removeFirst() }
        text = text.trimmingCharacters(in: .whitespaces)
        guard !text.isEmpty, !text.hasPrefix("#") else { return nil }
        let parts = text.split(separator: " ", maxSplits: 1).map(String.init)
        let word = aliases[parts[0].lowercased()] ?? parts[0].lowercased()
        let rest = parts.count > 1 ? parts[1].trimmingCharacters(in: .whitespaces) : ""
        func needs(_ what: String) throws(CommandError) -> String {
            if rest.isEmpty { throw CommandError(description: "\(word) needs \(what): for example, \(example(word))") }
            return rest
        }
        switch word {
        case "next": return .next
        case "prev": return .previous
        case "activate": return .activate
        case "back": return .back
        case "home": return .home
        case "heading": return rest.lowercased().hasPrefix("prev") ? .previousHeading : .nextHeading
        case "where": return .whereAmI
        case "read": return .read(rest)
        case "pause": return .pause
        case "resume": return .resume
        case "stop": return .stop
        case "faster": return .faster
        case "slower": return .slower
        case "sentence": return rest.lowercased().hasPrefix("prev") ? .previousSentence : .nextSentence
        case "paragraph": return rest.lowercased().hasPrefix("prev") ? .previousParagraph : .nextParagraph
        case "page": return rest.lowercased().hasPrefix("prev") ? .previousPage : .nextPage
        case "beginning": return .beginning
        case "end": return .end
        case "step": return .stepMode
        case "word":
            if let number = Int(rest) {
                guard number > 0 else { throw CommandError(description: "word takes next, prev or a word's number, like word 12") }
                return .goToWord(number - 1)
            }
            return rest.lowercased().hasPrefix("prev") ? .previousWord : .nextWord
        case "explain", "spell": return .explainWord
        case "set":
            let pieces = try needs("a setting and a value").split(separator: " ", maxSplits: 1).map(String.init)
            guard pieces.count == 2 else { throw CommandError(description: "set needs a setting and a value: for example, \(example("set"))") }
            return .set(name: pieces[0].lowercased(), value: pieces[1].trimmingCharacters(in: .whitespaces))
        case "increase": return .increase
        case "decrease": return .decrease
        case "type": return .type(rest)
        case "profile": return .profile(rest)
        case "settings": return .settings
        case "help": return .help
        case "learn": return .learn
        case "quit": return .quit
        case "wait":
            if rest.isEmpty { return .wait(nil) }
            guard let count = Int(rest), count > 0 else { throw CommandError(description: "wait takes a number of sentences, like wait 2") }
            return .wait(count)
        case "actions": return .actions
        case "action": return .action(try needs("an action's name"))
        case "jump":
            guard let letter = rest.first else { throw CommandError(description: "jump needs a letter: for example, jump L") }
            return .jump(letter)
        default:
            throw CommandError(description: unknownMessage(parts[0]))
        }
    }

    /// "I don't know 'nxt'. Did you mean next?"
    static func unknownMessage(_ word: String) -> String {
        let shown = Sanitizer.sanitizeLine(String(word.prefix(30)))
        let folded = word.lowercased()
        let scored = Command.names.map { ($0, EditDistance.between(folded, $0) - ($0.hasPrefix(folded) ? 2 : 0)) }
        if let best = scored.min(by: { ($0.1, $0.0) < ($1.1, $1.0) }), best.1 <= max(2, folded.count / 2) {
            return "I don't know '\(shown)'. Did you mean \(best.0)? Type help for the list."
        }
        return "I don't know '\(shown)'. Type help for the list of commands."
    }

    static func example(_ word: String) -> String {
        switch word {
        case "read": "read lighthouse"
        case "set": "set rate 160"
        case "profile": "profile Maya"
        case "action": "action save"
        default: word
        }
    }

    /// Completes a partial command word: the commands that start with it.
    public static func completions(of prefix: String) -> [String] {
        var text = prefix
        if text.hasPrefix(":") { text.removeFirst() }
        if text.contains(" ") {
            let parts = text.split(separator: " ", maxSplits: 1).map(String.init)
            if parts[0] == "set" {
                let partial = parts.count > 1 ? parts[1] : ""
                return SettingName.allCases.map(\.rawValue).filter { $0.hasPrefix(partial) }.map { "set \($0) " }
            }
            return []
        }
        return Command.names.filter { $0.hasPrefix(text.lowercased()) }
    }
}
