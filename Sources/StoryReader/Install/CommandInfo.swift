import ArgumentParser
import Foundation

/// The command tree as swift-argument-parser describes it (`--experimental-dump-help`, format
/// version 0): the one source the manual page and the configuration file read, so neither can
/// drift from `--help`. Only the fields they use are decoded.
struct CommandInfo: Decodable, Sendable {
    var commandName: String
    var abstract: String?
    var discussion: String?
    var shouldDisplay: Bool?
    var defaultSubcommand: String?
    var subcommands: [CommandInfo]?
    var arguments: [ArgumentInfo]?

    struct ArgumentInfo: Decodable, Sendable {
        enum Kind: String, Decodable, Sendable { case positional, option, flag }
        struct Name: Decodable, Sendable {
            var kind: String
            var name: String
            /// `--long`, `-s` or `-longWithSingleDash`.
            var spelled: String { kind == "long" ? "--\(name)" : "-\(name)" }
        }

        var kind: Kind
        var names: [Name]?
        var valueName: String?
        var abstract: String?
        var discussion: String?
        var shouldDisplay: Bool
        var isOptional: Bool
        var isRepeating: Bool
        var defaultValue: String?
    }

    private struct Dump: Decodable { var command: CommandInfo }

    /// The whole `storyreader` command tree.
    static func root() -> CommandInfo {
        // `_dumpHelp` is what `--experimental-dump-help` prints; in-process, it costs no spawn.
        let json = StoryReaderCommand._dumpHelp()
        do {
            return try JSONDecoder().decode(Dump.self, from: Data(json.utf8)).command
        } catch {
            // Only a change in swift-argument-parser's format could get here; the install test catches it.
            preconditionFailure("swift-argument-parser's help dump could not be read: \(error)")
        }
    }

    /// The subcommands a person sees (hidden ones and `help` left out).
    var visibleSubcommands: [CommandInfo] {
        (subcommands ?? []).filter { $0.shouldDisplay != false && $0.commandName != "help" }
    }

    /// The options and flags this command takes, by every spelling (`--stories`, `-h`).
    var optionSpellings: Set<String> {
        Set((arguments ?? []).filter { $0.kind != .positional }.flatMap { ($0.names ?? []).map(\.spelled) })
    }

    /// The command that `words` (the arguments after the program name) run, with its path; the
    /// default subcommand when they name none.
    func leaf(for words: [String]) -> (command: CommandInfo, path: [String]) {
        var command = self
        var path: [String] = []
        for word in words {
            guard let next = command.subcommands?.first(where: { $0.commandName == word }) else { break }
            command = next
            path.append(word)
        }
        while command.subcommands?.isEmpty == false, let name = command.defaultSubcommand,
            let next = command.subcommands?.first(where: { $0.commandName == name })
        {
            command = next
            path.append(name)
        }
        return (command, path)
    }
}
