import Foundation
import StoryKit
import StoryKitTestSupport
import Testing

/// The pseudo-language (accented, 40 % longer, bracketed) in the real program under tmux: the
/// generated catalog is written as `es.po` into a folder of its own (`$STORYREADER_PO_DIR`) and
/// the REPL runs with `--lang es`. Through the core flows — choosing a profile, the library, a
/// story, reading, pausing, where am I, help, settings — no line on the screen may hold an English
/// phrase of the catalog (names and the story's own text are data, taken out first), and every
/// screen is drawn inside the 80×24 or 40×24 terminal.
@Suite(.serialized)
struct PseudoLanguageTmuxTests {
    static let names = [
        "The Tiny Fox", "The Big Owl", "Rocket Ride", "Maya", "Sam", "animals", "bedtime", "space",
        "A tiny fox looks for the moon.", "An owl who cannot sleep.", "A rocket goes up and comes down.",
    ]

    /// The start of a message in the pseudo-language, before its first placeholder and short
    /// enough not to be wrapped.
    static func start(_ message: String) -> String {
        String(PseudoLanguage.pseudo(message).prefix { $0 != "{" }.prefix(9))
    }

    /// The English phrases on a screen, after names and the story's text are taken out.
    static func leaks(_ screen: String, storyText: String) -> [String] {
        var found: [String] = []
        for line in screen.split(separator: "\n").map(String.init) {
            let words = line.split(whereSeparator: \.isWhitespace).joined(separator: " ")
            if words.isEmpty || storyText.contains(words) { continue }
            var rest = line
            for name in names.sorted(by: { $0.count > $1.count }) { rest = rest.replacingOccurrences(of: name, with: "") }
            for fragment in PseudoLanguage.englishFragments where rest.range(of: fragment) != nil { found.append("\(fragment) ← \(line)") }
        }
        return found
    }

    @Test(arguments: [80, 40])
    func theCoreFlowsShowNoEnglishUnderTmux(columns: Int) throws {
        let fixture = try ReplFixture(withProfiles: true)
        let catalogs = try TemporaryFolder("pseudo-po")
        try catalogs.write("es.po", PseudoLanguage.file(language: "es"))
        var tmux = TmuxSession()
        tmux.columns = columns
        defer {
            tmux.kill()
            fixture.remove()
            catalogs.remove()
        }
        try tmux.start(script: "export STORYREADER_PO_DIR=\(catalogs.url.path); " + fixture.paneScript(extra: "--lang es"))
        let storyText = "The tiny fox woke up. She looked for the moon. The moon was in the pond. The fox said goodnight."
        var screens: [String] = []
        func step(_ keys: [String], until message: String, seconds: Double = 10) throws {
            if !keys.isEmpty { try tmux.tmux(["send-keys", "-t", tmux.name] + keys) }
            screens.append(try tmux.waitFor(Self.start(message), seconds: seconds))
        }
        try step([], until: "Who is reading?")
        try step(["Enter"], until: "Hello {name}.")
        try step(["Tab", "Tab"], until: "Story: {title}")
        try step(["Enter"], until: "Press Enter to read from the beginning.")
        try tmux.command("set rate 80")
        try step(["Enter"], until: "Press Space to pause.")
        try step(["Space"], until: "Paused at {place}.", seconds: 15)
        try step(["w"], until: "Page {page} of {pages}, sentence {sentence} of {sentences}")
        try step(["Escape", "?"], until: "Everywhere")
        try step(["Escape"], until: "Press Enter to read from the beginning.")
        try tmux.command("settings")
        screens.append(try tmux.waitFor(Self.start("Settings")))
        try tmux.send("C-q")
        try tmux.waitFor("DONE")

        #expect(screens.count >= 10)
        var leaks: [String] = []
        for screen in screens {
            leaks += Self.leaks(screen, storyText: storyText)
            #expect(screen.contains("⟦"), "a screen without the pseudo-language:\n\(screen)")
            for line in screen.split(separator: "\n") { #expect(DisplayWidth.of(String(line)) <= columns, "wider than \(columns): \(line)") }
        }
        #expect(leaks.isEmpty, "English on screen in the pseudo-language: \(Set(leaks).sorted())")
        #expect(fixture.file("status").trimmingCharacters(in: .whitespacesAndNewlines) == "0")
    }
}
