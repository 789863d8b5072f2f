import Foundation
import StoryKit
import StoryKitTestSupport
import Testing

/// config.toml: every setting it may hold, read as its option would read it; any line it cannot
/// use is refused with its line number and what to write instead.
struct ConfigFileTests {
    static let path = "/home/ana/.config/storyreader/config.toml"

    func parse(_ text: String) throws(ConfigError) -> ConfigFile {
        try ConfigFile.parse(text, path: Self.path, home: "/home/ana")
    }

    func value(_ file: ConfigFile, _ key: String) -> ConfigValue? {
        file.values.first { $0.setting.key == key }?.value
    }

    @Test func aFullFileGivesEverySettingInTheFormItsOptionTakes() throws {
        let file = try parse(ConfigFixtures.everySetting)
        #expect(
            value(file, "stories")
                == .array([
                    .string("/home/ana/Stories"), .string("/srv/stories"),
                    .string("/home/ana/.config/storyreader/class"),
                ]))
        #expect(value(file, "data-dir") == .string("/var/lib/storyreader"))
        #expect(value(file, "device") == .string("plughw:1"))
        // Choices are spelled as the option spells them, whatever the case in the file.
        #expect(value(file, "text-size") == .string("accessibility1"))
        #expect(value(file, "reduce-motion") == .boolean(false))
        #expect(value(file, "idle-timeout") == .number(120))
        #expect(value(file, "time-limit") == .number(0.5))
        #expect(value(file, "cursor") == .string("visible"))
        #expect(file.values.count == 15)
    }

    @Test func oneFolderNeedsNoList() throws {
        #expect(value(try parse("stories = \"~\"\n"), "stories") == .array([.string("/home/ana")]))
    }

    @Test func anEmptyFileOrOnlyCommentsSetsNothing() throws {
        #expect(try parse("").values.isEmpty)
        #expect(try parse("# nothing yet\n\n   # indented comment\r\n").values.isEmpty)
    }

    @Test(arguments: [
        ("theme = \"dark\"\nbogus line\n", 2, "expected '=' after 'bogus'"),
        ("[display]\ntheme = dark\n", 2, "text goes in quotes"),
        ("[display]\ntheme = \"purple\"\n", 2, "'purple' is not a theme: use one of default, dark"),
        ("[kiosk]\n\nidle-timeout = -5\n", 3, "'idle-timeout' must be at least 0"),
        ("[kiosk]\ntime-limit = 0\n", 2, "'time-limit' must be more than 0"),
        ("[reading]\nrecording-tempo = 3\n", 2, "'recording-tempo' must be from 0.5 to 2"),
        ("[reading]\n\nrecording-tempo = 0.25\n", 3, "'recording-tempo' must be from 0.5 to 2"),
        ("[kiosk]\nprofile = 7\n", 2, "'profile' must be text in quotes, not a number"),
        ("[display]\nreduce-motion = \"yes\"\n", 2, "'reduce-motion' must be true or false"),
        ("theme = \"dark\"\n", 1, "'theme' is not a setting: it belongs under [display]"),
        ("[kiosk]\ndevice = \"hw:0\"\n", 2, "it belongs at the top of the file"),
        ("[kiosk]\ncolour = 1\n", 2, "'colour' is not a setting of [kiosk]: use one of profile, idle-timeout"),
        ("[sound]\n", 1, "there is no section [sound]"),
        ("[display\n", 1, "a section header is written [name]"),
        ("device = \"hw:0\"\ndevice = \"hw:1\"\n", 2, "'device' is set twice"),
        ("stories = [\"a\",\n  \"b\"]\n", 1, "write the list on one line"),
        ("stories = [1]\n", 1, "'stories' lists folders, each in quotes"),
        ("device = \"hw:0\" extra\n", 1, "unexpected 'extra' after the value"),
        ("device = \"hw:0\n", 1, "no closing \""),
        ("device = \"C:\\path\"\n", 1, "is not an escape TOML knows"),
        ("device =\n", 1, "a value is missing"),
    ])
    func aBadLineIsNamedWithWhatToWrite(text: String, line: Int, message: String) {
        do {
            _ = try parse(text)
            Issue.record("accepted: \(text)")
        } catch {
            #expect(error.line == line)
            #expect(error.message.contains(message), "\(error.message)")
            #expect(error.description.hasPrefix("\(Self.path), line \(line): "))
        }
    }

    @Test func theFileIsFoundInTheXDGConfigFolderElseInHome() {
        #expect(ConfigFile.location(environment: ["XDG_CONFIG_HOME": "/cfg", "HOME": "/home/ana"]) == "/cfg/storyreader/config.toml")
        // A relative XDG_CONFIG_HOME is ignored, as the XDG specification says.
        #expect(ConfigFile.location(environment: ["XDG_CONFIG_HOME": "cfg", "HOME": "/home/ana"]) == "/home/ana/.config/storyreader/config.toml")
    }

    @Test func noFileIsNoConfiguration() throws {
        #expect(try ConfigFile.load(path: "/nonexistent/config.toml", environment: [:]) == nil)
    }
}
