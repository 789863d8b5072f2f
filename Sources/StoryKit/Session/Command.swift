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
    /// `page 12`, `page xii`: the print page labelled so (a story without print pages: its own
    /// page of that number); nil opens the reader's prompt that asks for it (the `g` key).
    case goToPrintPage(String?)
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
    /// Saves the profile form from any field (Control S; `save` in a script).
    case save
    /// Tonight's bedtime timer: `story`, `chapter`, a number of minutes or `off`; empty says it.
    case bedtime(String)
    /// A bookmark at the word being heard (`b` while reading; `bookmark` in a script).
    case bookmark
    /// The last bookmark's note (`bookmark note TEXT`); empty: the note's line opens (`n`).
    case bookmarkNote(String)
    /// The bookmarks screen: of the story being read or shown (`B`), or of every story (`bookmarks all`).
    case bookmarks(all: Bool)
    /// The `r` key while reading: the child reads the story to the coach, or stops.
    case coach

    /// Every command word, for help, completion and suggestions.
    public static let names: [String] = [
        "next", "prev", "activate", "back", "home", "heading", "where", "read", "pause", "resume", "stop",
        "faster", "slower", "set", "profile", "help", "quit", "settings", "learn", "wait", "type",
        "increase", "decrease", "sentence", "paragraph", "page", "beginning", "end", "step", "jump",
        "actions", "action", "word", "explain", "save", "bedtime", "bookmark", "bookmarks", "coach",
    ]

    /// What each command does, for help and learn mode (marked for the catalogs, translated where said).
    public static let summaries: [String: String] = [
        "next": N_("moves to the next item"), "prev": N_("moves to the previous item"),
        "activate": N_("presses the focused item"), "back": N_("goes back to the previous screen"),
        "home": N_("goes to the library"), "heading": N_("moves to the next heading"),
        "where": N_("says where you are; while reading, the page and sentence"),
        "read": N_("reads a story: read followed by its name; a story you started goes on from your place, and read NAME from start starts again"),
        "pause": N_("pauses the story"), "resume": N_("goes on reading"), "stop": N_("stops reading"),
        "faster": N_("reads faster"), "slower": N_("reads slower"),
        "set": N_("changes a setting: set, its name, and a value, like set rate 160"),
        "profile": N_("changes the profile: profile followed by a name"), "help": N_("opens help"),
        "quit": N_("leaves Magical Stories"), "settings": N_("opens the settings"),
        "learn": N_("starts learn mode"), "wait": N_("lets the story go on: wait, or wait and a number of sentences"),
        "type": N_("types text into the focused field"), "increase": N_("turns the focused setting up"),
        "decrease": N_("turns the focused setting down"), "sentence": N_("sentence next or sentence prev moves in the story"),
        "paragraph": N_("paragraph next or paragraph prev moves in the story"),
        "page": N_("page next or page prev moves in the story; page and a number goes to that print page, like page 12 or page xii"),
        "beginning": N_("goes to the story's first sentence"),
        "end": N_("goes to the story's last sentence"), "step": N_("turns step mode on or off"),
        "jump": N_("jumps to the next item starting with a letter"),
        "actions": N_("lists what you can do with the focused item (the a key)"),
        "action": N_("does one of the focused item's actions: action and its name, like action save"),
        "word": N_("word next or word prev moves one word while paused, and says it; word N goes on reading from the story's Nth word"),
        "explain": N_("says the word being read slowly, spells it, shows it big with its syllables, then reads on (the e key)"),
        "save": N_("saves the profile form, from any field (Control S)"),
        "bookmark": N_("saves a bookmark at the word being read; bookmark note and a text adds a note to it (the b key, then n)"),
        "bookmarks": N_("lists your bookmarks of this story, or bookmarks all for every story (the B key while reading)"),
        "coach": N_("I read it myself: you read the story aloud, I listen and help with a word after a silence; coach again stops (the r key)"),
        "bedtime": N_("sets tonight's bedtime timer: bedtime story, bedtime chapter, bedtime 20 (minutes, then the end of the sentence) or bedtime off"),
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
        case .nextPage, .previousPage, .goToPrintPage: "page"
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
        case .save: "save"
        case .bedtime: "bedtime"
        case .bookmark, .bookmarkNote: "bookmark"
        case .bookmarks: "bookmarks"
        case .coach: "coach"
        }
    }
}

/// Why a typed line is not a command, worded for the person who typed it.
public struct CommandError: Error, Sendable, Hashable, CustomStringConvertible {
    /// The English message (a catalog key) and its placeholders' values.
    public var message: String
    public var values: [String: String]

    init(_ message: String, _ values: [String: String] = [:]) {
        self.message = message
        self.values = values
    }

    public var description: String { MessageCatalog.fill(message, values) }

    /// The message in the interface's language: a child typing in Spanish hears Spanish.
    public func localized(_ messages: MessageCatalog) -> String { messages.tr(message, values) }
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
        /// `rest`, or the command's own message saying what it needs.
        func needs(_ message: String) throws(CommandError) -> String {
            if rest.isEmpty { throw CommandError(message, ["example": example(word)]) }
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
        case "page":
            let lowered = rest.lowercased()
            if lowered.hasPrefix("prev") { return .previousPage }
            return lowered.isEmpty || lowered.hasPrefix("next") ? .nextPage : .goToPrintPage(rest)
        case "beginning": return .beginning
        case "end": return .end
        case "step": return .stepMode
        case "word":
            if let number = Int(rest) {
                guard number > 0 else { throw CommandError(N_("word takes next, prev or a word's number, like word 12")) }
                return .goToWord(number - 1)
            }
            return rest.lowercased().hasPrefix("prev") ? .previousWord : .nextWord
        case "explain", "spell": return .explainWord
        case "set":
            let needsValue = N_("set needs a setting and a value: for example, {example}")
            let pieces = try needs(needsValue).split(separator: " ", maxSplits: 1).map(String.init)
            guard pieces.count == 2 else { throw CommandError(needsValue, ["example": example("set")]) }
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
            guard let count = Int(rest), count > 0 else { throw CommandError(N_("wait takes a number of sentences, like wait 2")) }
            return .wait(count)
        case "actions": return .actions
        case "save": return .save
        case "bedtime": return .bedtime(rest)
        case "bookmark":
            let folded = rest.lowercased()
            if folded == "note" { throw CommandError(N_("bookmark note needs the note's text: for example, bookmark note the fox is funny")) }
            if folded.hasPrefix("note ") { return .bookmarkNote(String(rest.dropFirst(5)).trimmingCharacters(in: .whitespaces)) }
            guard rest.isEmpty else { throw CommandError(N_("bookmark takes nothing, or note and a text: for example, bookmark note the fox is funny")) }
            return .bookmark
        case "bookmarks": return .bookmarks(all: rest.lowercased() == "all")
        case "coach": return .coach
        case "action": return .action(try needs(N_("action needs an action's name: for example, {example}")))
        case "jump":
            guard let letter = rest.first else { throw CommandError(N_("jump needs a letter: for example, jump L")) }
            return .jump(letter)
        default:
            throw unknownMessage(parts[0])
        }
    }

    /// "I don't know 'nxt'. Did you mean next?"
    static func unknownMessage(_ word: String) -> CommandError {
        let shown = Sanitizer.sanitizeLine(String(word.prefix(30)))
        let folded = word.lowercased()
        let scored = Command.names.map { ($0, EditDistance.between(folded, $0) - ($0.hasPrefix(folded) ? 2 : 0)) }
        if let best = scored.min(by: { ($0.1, $0.0) < ($1.1, $1.0) }), best.1 <= max(2, folded.count / 2) {
            return CommandError(N_("I don't know '{word}'. Did you mean {command}? Type help for the list."), ["word": shown, "command": best.0])
        }
        return CommandError(N_("I don't know '{word}'. Type help for the list of commands."), ["word": shown])
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
