import Foundation

/// `config.toml`: defaults for options that would otherwise be typed every time (stories folders,
/// the data folder, the audio device, how screens are drawn, the kiosk's settings).
///
/// Every setting is the default of one command-line option, so an option given on the command line
/// always wins, and a setting means exactly what its option's `--help` says. See docs/config.md.
public struct ConfigFile: Sendable, Equatable {
    /// One allowed setting: where it is written and which option it stands for.
    public struct Setting: Sendable, Equatable {
        public enum Kind: Sendable, Equatable {
            case text, folders, folder, boolean
            case choice([String])
            /// A number of at least `minimum` (or more than it, when `exclusive`).
            case number(minimum: Double, exclusive: Bool)
            /// A number within `range` (the same bounds its option checks).
            case range(ClosedRange<Double>)
        }

        /// "" for the top of the file, else the `[section]`.
        public var section: String
        public var key: String
        public var kind: Kind
        /// The option it sets, like `--text-size`.
        public var option: String
        /// Spellings that mean the option was given (`--no-reduce-motion` as well as `--reduce-motion`).
        public var spellings: [String]
        /// Only for this command (like `kiosk`); nil for any command that takes the option.
        public var command: String?
        /// An environment variable that, when set, wins over this setting as it wins over the default.
        public var environment: String?

        public var name: String { section.isEmpty ? key : "[\(section)] \(key)" }
    }

    /// Every setting the file may hold.
    public static let settings: [Setting] = [
        Setting(section: "", key: "stories", kind: .folders, option: "--stories", spellings: ["--stories"]),
        Setting(section: "", key: "data-dir", kind: .folder, option: "--data-dir", spellings: ["--data-dir"], environment: "STORYREADER_DATA_DIR"),
        Setting(section: "", key: "device", kind: .text, option: "--device", spellings: ["--device"], environment: "STORYREADER_AUDIO_DEVICE"),
        Setting(
            section: "display", key: "text-size", kind: .choice(TextSizePreset.allCases.map(\.rawValue)), option: "--text-size", spellings: ["--text-size"]),
        Setting(section: "display", key: "theme", kind: .choice(ThemeName.allCases.map(\.rawValue)), option: "--theme", spellings: ["--theme"]),
        Setting(section: "display", key: "reduce-motion", kind: .boolean, option: "--reduce-motion", spellings: ["--reduce-motion", "--no-reduce-motion"]),
        Setting(section: "display", key: "line-focus", kind: .choice(LineFocus.allCases.map(\.rawValue)), option: "--line-focus", spellings: ["--line-focus"]),
        Setting(section: "display", key: "syllables", kind: .boolean, option: "--syllables", spellings: ["--syllables", "--no-syllables"]),
        Setting(section: "display", key: "spacing", kind: .choice(TextSpacing.allCases.map(\.rawValue)), option: "--spacing", spellings: ["--spacing"]),
        // The choices `--cursor` takes (PresentationOptions checks the same three).
        Setting(section: "display", key: "cursor", kind: .choice(["auto", "visible", "hidden"]), option: "--cursor", spellings: ["--cursor"]),
        Setting(section: "display", key: "color", kind: .choice(ColorChoice.allCases.map(\.rawValue)), option: "--color", spellings: ["--color"]),
        Setting(section: "braille", key: "display", kind: .choice(["auto", "on", "off"]), option: "--braille", spellings: ["--braille"]),
        Setting(section: "braille", key: "code", kind: .choice(BrailleCode.allCases.map(\.rawValue)), option: "--braille-code", spellings: ["--braille-code"]),
        Setting(
            section: "reading", key: "narration", kind: .choice(NarrationSource.allCases.map(\.rawValue)), option: "--narration", spellings: ["--narration"]),
        Setting(
            section: "reading", key: "recording-tempo", kind: .range(RecordingTempo.range), option: "--recording-tempo",
            spellings: ["--recording-tempo", "--tempo"]),
        Setting(section: "kiosk", key: "profile", kind: .text, option: "--profile", spellings: ["--profile"], command: "kiosk"),
        Setting(
            section: "kiosk", key: "idle-timeout", kind: .number(minimum: 0, exclusive: false), option: "--idle-timeout", spellings: ["--idle-timeout"],
            command: "kiosk"),
        Setting(
            section: "kiosk", key: "time-limit", kind: .number(minimum: 0, exclusive: true), option: "--time-limit", spellings: ["--time-limit"],
            command: "kiosk"),
        Setting(section: "kiosk", key: "no-audio", kind: .boolean, option: "--no-audio", spellings: ["--no-audio"], command: "kiosk"),
    ]

    /// The file the values came from (for messages).
    public var path: String
    /// The settings written in the file, in file order, checked.
    public var values: [(setting: Setting, value: ConfigValue)]

    public static func == (lhs: ConfigFile, rhs: ConfigFile) -> Bool {
        lhs.path == rhs.path && lhs.values.map(\.setting) == rhs.values.map(\.setting) && lhs.values.map(\.value) == rhs.values.map(\.value)
    }

    /// Where the file is: `$XDG_CONFIG_HOME/storyreader/config.toml`, else `~/.config/storyreader/config.toml`.
    public static func location(environment: [String: String]) -> String {
        if let xdg = environment["XDG_CONFIG_HOME"], xdg.hasPrefix("/") {
            return xdg + "/storyreader/config.toml"
        }
        let home = environment["HOME"].flatMap { $0.isEmpty ? nil : $0 } ?? NSHomeDirectory()
        return home + "/.config/storyreader/config.toml"
    }

    /// Reads the file at `path`; nil when there is none (no file is the same as an empty one).
    public static func load(path: String, environment: [String: String]) throws(ConfigError) -> ConfigFile? {
        guard FileManager.default.fileExists(atPath: path) else { return nil }
        guard let data = FileManager.default.contents(atPath: path) else {
            throw ConfigError(path: path, line: 0, CatalogText(N_("cannot be read: check its permissions")))
        }
        guard let text = String(data: data, encoding: .utf8) else {
            throw ConfigError(path: path, line: 1, CatalogText(N_("is not UTF-8 text: save it as UTF-8")))
        }
        return try parse(text, path: path, home: environment["HOME"] ?? NSHomeDirectory())
    }

    /// Checks every line; the first problem is thrown with its line number.
    public static func parse(_ text: String, path: String, home: String) throws(ConfigError) -> ConfigFile {
        let sections = Set(settings.map(\.section).filter { !$0.isEmpty })
        var values: [(setting: Setting, value: ConfigValue)] = []
        for entry in try ConfigLineParser.parse(text, path: path, sections: sections) {
            func fail(_ template: String, _ values: [String: String] = [:], parts: [String: CatalogText] = [:]) -> ConfigError {
                ConfigError(path: path, line: entry.line, CatalogText(template, values, parts: parts))
            }
            guard let setting = settings.first(where: { $0.section == entry.section && $0.key == entry.key }) else {
                let known = settings.filter { $0.section == entry.section }.map(\.key)
                let elsewhere = settings.first { $0.key == entry.key }
                let named = ["key": entry.key, "section": entry.section, "other": elsewhere?.section ?? "", "keys": known.joined(separator: ", ")]
                switch (entry.section.isEmpty, elsewhere?.section.isEmpty) {
                case (true, nil): throw fail(N_("'{key}' is not a setting: use one of {keys}"), named)
                case (true, _): throw fail(N_("'{key}' is not a setting: it belongs under [{other}]"), named)
                case (false, nil): throw fail(N_("'{key}' is not a setting of [{section}]: use one of {keys}"), named)
                case (false, true): throw fail(N_("'{key}' is not a setting of [{section}]: it belongs at the top of the file, before any [section]"), named)
                case (false, false): throw fail(N_("'{key}' is not a setting of [{section}]: it belongs under [{other}]"), named)
                }
            }
            values.append((setting, try check(entry.value, for: setting, relativeTo: (path as NSString).deletingLastPathComponent, home: home, fail: fail)))
        }
        return ConfigFile(path: path, values: values)
    }

    /// The value in the form the option takes, or why it cannot be.
    private static func check(
        _ value: ConfigValue, for setting: Setting, relativeTo folder: String, home: String,
        fail: (String, [String: String], [String: CatalogText]) -> ConfigError
    ) throws(ConfigError) -> ConfigValue {
        switch (setting.kind, value) {
        case (.text, .string(let text)) where !text.isEmpty:
            return value
        case (.folder, .string(let path)) where !path.isEmpty:
            return .string(expand(path, relativeTo: folder, home: home))
        case (.folders, .string(let path)) where !path.isEmpty:
            return .array([.string(expand(path, relativeTo: folder, home: home))])
        case (.folders, .array(let items)) where !items.isEmpty:
            var folders: [ConfigValue] = []
            for item in items {
                guard case .string(let path) = item, !path.isEmpty else {
                    throw fail(N_("'{key}' lists folders, each in quotes: stories = [\"~/Stories\"]"), ["key": setting.key], [:])
                }
                folders.append(.string(expand(path, relativeTo: folder, home: home)))
            }
            return .array(folders)
        case (.boolean, .boolean):
            return value
        case (.choice(let choices), .string(let text)):
            guard let match = choices.first(where: { $0.lowercased() == text.lowercased() }) else {
                throw fail(
                    N_("'{value}' is not a {key}: use one of {choices}"),
                    ["value": String(text.prefix(40)), "key": setting.key, "choices": choices.joined(separator: ", ")], [:])
            }
            return .string(match)
        case (.number(let minimum, let exclusive), .number(let number)):
            guard exclusive ? number > minimum : number >= minimum else {
                throw fail(
                    exclusive ? N_("'{key}' must be more than {minimum}") : N_("'{key}' must be at least {minimum}"),
                    ["key": setting.key, "minimum": minimum.formatted()], [:])
            }
            return value
        case (.range(let range), .number(let number)):
            // Checked here as its option checks it, so the error names this file and line.
            guard range.contains(number) else {
                throw fail(
                    N_("'{key}' must be from {minimum} to {maximum}"),
                    ["key": setting.key, "minimum": range.lowerBound.formatted(), "maximum": range.upperBound.formatted()], [:])
            }
            return value
        default:
            let wanted: CatalogText =
                switch setting.kind {
                case .text: CatalogText(N_("text in quotes"))
                case .folder: CatalogText(N_("a folder in quotes"))
                case .folders: CatalogText(N_("a folder in quotes, or a list of them: [\"~/Stories\", \"/srv/stories\"]"))
                case .boolean: CatalogText(N_("true or false"))
                case .choice(let choices): CatalogText(N_("one of {choices}"), ["choices": choices.map { "\"\($0)\"" }.joined(separator: ", ")])
                case .number, .range: CatalogText(N_("a number"))
                }
            throw fail(N_("'{key}' must be {wanted}, not {kind}"), ["key": setting.key], ["wanted": wanted, "kind": CatalogText(value.kindName)])
        }
    }

    /// `~/x` from the home folder, `x` from the configuration file's folder.
    private static func expand(_ path: String, relativeTo folder: String, home: String) -> String {
        if path == "~" { return home }
        if path.hasPrefix("~/") { return home + path.dropFirst(1) }
        if path.hasPrefix("/") { return path }
        return (folder as NSString).appendingPathComponent(path)
    }
}

extension Double {
    fileprivate func formatted() -> String { rounded() == self ? String(Int(self)) : String(self) }
}
