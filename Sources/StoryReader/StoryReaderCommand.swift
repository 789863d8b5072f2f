package import ArgumentParser
import Foundation
import StoryKit

struct StoryReaderCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "storyreader",
        abstract: helpMessages.tr("Reads children's stories aloud, with the word being heard highlighted."),
        discussion: helpParagraphs(
            helpMessages.tr(
                "Magical Stories reads stories aloud with eSpeak NG in a terminal. Everything it shows it can also say, and everything it says it also shows."),
            helpMessages.tr(
                "Stories come from the bundled stories folder and your own folder ($XDG_DATA_HOME/storyreader/stories; add stories there with 'storyreader import'), or from the folders you name with --stories."
            ),
            helpLines(
                helpMessages.tr("Examples:"),
                "  storyreader list                      " + helpMessages.tr("the stories, as a table"),
                "  storyreader list --age 5 --tag space  " + helpMessages.tr("stories for a 5-year-old who likes space"),
                "  storyreader show lighthouse           " + helpMessages.tr("one story's details (a unique prefix is enough)"),
                "  storyreader import my-story.md        " + helpMessages.tr("add your own story")),
            helpMessages.tr(
                "Defaults for options (stories folders, the data folder, the sound device, display and kiosk settings) can be kept in $XDG_CONFIG_HOME/storyreader/config.toml; options typed win. 'man storyreader' has every command; docs/config.md the file."
            ),
            helpMessages.tr("Exit status: 0 ok, 1 user error (a story not found, a bad file), 2 bad invocation (an unknown option, a value out of range).")),
        version: StoryKitInfo.version,
        subcommands: [
            ReplCommand.self, ListCommand.self, ShowCommand.self, ReadCommand.self, ExportCommand.self, ExportWorkerCommand.self,
            StandbyExportWorkerCommand.self, VoicesCommand.self,
            ImportCommand.self, PreviewCommand.self, BenchHandover.self,
            ProfileCommand.self, PinCommand.self, HistoryCommand.self, KioskCommand.self,
            ManualCommand.self, SyncCommand.self, ServeCommand.self,
        ],
        defaultSubcommand: ReplCommand.self
    )

    /// The program: `bench …` goes to the benchmarks' program; anything else is parsed with
    /// config.toml's defaults and run.
    static func main() async {
        await CommandLineProgram.run(StoryReaderCommand.self) {
            let words = Array(CommandLine.arguments.dropFirst())
            if words.first == BenchHandover.configuration.commandName { try BenchHandover.exec(Array(words.dropFirst())) }
            return try parseAsRoot(try ConfigArguments.applyToProcess())
        }
    }
}

/// Both programs' way of running a command line (`storyreader`, `storyreader-bench`), with the
/// documented exit codes: 0 ok, 1 user error, 2 bad invocation.
package enum CommandLineProgram {
    /// The program `storyreader`.
    package static func storyreader() async { await StoryReaderCommand.main() }

    /// Runs the command `parse` returns; its errors are said as `root`'s (prefixed with its name).
    package static func run(_ root: any ParsableCommand.Type, parse: () throws -> any ParsableCommand) async {
        let name = root.configuration.commandName ?? "storyreader"
        do {
            var command = try parse()
            if var asyncCommand = command as? any AsyncParsableCommand {
                try await asyncCommand.run()
            } else {
                try command.run()
            }
        } catch let failure as ConfigError {
            // A bad configuration starts nothing: what was meant cannot be guessed.
            FileHandle.standardError.write(Data("\(name): \(Sanitizer.visibleLines(failure.localized(configMessages())))\n".utf8))
            Foundation.exit(1)
        } catch let failure as UserFailure {
            FileHandle.standardError.write(Data("\(name): \(Sanitizer.visibleLines(failure.message))\n".utf8))
            Foundation.exit(failure.code)
        } catch {
            let code = root.exitCode(for: error)
            if code == .success {
                // --help and --version
                print(root.fullMessage(for: error))
                Foundation.exit(0)
            }
            if code == .validationFailure {
                FileHandle.standardError.write(Data((root.fullMessage(for: error) + "\n").utf8))
                Foundation.exit(2)
            }
            let message = Sanitizer.visibleLines(root.fullMessage(for: error))
            if !message.isEmpty { FileHandle.standardError.write(Data((message + "\n").utf8)) }
            Foundation.exit(code.rawValue == 0 ? 0 : 1)
        }
    }
}

/// The language of config.toml's problems: the file is read before the arguments are parsed, so
/// `--lang` counts as typed (`--lang es`, `--lang=es`), else the environment's, as for `--help`.
func configMessages(_ arguments: [String] = CommandLine.arguments) -> MessageCatalog {
    var language: String?
    for (index, argument) in arguments.enumerated().dropFirst() {
        if argument == "--" { break }
        if argument == "--lang", index + 1 < arguments.count {
            language = arguments[index + 1]
        } else if argument.hasPrefix("--lang=") {
            language = String(argument.dropFirst("--lang=".count))
        }
    }
    if let code = language.flatMap(InterfaceLanguage.code(of:)) { return Catalogs.catalog(code) }
    return helpMessages
}

/// A problem the person using the program can fix; exits with `code` (1 unless said otherwise).
package struct UserFailure: Error {
    package var message: String
    package var code: Int32 = 1

    package init(message: String, code: Int32 = 1) {
        self.message = message
        self.code = code
    }
}
