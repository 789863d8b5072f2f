package import ArgumentParser
import Foundation
import StoryKit

/// Completions that know the library: story ids and titles, and profile names. The shell scripts
/// (`--generate-completion-script`) call the program back with the words typed so far; the
/// answer comes from the story cache, so it stays quick for a big library.
package enum ShellCompletion {
    /// Story ids, then titles, that begin with what was typed (case does not matter).
    package static let stories = CompletionKind.custom { words, _, prefix in
        let library = options(from: words).readLibrary().library
        return storyCandidates(library.entries, prefix: prefix)
    }

    /// Profile names that begin with what was typed; nothing when there is no database yet (a
    /// completion never creates one).
    package static let profiles = CompletionKind.custom { words, _, prefix in
        let directory = options(from: words).dataDirectory()
        guard FileManager.default.fileExists(atPath: directory.appendingPathComponent(StoryStore.fileName).path),
            let store = try? StoryStore(dataDirectory: directory, readOnlyFallback: true),
            let profiles = try? store.profiles()
        else { return [] }
        return matching(profiles.map(\.name), prefix: prefix)
    }

    /// Stories that `read` would find by what was typed (``NameMatch``: a beginning of the id or
    /// title, or of a later word of either), best matches first, each offered by id and title.
    /// (bash's own filter then keeps the ones that begin with what was typed; zsh and fish show all.)
    static func storyCandidates(_ entries: [StoryEntry], prefix: String) -> [String] {
        guard !prefix.isEmpty else { return matching(entries.map(\.id), prefix: "") + matching(entries.map(\.title), prefix: "") }
        let found = NameMatch.ranked(entries, typed: prefix) { [$0.title, $0.id] }
        return found.map { Sanitizer.sanitizeLine($0.id) } + found.map { Sanitizer.sanitizeLine($0.title) }
    }

    /// Candidates made safe for a shell's menu: one line each, no control characters.
    private static func matching(_ candidates: [String], prefix: String) -> [String] {
        let folded = prefix.lowercased()
        return candidates.map(Sanitizer.sanitizeLine).filter { $0.lowercased().hasPrefix(folded) }
    }

    /// `--stories` and `--data-dir` as typed on the line being completed, then the configuration
    /// file's defaults, as the command itself would see them.
    static func options(from words: [String]) -> GlobalOptions {
        var arguments: [String] = []
        var index = 1
        while index < words.count {
            let word = words[index]
            for name in ["--stories", "--data-dir"] {
                if word == name, index + 1 < words.count {
                    arguments += [name, words[index + 1]]
                } else if word.hasPrefix(name + "=") {
                    arguments.append(word)
                }
            }
            index += 1
        }
        let environment = ProcessInfo.processInfo.environment
        let file = try? ConfigFile.load(path: ConfigFile.location(environment: environment), environment: environment)
        let configured = file?.defaults(given: arguments, environment: environment) { $0.section.isEmpty && $0.option != "--device" } ?? []
        return (try? GlobalOptions.parse(arguments + configured)) ?? GlobalOptions()
    }
}
