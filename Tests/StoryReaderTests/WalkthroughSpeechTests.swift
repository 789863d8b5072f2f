import Foundation
import StoryKit
import StoryKitTestSupport
import Testing

/// Issue 43's walkthrough, judged by the speech log (`STORYREADER_SPEECH_LOG`: each utterance,
/// then the runs that say it, each with its voice's language): the real program from a script.
@Suite struct WalkthroughSpeechTests {
    /// The speech log of `script` run in `language`, with `arguments` before it.
    func speechLog(_ language: String, _ script: String, _ arguments: [String] = []) throws -> [String] {
        let folder = try TemporaryFolder("walkthrough-speech")
        defer { folder.remove() }
        let log = folder.url.appendingPathComponent("speech.log").path
        let result = try StoryReaderProcess.run(
            ["--no-audio", "--lang", language] + arguments, input: script, environment: ["STORYREADER_SPEECH_LOG": log])
        #expect(result.status == 0, "\(result.standardError)")
        return ((try? String(contentsOfFile: log, encoding: .utf8)) ?? "").split(separator: "\n").map(String.init)
    }

    /// Help says every key by its name: eSpeak NG says "- and +" as "and plus" and "[ ] and { }"
    /// as "and", so no symbol key may reach it bare.
    @Test(arguments: [
        ("en", ["minus and plus", "square brackets and braces"]), ("es", ["menos y más", "corchetes y llaves"]),
        ("fr", ["moins et plus", "crochets et accolades"]), ("de", ["Minus und Plus", "eckige Klammern und geschweifte Klammern"]),
    ])
    func helpSpeaksSymbolKeysByName(language: String, names: [String]) throws {
        let lines = try speechLog(language, "help\nquit\n")
        // What is said (a `runs` line is the same text cut by voice, in brackets of its own).
        let said = lines.filter { $0.hasPrefix("start ") }
        #expect(said.count > 20, "\(lines)")
        let bare = said.filter { line in
            line.split(separator: " ").contains { token in
                !token.contains(where: { $0.isLetter || $0.isNumber }) && token.contains(where: { "-+[]{}".contains($0) })
            }
        }
        #expect(bare.isEmpty, "\(language): \(bare)")
        for name in names { #expect(said.contains { $0.contains(name) }, "\(language) says \(name): \(said)") }
    }

    /// In a Spanish interface, Help's commands (typed in English: the command line knows no
    /// other) are said in the English voice, the rest of Help in the Spanish one.
    @Test func helpsCommandNamesAreSaidInTheEnglishVoice() throws {
        let lines = try speechLog("es", "help\nquit\n")
        let commands = try #require(lines.first { $0.hasPrefix("runs ") && $0.contains("next, prev, activate") }, "\(lines)")
        #expect(commands.contains("en[next, prev, activate"), "\(commands)")
        #expect(commands.hasPrefix("runs es["), "\(commands)")
    }

    /// An English story's chapter, named by where-am-I in a Spanish interface, is said in the
    /// story's (English) voice.
    @Test func anEnglishChapterInWhereAmIIsSaidInTheEnglishVoice() throws {
        let folder = try TemporaryFolder("walkthrough-chapter")
        defer { folder.remove() }
        _ = try folder.write(
            "stories/stair.md",
            """
            ---
            title: The Long Stair
            ---

            # Chapter one: A hundred and one steps

            A cat lived at the top of a long stair. Every night she counted the steps. There were a hundred and one.
            """)
        let lines = try speechLog("es", "read stair\nwhere\nquit\n", ["--stories", folder.url.appendingPathComponent("stories").path])
        let answer = try #require(lines.firstIndex { $0.hasPrefix("start text: The Long Stair, ") && $0.contains("Chapter one") }, "\(lines)")
        let runs = lines[answer + 1]
        #expect(runs.contains("en[Chapter one: A hundred and one steps"), "\(runs)")
        #expect(!runs.contains("es[Chapter one"), "\(runs)")
    }
}
