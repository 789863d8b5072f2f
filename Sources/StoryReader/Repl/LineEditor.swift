import StoryKit

/// The `:` command line on a terminal: editing, history (Up/Down) and completion (Tab).
struct LineEditor {
    enum Outcome: Equatable {
        case editing
        case submitted(String)
        case cancelled
    }

    private(set) var text = ""
    private(set) var cursor = 0
    private(set) var history: [String] = []
    private var historyIndex: Int?
    /// What Tab last offered (spoken and shown).
    private(set) var message: String?
    /// What to say for the last key, as a screen reader's key echo does ("b", "space", "b
    /// deleted"); nil when there is nothing to say.
    private(set) var echo: String?
    /// Story titles and ids, completed after `read `.
    var storyNames: [String] = []
    /// The interface's language, for what the command line says.
    var messages: MessageCatalog = .english

    mutating func begin() {
        text = ""
        cursor = 0
        historyIndex = nil
        message = nil
        echo = nil
    }

    mutating func handle(_ key: Key) -> Outcome {
        message = nil
        echo = nil
        switch key {
        case .enter:
            let line = text
            if !line.trimmingCharacters(in: .whitespaces).isEmpty, history.last != line { history.append(line) }
            if history.count > 100 { history.removeFirst() }
            return .submitted(line)
        case .escape, .control("c"), .control("g"):
            return .cancelled
        case .backspace:
            if cursor > 0 {
                let removed = text.remove(at: text.index(text.startIndex, offsetBy: cursor - 1))
                cursor -= 1
                echo = messages.tr("{letter} deleted", ["letter": messages.tr(Self.spoken(removed))])
            } else if text.isEmpty {
                return .cancelled
            }
        case .delete:
            if cursor < text.count { text.remove(at: text.index(text.startIndex, offsetBy: cursor)) }
        case .left: cursor = max(0, cursor - 1)
        case .right: cursor = min(text.count, cursor + 1)
        case .home, .control("a"): cursor = 0
        case .end, .control("e"): cursor = text.count
        case .control("u"): text = ""; cursor = 0
        case .up:
            guard !history.isEmpty else { break }
            let index = max(0, (historyIndex ?? history.count) - 1)
            historyIndex = index
            text = history[index]
            cursor = text.count
            echo = text
        case .down:
            guard let index = historyIndex else { break }
            if index + 1 < history.count {
                historyIndex = index + 1
                text = history[index + 1]
            } else {
                historyIndex = nil
                text = ""
            }
            cursor = text.count
            echo = text.isEmpty ? messages.tr("Empty.") : text
        case .tab:
            let options = completions()
            if options.count == 1 {
                text = options[0].hasSuffix(" ") ? options[0] : options[0] + " "
                cursor = text.count
                message = text.trimmingCharacters(in: .whitespaces)
            } else if options.count > 1 {
                let common = options.dropFirst().reduce(options[0]) { String($0.commonPrefix(with: $1)) }
                if common.count > text.count { text = common; cursor = text.count }
                message = messages.tr("{count} matches: {choices}", [
                    "count": String(options.count), "choices": options.prefix(8).joined(separator: ", ") + (options.count > 8 ? "…" : "")])
            } else {
                message = messages.tr("No completions.")
            }
        case .space:
            insert(" ")
            echo = messages.tr("space")
        case .character(let character):
            insert(character)
            echo = messages.tr(Self.spoken(character))
        default:
            break
        }
        return .editing
    }

    /// Commands, settings after `set `, and story titles and ids after `read `.
    func completions() -> [String] {
        let typed = text.hasPrefix(":") ? String(text.dropFirst()) : text
        let lowered = typed.lowercased()
        guard lowered.hasPrefix("read ") else { return CommandParser.completions(of: typed) }
        let partial = String(lowered.dropFirst("read ".count))
        var seen = Set<String>()
        return storyNames.filter { $0.lowercased().hasPrefix(partial) && seen.insert($0.lowercased()).inserted }.map { "read " + $0 }
    }

    /// A typed character as a screen reader echoes it: letters as they are, signs by name.
    static func spoken(_ character: Character) -> String {
        switch character {
        case " ": N_("space")
        case ".": N_("dot")
        case "-": N_("dash")
        case ":": N_("colon")
        default: String(character)
        }
    }

    private mutating func insert(_ character: Character) {
        text.insert(character, at: text.index(text.startIndex, offsetBy: cursor))
        cursor += 1
    }
}
