import ArgumentParser
import Foundation
import StoryKit
import StoryKitTestSupport
import Testing

@testable import StoryReader

/// config.toml applied to the command line: its settings are the options' defaults, the options
/// typed win, and a bad line starts nothing.
@Suite(.serialized) struct ConfigFileCommandTests {
    /// A configuration folder holding `text` as storyreader/config.toml.
    static func configFolder(_ text: String) throws -> TemporaryFolder {
        let folder = try TemporaryFolder("config")
        try folder.write("storyreader/config.toml", text)
        return folder
    }

    static let everySetting = ConfigFixtures.everySetting

    @Test func theKioskGetsItsSettingsAndAnOptionTypedWins() throws {
        let config = try Self.configFolder(Self.everySetting)
        defer { config.remove() }
        let environment = ["XDG_CONFIG_HOME": config.path, "HOME": "/home/ana"]
        let (arguments, variables) = try ConfigArguments.apply(to: ["kiosk", "--profile", "Sam", "--no-reduce-motion"], environment: environment)
        #expect(
            arguments == [
                "kiosk", "--profile", "Sam", "--no-reduce-motion",
                "--stories", "/home/ana/Stories", "--stories", "/srv/stories",
                "--stories", config.path + "/storyreader/class", "--data-dir", "/var/lib/storyreader",
                "--text-size", "accessibility1", "--theme", "dark", "--line-focus", "3", "--no-syllables", "--spacing", "wide",
                "--cursor", "visible", "--color", "never",
                "--idle-timeout", "120.0", "--time-limit", "0.5", "--no-audio",
            ])
        // The kiosk has no --device: the device reaches it the way it reads one, from the environment.
        #expect(variables == ["STORYREADER_AUDIO_DEVICE": "plughw:1"])
    }

    @Test func aVariableSetWinsOverTheFileAsItWinsOverTheDefault() throws {
        let config = try Self.configFolder(Self.everySetting)
        defer { config.remove() }
        let environment = ["XDG_CONFIG_HOME": config.path, "STORYREADER_DATA_DIR": "/mine", "STORYREADER_AUDIO_DEVICE": "hw:0"]
        let (arguments, variables) = try ConfigArguments.apply(to: ["read", "fox"], environment: environment)
        #expect(!arguments.contains("--data-dir") && !arguments.contains("--device"))
        #expect(variables.isEmpty)
        // Kiosk settings stay in the kiosk.
        #expect(!arguments.contains("--profile") && !arguments.contains("--no-audio"))
    }

    @Test func everyCommandParsesWithEverySettingApplied() throws {
        let config = try Self.configFolder(Self.everySetting)
        defer { config.remove() }
        var paths: [[String]] = []
        func collect(_ command: CommandInfo, _ path: [String]) {
            for sub in command.subcommands ?? [] where sub.commandName != "help" {
                if sub.subcommands?.isEmpty ?? true { paths.append(path + [sub.commandName]) }
                collect(sub, path + [sub.commandName])
            }
        }
        collect(CommandInfo.root(), [])
        #expect(paths.count > 15)
        for path in paths {
            // Required arguments and options given, so only what the file added can break the parse.
            let required: [String] =
                switch path {
                case ["show"], ["read"]: ["fox"]
                case ["import"]: ["a.md"]
                case ["preview"]: ["library"]
                case ["profile", "show"], ["profile", "edit"], ["profile", "remove"]: ["Maya"]
                case ["serve", "run"]: ["--database", "postgres://stories@localhost/stories"]
                case ["serve", "site", "add"], ["serve", "site", "revoke"]: ["branch1", "--database", "postgres://stories@localhost/stories"]
                case ["serve", "staff", "add"]: ["branch1", "--name", "ana", "--role", "librarian", "--database", "postgres://stories@localhost/stories"]
                case ["serve", "staff", "list"]: ["--database", "postgres://stories@localhost/stories"]
                case ["serve", "staff", "remove"]: ["--name", "ana", "--database", "postgres://stories@localhost/stories"]
                case ["sync", "join"]: ["https://stories.library.example"]
                case ["export"]: ["fox", "--to", "fox.wav"]
                case ["export-worker"]: ["fox", "--first", "0", "--end", "1", "--rate", "175", "--pitch", "50", "--volume", "100", "--voice", "en"]
                default: []
                }
            let (arguments, _) = try ConfigArguments.apply(to: path + required, environment: ["XDG_CONFIG_HOME": config.path])
            do {
                _ = try StoryReaderCommand.parseAsRoot(arguments)
            } catch {
                Issue.record("\(arguments.joined(separator: " ")): \(StoryReaderCommand.message(for: error))")
            }
        }
    }

    @Test func storiesFromTheFileAreListedAndStoriesTypedWin() throws {
        let folder = try TemporaryFolder("config-stories")
        defer { folder.remove() }
        try folder.write("config/storyreader/config.toml", "# the class's stories\nstories = \"../../mine\"\n")
        try folder.write("mine/owl.md", "---\ntitle: The Owl\n---\n\nThe owl said hoo.\n")
        let environment = ["XDG_CONFIG_HOME": folder.url.appendingPathComponent("config").path]
        let fromFile = try StoryReaderProcess.run(["list"], environment: environment)
        #expect(fromFile.status == 0, "\(fromFile.standardError)")
        #expect(fromFile.standardOutput.hasPrefix("owl\tThe Owl"))
        #expect(fromFile.standardOutput.split(separator: "\n").count == 1)
        let typed = try StoryReaderProcess.run(["list", "--stories", TestPaths.stories.path], environment: environment)
        #expect(typed.standardOutput.split(separator: "\n").count == 12)
    }

    @Test func aBadLineIsNamedAndNothingStarts() throws {
        let config = try Self.configFolder("[display]\ntheme = \"dark\"\ntext-size = huge\n")
        defer { config.remove() }
        let data = try TemporaryFolder("config-data")
        defer { data.remove() }
        let file = config.url.appendingPathComponent("storyreader/config.toml").path
        let result = try StoryReaderProcess.run(
            ["profile", "add", "--name", "Maya", "--age", "5"],
            environment: ["XDG_CONFIG_HOME": config.path], dataDirectory: data.path)
        #expect(result.status == 1)
        #expect(result.standardError == "storyreader: \(file), line 3: 'huge' is not a value: text goes in quotes (\"huge\"), or use a number, true or false\n")
        #expect(result.standardOutput == "")
        // Nothing started: no database was made.
        #expect(try FileManager.default.contentsOfDirectory(atPath: data.path).isEmpty)
        // The help that explains the file still shows.
        #expect(try StoryReaderProcess.run(["--help"], environment: ["XDG_CONFIG_HOME": config.path]).status == 0)
    }

    /// A recording tempo out of range is named with the file, its line and key (it used to be
    /// refused later as the option `--recording-tempo`, with no word of the file).
    @Test func aRecordingTempoOutOfRangeNamesTheFileAndTheKey() throws {
        let config = try Self.configFolder("[reading]\nrecording-tempo = 5\n")
        defer { config.remove() }
        let data = try TemporaryFolder("config-data")
        defer { data.remove() }
        let file = config.url.appendingPathComponent("storyreader/config.toml").path
        let result = try StoryReaderProcess.run(["list"], environment: ["XDG_CONFIG_HOME": config.path], dataDirectory: data.path)
        #expect(result.status == 1)
        #expect(result.standardError == "storyreader: \(file), line 2: 'recording-tempo' must be from 0.5 to 2\n")
        #expect(result.standardOutput == "")
    }
}
