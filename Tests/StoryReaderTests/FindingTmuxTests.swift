import Foundation
import StoryKit
import StoryKitTestSupport
import Testing

/// Finding a story among hundreds with real keys (issue 30, part A): the real program under tmux
/// at 80×24, judged by its captions and its speech log, with Aesop's 284 fables beside the
/// fixture's stories.
@Suite(.serialized)
struct FindingTmuxTests {
    /// The REPL fixture with the fables and The Lighthouse Cat in its story folder, Maya chosen.
    func start(_ tmux: TmuxSession, _ fixture: ReplFixture, log: String) throws {
        try FableLibrary.write(into: URL(fileURLWithPath: fixture.stories).appendingPathComponent("fables"))
        _ = try fixture.folder.write(
            "stories/lighthouse-cat.md",
            """
            ---
            title: The Lighthouse Cat
            ---

            A cat lived in a lighthouse. Every night she watched the lamp turn. The ships saw the light and sailed home. \
            The cat was proud of her lamp. One night the lamp went out. The cat climbed the stairs. She pushed the switch. \
            The lamp shone again.
            """)
        try tmux.start(script: "export STORYREADER_SPEECH_LOG=\(log); " + fixture.paneScript(extra: "--profile Maya"))
        try tmux.waitFor("Hello Maya.", seconds: 60)
    }

    /// Runs `body` on Maya's library of hundreds, with its speech log, and cleans up after.
    func withLibrary(_ body: (TmuxSession, ReplFixture, String) throws -> Void) throws {
        let fixture = try ReplFixture(withProfiles: true)
        let tmux = TmuxSession()
        let log = fixture.folder.url.appendingPathComponent("speech.log").path
        defer {
            tmux.kill()
            fixture.remove()
        }
        try start(tmux, fixture, log: log)
        try body(tmux, fixture, log)
    }

    func said(_ log: String) -> String { (try? String(contentsOfFile: log, encoding: .utf8)) ?? "" }

    @Test func typingFoxFindsTheFoxStories() throws {
        try withLibrary { tmux, fixture, log in
            // The stories with a word of their title beginning with "fox", counted apart from the program.
            let foxes = StoryLibrary.load(folders: [fixture.stories]).entries.filter { entry in
                entry.title.lowercased().split { !$0.isLetter }.contains { $0.hasPrefix("fox") }
            }.count
            try tmux.send("-l", "fox")
            let screen = try tmux.waitFor(" of \(foxes) matches")
            // The first match after the focus ('f' alone jumped to the first item starting with F).
            let match = try #require(screen.matches(of: /» (.+), \d+ of (\d+) matches/).last, "\(screen)")
            let title = String(match.1)
            #expect(title.lowercased().split { !$0.isLetter }.contains { $0.hasPrefix("fox") }, "\(title)")
            #expect((Int(match.2) ?? 0) > 20, "the fables have many foxes:\n\(screen)")
            #expect(screen.contains("❯ Story: \(title)"), "the focus is on it:\n\(screen)")
            #expect(said(log).contains("\(title), ") && said(log).contains(" of \(match.2) matches"), "and it was said:\n\(said(log))")
            // A pause (over a second and a half: a slow typist's letters are still one search), then
            // the grapes in four letters.
            Thread.sleep(forTimeInterval: 2.5)
            try tmux.send("-l", "grap")
            try tmux.waitFor("❯ Story: The Fox and the Grapes")
            try tmux.send("Enter")
            try tmux.waitFor("❯[Read]")
        }
    }

    /// Issue 43: one finger, over a second a letter: "grap" is still one search (its `a` no
    /// Actions menu), and the answer heard says which letter goes to the next match.
    @Test func aSlowTypistsGrapFindsTheGrapesAndHearsHowToGoOn() throws {
        try withLibrary { tmux, _, log in
            for letter in "grap" {
                try tmux.send("-l", String(letter))
                Thread.sleep(forTimeInterval: 1.2)
            }
            try tmux.waitFor("❯ Story: The Fox and the Grapes")
            #expect(said(log).contains("start text: The Fox and the Grapes, "), "\(said(log))")
            #expect(!said(log).contains("Actions for "), "the a was a letter of the search:\n\(said(log))")
            Thread.sleep(forTimeInterval: 2)
            try tmux.send("-l", "w")
            try tmux.waitFor("type w again for the next")
            try tmux.send("-l", "w")
            try tmux.waitFor(", 2 of ")
            // The second w went to the second of the W items, and said how to go on again.
            #expect(said(log).firstMatch(of: #/start text: [^\n]+, 2 of \d+ matches, type w again for the next, /#) != nil, "\(said(log))")
        }
    }

    @Test func readLightAndTabCompletesAndQThenEnterGoesOnReading() throws {
        try withLibrary { tmux, _, log in
            try tmux.command("set rate 80")
            try tmux.waitFor("80 words per minute.")
            try tmux.send(":")
            try tmux.send("-l", "read light")
            try tmux.waitFor("» t")
            try tmux.send("Tab")
            try tmux.waitFor(":read The Lighthouse Cat")
            try tmux.send("Enter")
            try tmux.waitFor("Reading The Lighthouse Cat.")
            try tmux.waitFor("» Every night", seconds: 20)
            try tmux.send("q")
            let stopped = try tmux.waitFor("» Stopped.")
            try tmux.waitFor("❯[Go on reading")
            #expect(!stopped.contains("❯[Start again"), "\(stopped)")
            try tmux.send("Enter")
            try tmux.waitFor("Going on with The Lighthouse Cat")
            #expect(said(log).contains("Going on with The Lighthouse Cat"))
        }
    }

    @Test func endThenTheEndCountsNothingAndHearingItAllCountsOnce() throws {
        try withLibrary { tmux, fixture, log in
            try tmux.command("read lighthouse")
            try tmux.waitFor("Reading The Lighthouse Cat.")
            try tmux.send("End")
            try tmux.waitFor("» The end. Press Escape to go back.", seconds: 20)
            #expect(!said(log).contains("you have read"), "\(said(log))")
            let store = try fixture.openStore()
            let maya = try #require(try store.profile(named: "Maya")?.id)
            #expect(try store.readCount(profileID: maya, storyID: "lighthouse-cat") == 0)
            try tmux.send("Escape")
            try tmux.command("set rate 450")
            try tmux.command("read lighthouse from start")
            try tmux.waitFor("Maya, you have read The Lighthouse Cat once.", seconds: 30)
            #expect(try store.readCount(profileID: maya, storyID: "lighthouse-cat") == 1)
        }
    }
}
