import ArgumentParser
import Foundation
import StoryKit

/// Applies config.toml as the command line's defaults: a setting becomes its option, added only
/// when the command takes that option and the option was not typed (so flags win), and only when
/// the environment variable that would beat the default is not set either.
enum ConfigArguments {
    /// Words after which the configuration is not read: help, version, and what the shell and
    /// `make install` ask for, so that a broken file never hides the help that explains it.
    private static let bypass: Set<String> = [
        "-h", "--help", "--version", "--generate-completion-script",
        "--experimental-dump-help", "---completion",
    ]

    /// The command line to parse: `arguments` (without the program name) plus the file's
    /// defaults; and the environment variables to set for settings the command has no option for
    /// but reads from the environment (the kiosk's audio device: `STORYREADER_AUDIO_DEVICE`).
    /// - Throws: `ConfigError` naming the file and line of the first problem; nothing runs then.
    static func apply(to arguments: [String], environment: [String: String] = ProcessInfo.processInfo.environment)
        throws(ConfigError) -> (arguments: [String], environment: [String: String])
    {
        if arguments.contains(where: bypass.contains) || ["help", ManualCommand.configuration.commandName].contains(arguments.first) {
            return (arguments, [:])
        }
        guard let file = try ConfigFile.load(path: ConfigFile.location(environment: environment), environment: environment) else {
            return (arguments, [:])
        }
        let (command, path) = CommandInfo.root().leaf(for: arguments)
        // Benchmarks measure with their own settings (and `bench store --stories` is a count).
        if path.first == BenchHandover.configuration.commandName { return (arguments, [:]) }
        let accepted = command.optionSpellings
        let added = file.defaults(given: arguments, environment: environment) { setting in
            accepted.contains(setting.option) && (setting.command == nil || setting.command == path.first)
        }
        var variables: [String: String] = [:]
        for (setting, value) in file.values where !accepted.contains(setting.option) && setting.command == nil {
            if let variable = setting.environment, environment[variable]?.isEmpty != false, case .string(let text) = value {
                variables[variable] = text
            }
        }
        // Before a `--`, after which every word is a value.
        let end = arguments.firstIndex(of: "--") ?? arguments.endIndex
        return (Array(arguments[..<end]) + added + Array(arguments[end...]), variables)
    }

    /// `apply` for this process: the variables are set, the arguments returned.
    static func applyToProcess() throws(ConfigError) -> [String] {
        let (arguments, variables) = try apply(to: Array(CommandLine.arguments.dropFirst()))
        for (name, value) in variables { setenv(name, value, 1) }
        return arguments
    }
}

extension ConfigFile {
    /// The options the file adds to `arguments`, for the settings `applies` accepts.
    func defaults(given arguments: [String], environment: [String: String], where applies: (Setting) -> Bool) -> [String] {
        var added: [String] = []
        for (setting, value) in values where applies(setting) {
            let typed = arguments.contains { word in setting.spellings.contains { word == $0 || word.hasPrefix($0 + "=") } }
            if typed { continue }
            if let variable = setting.environment, environment[variable]?.isEmpty == false { continue }
            switch value {
            case .string(let text): added += [setting.option, text]
            case .number(let number): added += [setting.option, String(number)]
            case .boolean(let on):
                // `--reduce-motion` has its `--no-` twin; `--no-audio` is only ever turned on.
                if on { added.append(setting.option) } else if setting.spellings.count > 1 { added.append(setting.spellings[1]) }
            case .array(let items):
                for case .string(let text) in items { added += [setting.option, text] }
            }
        }
        return added
    }
}
