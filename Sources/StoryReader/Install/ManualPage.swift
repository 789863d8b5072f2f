import Foundation
import StoryKit

/// `storyreader.1`, written from the command tree (see `CommandInfo`) in the classic `man(7)`
/// macros, which every `man` on Linux renders (groff, mandoc).
enum ManualPage {
    static func render(_ root: CommandInfo, version: String = StoryKitInfo.version) -> String {
        var page = Roff()
        page.line(".TH STORYREADER 1 \"\" \"storyreader \(version)\" \"User Commands\"")
        // No hyphenation and ragged right: option names and paths must stay whole to be typed.
        page.line(".nh")
        page.line(".ad l")
        page.section("NAME")
        page.text("storyreader \\- \(Roff.escape(root.abstract ?? ""))")
        page.section("SYNOPSIS")
        page.line(".B storyreader")
        page.text("[\\fIcommand\\fR] [\\fIoptions\\fR] [\\fIarguments\\fR]")
        page.section("DESCRIPTION")
        page.paragraphs(root.discussion ?? "")
        if let name = root.defaultSubcommand {
            page.paragraphs("With no command, storyreader runs '\(name)'.")
        }
        page.section("OPTIONS")
        page.arguments(root.arguments ?? [])
        page.section("COMMANDS")
        for command in root.visibleSubcommands {
            page.command(command, path: ["storyreader"])
        }
        page.section("FILES")
        page.definition(
            "$XDG_CONFIG_HOME/storyreader/config.toml",
            "Defaults for options (stories folders, data folder, audio device, display, kiosk); the options given win. See the configuration guide in the documentation folder."
        )
        page.definition(
            "$XDG_DATA_HOME/storyreader/storyreader.sqlite",
            "Profiles, the parental PIN (a slow salted hash), read counts and reading positions.")
        page.definition(
            "../share/storyreader/stories",
            "The bundled stories, found beside the installed program.")
        page.section("ENVIRONMENT")
        page.definition("STORYREADER_DATA_DIR", "The data folder, instead of $XDG_DATA_HOME/storyreader.")
        page.definition("STORYREADER_STORIES_DIR", "The bundled stories folder, instead of the one beside the program.")
        page.definition("STORYREADER_AUDIO_DEVICE", "The ALSA device to play on, instead of 'default'.")
        page.definition(
            "STORYREADER_MIC_DEVICE",
            "The ALSA capture device the read-along coach (the r key while reading, or read --coach) listens on, instead of 'default'; opened only while coaching, and nothing it hears is written anywhere."
        )
        page.definition("NO_COLOR, CLICOLOR_FORCE, FORCE_COLOR", "Colour, unless --color is given.")
        page.section("EXIT STATUS")
        page.text("0 ok, 1 a user error (a story not found, a bad file, a wrong PIN), 2 a bad invocation (an unknown option, a value out of range).")
        page.section("SEE ALSO")
        page.text("\\fBespeak-ng\\fR(1); the guides in /usr/share/doc/storyreader (or $PREFIX/share/doc/storyreader).")
        return page.output
    }
}

/// A roff document being written; text from the command definitions is escaped on the way in.
private struct Roff {
    var output = ""

    mutating func line(_ line: String) { output += line + "\n" }

    mutating func section(_ title: String) { line(".SH \(title)") }

    mutating func text(_ text: String) { line(text) }

    /// Prose: paragraphs split at blank lines; indented lines (examples) kept as they are.
    mutating func paragraphs(_ prose: String) {
        for paragraph in prose.components(separatedBy: "\n\n") where !paragraph.isEmpty {
            line(".PP")
            let lines = paragraph.components(separatedBy: "\n")
            for item in lines {
                if item.hasPrefix(" ") {
                    line(".nf")
                    line(Roff.escape(item))
                    line(".fi")
                } else {
                    line(Roff.escape(item))
                }
            }
        }
    }

    mutating func definition(_ term: String, _ description: String) {
        line(".TP")
        line("\\fB\(Roff.escape(term))\\fR")
        line(Roff.escape(description))
    }

    mutating func arguments(_ arguments: [CommandInfo.ArgumentInfo]) {
        for argument in arguments where argument.shouldDisplay {
            line(".TP")
            line(Roff.synopsis(of: argument))
            var description = argument.abstract ?? ""
            if let value = argument.defaultValue, !value.isEmpty, argument.kind != .flag {
                description += " (default: \(value))"
            }
            line(Roff.escape(description))
            if let discussion = argument.discussion, !discussion.isEmpty { line(Roff.escape(discussion)) }
        }
    }

    mutating func command(_ command: CommandInfo, path: [String]) {
        let path = path + [command.commandName]
        line(".SS \"\(Roff.escape(path.joined(separator: " ")))\"")
        let positional = (command.arguments ?? []).filter { $0.kind == .positional && $0.shouldDisplay }
        let usage = positional.map { argument -> String in
            let name = "\\fI\(Roff.escape(argument.valueName ?? "value"))\\fR" + (argument.isRepeating ? " ..." : "")
            return argument.isOptional ? "[\(name)]" : name
        }
        line("\\fB\(Roff.escape(path.joined(separator: " ")))\\fR [\\fIoptions\\fR]" + usage.map { " " + $0 }.joined())
        line(".br")
        line(Roff.escape(command.abstract ?? ""))
        if let discussion = command.discussion { paragraphs(discussion) }
        let arguments = (command.arguments ?? []).filter { !($0.names ?? []).contains { $0.name == "help" || $0.name == "version" } }
        if !arguments.isEmpty {
            line(".RS")
            self.arguments(arguments)
            line(".RE")
        }
        for subcommand in command.visibleSubcommands {
            self.command(subcommand, path: path)
        }
    }

    /// `--stories <dir>`, `-h, --help`, `<story>`, in bold and italics.
    static func synopsis(of argument: CommandInfo.ArgumentInfo) -> String {
        let value = "\\fI<\(escape(argument.valueName ?? "value"))>\\fR"
        switch argument.kind {
        case .positional:
            return value
        case .flag:
            return (argument.names ?? []).map { "\\fB\(escape($0.spelled))\\fR" }.joined(separator: ", ")
        case .option:
            return (argument.names ?? []).map { "\\fB\(escape($0.spelled))\\fR \(value)" }.joined(separator: ", ")
        }
    }

    private static let glyphs: [Unicode.Scalar: String] = [
        "\\": "\\e", "-": "\\-", "\u{2013}": "\\(en", "\u{2014}": "\\(em", "\u{2018}": "\\(oq", "\u{2019}": "\\(cq",
        "\u{201C}": "\\(lq", "\u{201D}": "\\(rq", "\u{2026}": "...", "\u{2190}": "\\(<-", "\u{2192}": "\\(->",
        "\u{2191}": "\\(ua", "\u{2193}": "\\(da",
    ]

    /// Backslashes and hyphens made literal, a line never starting with a control character, and
    /// characters beyond ASCII as groff glyphs, which `man` also draws in a C locale (as `--`,
    /// `...`, `<-`), where a raw `…` only gets a warning.
    static func escape(_ text: String) -> String {
        var escaped = ""
        for character in text.unicodeScalars {
            if let glyph = glyphs[character] {
                escaped += glyph
            } else if character.isASCII {
                escaped.unicodeScalars.append(character)
            } else {
                escaped += String(format: "\\[u%04X]", character.value)
            }
        }
        if escaped.hasPrefix(".") || escaped.hasPrefix("'") { escaped = "\\&" + escaped }
        return escaped
    }
}
