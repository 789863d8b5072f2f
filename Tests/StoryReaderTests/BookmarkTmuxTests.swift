import Foundation
import StoryKit
import StoryKitTestSupport
import Testing

/// Bookmarks in the real program under tmux (issue 46), judged by its speech log and its screen:
/// `b` saves one while reading, it survives a restart, the list shows it, and reading past it
/// plays its tone (the log names it, inside the sentence holding it: at the bookmarked word).
@Suite(.serialized)
struct BookmarkTmuxTests {
    func start(_ tmux: TmuxSession, _ fixture: ReplFixture) throws {
        let log = "STORYREADER_SPEECH_LOG=\(fixture.folder.path)/speech.log; export STORYREADER_SPEECH_LOG; "
        try tmux.start(script: log + fixture.paneScript(extra: "--profile Maya"))
    }

    @Test func aBookmarkSurvivesARestartIsListedAndItsToneIsHeard() throws {
        let fixture = try ReplFixture(withProfiles: true)
        defer { fixture.remove() }
        try fixture.folder.write(
            "stories/long-walk.md",
            """
            ---
            title: The Long Walk
            ages: 3-6
            tags: animals
            summary: A snail walks to the sea.
            ---

            The snail set off at dawn. She passed a sleepy fox. She passed a busy ant. \
            She passed a tall tree. She passed a green frog. She passed a red barn. At last she saw the sea.
            """)
        let first = TmuxSession()
        defer { first.kill() }
        try start(first, fixture)
        try first.waitFor("Hello Maya.", seconds: 30)
        try first.command("read long walk")
        fixture.waitForSpeechLog("the third sentence", seconds: 30) { $0.contains("story sentence 3: synthesis") }
        try first.send("b")
        fixture.waitForSpeechLog("the bookmark saved", seconds: 20) { $0.contains { $0.contains("Bookmark saved at ‘") } }
        let saved = try #require(fixture.speechLog().first { $0.contains("Bookmark saved at ‘") })
        // "… Bookmark saved at ‘fox’, sentence 3." → "‘fox’, sentence 3"
        let place = try #require(saved.range(of: "‘")).lowerBound
        let said = String(saved[place...].dropLast())
        try first.send("q")
        try first.send("C-q")
        try first.waitFor("DONE", seconds: 20)
        #expect(fixture.file("status").trimmingCharacters(in: .whitespacesAndNewlines) == "0")

        // A new run: the list shows it, and reading the story from the start passes it.
        let second = TmuxSession()
        defer { second.kill() }
        try start(second, fixture)
        try second.waitFor("Welcome back Maya", seconds: 30)
        try second.command("bookmarks all")
        try second.waitFor(said + ", The Long Walk", seconds: 10)
        try second.send("Escape")
        let before = fixture.speechLog().count
        try second.command("read long walk from start")
        // The tone, heard inside its sentence (at the bookmarked word), and the sentence after it.
        fixture.waitForSpeechLog("the tone and the next sentence", seconds: 40) { lines in
            let heard = lines.dropFirst(before)
            guard let tone = heard.firstIndex(where: { $0.hasPrefix("tone bookmark 1 at word ") }) else { return false }
            return heard[(tone + 1)...].contains { $0.hasPrefix("story sentence ") }
        }
        let heard = Array(fixture.speechLog().dropFirst(before))
        let tone = try #require(heard.firstIndex { $0.hasPrefix("tone bookmark 1 at word ") })
        let number = try #require(said.split(separator: " ").last.flatMap { Int($0) })
        #expect(heard[..<tone].last { $0.hasPrefix("story sentence ") } == "story sentence \(number): synthesis", "\(heard)")
        #expect(heard[(tone + 1)...].first { $0.hasPrefix("story sentence ") } == "story sentence \(number + 1): synthesis", "\(heard)")
        #expect(heard.filter { $0.hasPrefix("tone ") }.count == 1, "one tone, once: \(heard)")
    }
}
