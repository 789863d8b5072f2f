import Foundation
import StoryKit
import StoryKitTestSupport
import Testing

/// The bedtime timer in the real program under tmux (issue 46), judged by its speech log: it
/// stops at the end of a chapter and of a story, says good night, and the place is kept.
@Suite(.serialized)
struct BedtimeTmuxTests {
    /// The REPL fixture with a story of two chapters, storyreader started with `extra`.
    func start(_ tmux: TmuxSession, _ fixture: ReplFixture, subcommand: [String] = [], extra: String) throws {
        try fixture.folder.write(
            "stories/two-nights.md",
            """
            ---
            title: Two Nights
            ages: 3-6
            tags: animals
            summary: An owl and a mouse become friends.
            ---

            ## Chapter one: The owl

            The owl woke up. She flew to the barn.

            ## Chapter two: The mouse

            The mouse said hello. They were friends.
            """)
        let log = "STORYREADER_SPEECH_LOG=\(fixture.folder.path)/speech.log; export STORYREADER_SPEECH_LOG; "
        try tmux.start(script: log + fixture.paneScript(subcommand: subcommand, extra: extra))
    }

    /// What the log shows was said: "start KIND: text" lines, the text only; story sentences as
    /// "story sentence N: synthesis" (N from 1).
    func said(_ fixture: ReplFixture) -> [String] {
        fixture.speechLog().compactMap { line in
            if line.hasPrefix("story sentence ") { return line }
            guard line.hasPrefix("start "), let colon = line.firstIndex(of: ":") else { return nil }
            return String(line[line.index(colon, offsetBy: 2)...])
        }
    }

    /// Two Nights' sentences: 1 "Chapter one: The owl", 2 "The owl woke up.", 3 "She flew to the
    /// barn.", 4 "Chapter two: The mouse", 5 "The mouse said hello.", 6 "They were friends."
    func sentence(_ number: Int) -> String { "story sentence \(number): synthesis" }

    @Test func theChapterTimerStopsAtTheChaptersEndAndReadingGoesOnFromTheNext() throws {
        let fixture = try ReplFixture(withProfiles: true)
        let tmux = TmuxSession()
        defer {
            tmux.kill()
            fixture.remove()
        }
        try start(tmux, fixture, extra: "--profile Maya --bedtime chapter")
        try tmux.waitFor("Hello Maya.", seconds: 30)
        try tmux.command("read two nights")
        let goodnight = "Good night, Maya. We stopped at the end of the chapter; your place is kept."
        fixture.waitForSpeechLog("the good night", seconds: 30) { lines in lines.contains { $0.hasSuffix(goodnight) } }
        let heard = said(fixture)
        #expect(heard.contains("Bedtime: stop at the end of this chapter."), "\(fixture.speechLog())")
        #expect(heard.contains(sentence(3)), "the chapter's last sentence is heard to its end:\n\(fixture.speechLog())")
        #expect(!heard.contains(sentence(4)), "not a word of the next chapter is begun:\n\(fixture.speechLog())")
        #expect((heard.firstIndex(of: goodnight) ?? -1) > (heard.firstIndex(of: sentence(3)) ?? .max), "the good night comes after it")
        // The place is kept (in the store: a new run would find it too) at the next chapter.
        let record = try fixture.openStore().sessionSnapshot().readings["Maya"]?["two-nights"]
        #expect(record?.sentenceIndex == 3, "Chapter two's heading (index 3): \(String(describing: record))")
        try tmux.command("read two nights")
        fixture.waitForSpeechLog("going on with the next chapter", seconds: 30) { lines in lines.contains(sentence(5)) }
        #expect(said(fixture).contains { $0.hasPrefix("Going on with Two Nights") }, "\(fixture.speechLog())")
    }

    @Test func theStoryTimerTypedInTheReplSaysGoodNightAtTheEnd() throws {
        let fixture = try ReplFixture(withProfiles: true)
        let tmux = TmuxSession()
        defer {
            tmux.kill()
            fixture.remove()
        }
        try start(tmux, fixture, extra: "--profile Maya")
        try tmux.waitFor("Hello Maya.", seconds: 30)
        try tmux.command("bedtime story")
        try tmux.waitFor("Bedtime: stop at the end of this story.")
        try tmux.command("read two nights")
        let goodnight = "Good night, Maya. We stopped at the end of the story."
        fixture.waitForSpeechLog("the good night", seconds: 40) { lines in lines.contains { $0.hasSuffix(goodnight) } }
        let heard = said(fixture)
        #expect(heard.contains(sentence(6)), "the whole story is read, both chapters:\n\(fixture.speechLog())")
        #expect(heard.last == goodnight, "\(fixture.speechLog())")
        #expect(try fixture.openStore().sessionSnapshot().readings["Maya"]?["two-nights"]?.readCount == 1)
    }
}
