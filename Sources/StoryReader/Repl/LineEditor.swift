import Foundation
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
    /// The stories' titles and ids: after `read `, a story is offered by its title when the typed
    /// name matches its title or id by the lookup's rule (``NameMatch``).
    var stories: [(title: String, id: String)] = []
    /// Tab pressed again on several completions: the next one is put on the line (wrapping round),
    /// Shift Tab the one before.
    private var cycle: (options: [String], index: Int, typed: String)?
    /// The interface's language, for what the command line says.
    var messages: MessageCatalog = .english

    /// Opens the line empty, or with `typed` already on it, the cursor after it.
    mutating func begin(typed: String = "") {
        text = typed
        cursor = typed.count
        historyIndex = nil
        message = nil
        echo = nil
    }

    mutating func handle(_ key: Key) -> Outcome {
        message = nil
        echo = nil
        if key != .tab, key != .shiftTab { cycle = nil }
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
        case .control("u"):
            text = ""
            cursor = 0
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
        case .tab, .shiftTab:
            complete(backwards: key == .shiftTab)
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

    /// Commands, settings after `set `, and story titles after `read `.
    func completions() -> [String] {
        let typed = text.hasPrefix(":") ? String(text.dropFirst()) : text
        let lowered = typed.lowercased()
        guard lowered.hasPrefix("read ") else { return CommandParser.completions(of: typed) }
        let partial = String(typed.dropFirst("read ".count))
        var seen = Set<String>()
        return NameMatch.ranked(stories, typed: partial) { [$0.title, $0.id] }
            .filter { seen.insert(NameMatch.key($0.title)).inserted }.map { "read " + $0.title }
    }

    /// Tab: one completion is put on the line; of several, the first Tab says how many and names
    /// the first few (without the command typed), and each Tab after puts the next on the line.
    private mutating func complete(backwards: Bool) {
        if var cycle, !cycle.options.isEmpty {
            cycle.index = (cycle.index + (backwards ? cycle.options.count - 1 : 1)) % cycle.options.count
            self.cycle = cycle
            let option = cycle.options[cycle.index]
            text = option
            cursor = text.count
            message = messages.tr(
                "{name}, {item} of {count}",
                [
                    "name": shown(option, typed: cycle.typed), "item": String(cycle.index + 1), "count": String(cycle.options.count),
                ])
            return
        }
        let options = completions()
        if options.count == 1 {
            text = options[0].hasSuffix(" ") ? options[0] : options[0] + " "
            cursor = text.count
            message = text.trimmingCharacters(in: .whitespaces)
        } else if options.count > 1 {
            let names = options.prefix(5).map { shown($0, typed: text) }.joined(separator: ", ") + (options.count > 5 ? "…" : "")
            message = messages.tr("{count} matches: {choices}. Tab goes through them.", ["count": String(options.count), "choices": names])
            // The first Tab after this puts the first on the line; a Shift Tab, the last.
            cycle = (options, backwards ? 0 : options.count - 1, text)
        } else {
            message = messages.tr("No completions.")
        }
    }

    /// A completion as said: without the words typed before it ("read ").
    private func shown(_ option: String, typed line: String) -> String {
        let typed = line.hasPrefix(":") ? String(line.dropFirst()) : line
        let before = typed.lastIndex(of: " ").map { String(typed[...$0]) } ?? ""
        let trimmed = option.hasPrefix(before) && !before.isEmpty ? String(option.dropFirst(before.count)) : option
        return trimmed.trimmingCharacters(in: .whitespaces)
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
