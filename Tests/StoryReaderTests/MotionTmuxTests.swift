import Foundation
import StoryKitTestSupport
import Testing

/// Motion in the live REPL, under tmux with real keys: a page turn and the end of a story move
/// (several frames) by default and are one still frame with reduced motion; nothing blinks, the
/// captions are the same, and the screen never changes wholesale more than 3 times a second.
@Suite(.serialized)
struct MotionTmuxTests {
    struct Run {
        var pageTurnScreens: [String] = []
        var endScreens: [String] = []
        var captions: [String] = []
    }

    /// Screens with their colours, sampled every 20 ms for `seconds`, or until `until` was seen and
    /// `after` more seconds passed.
    func sample(_ tmux: TmuxSession, seconds: Double, until: String? = nil, after: Double = 0.6) throws -> [String] {
        var screens: [String] = []
        var deadline = Date().addingTimeInterval(seconds)
        var seen = false
        while Date() < deadline {
            let screen = try tmux.tmux(["capture-pane", "-p", "-e", "-t", tmux.name])
            if screens.last != screen { screens.append(screen) }
            if let until, !seen, screen.contains(until) {
                seen = true
                deadline = Date().addingTimeInterval(after)
            }
            Thread.sleep(forTimeInterval: 0.02)
        }
        return screens
    }

    func run(reduceMotion: Bool) throws -> Run {
        let fixture = try ReplFixture(withProfiles: true)
        try fixture.folder.write("stories/lantern.md", ReplTranscriptTests.lantern)
        let tmux = TmuxSession()
        defer {
            tmux.kill()
            fixture.remove()
        }
        try tmux.start(script: fixture.paneScript(extra: "--profile Maya " + (reduceMotion ? "--reduce-motion" : "--no-reduce-motion")))
        try tmux.waitFor("Hello Maya.")
        try tmux.command("read lantern")
        try tmux.waitFor("❯[Pause]")
        try tmux.send("Space")
        try tmux.waitFor("Paused at")
        Thread.sleep(forTimeInterval: 0.3)
        var result = Run()
        let before = try tmux.tmux(["capture-pane", "-p", "-e", "-t", tmux.name])
        try tmux.send("PageDown")
        result.pageTurnScreens = try sample(tmux, seconds: 0.8).filter { $0 != before }
        // End goes on from the last sentence; the story ends a few seconds later.
        try tmux.send("End")
        result.endScreens = try sample(tmux, seconds: 15, until: "★ The end!")
        result.captions = (try tmux.screen()).split(separator: "\n").filter { $0.hasPrefix("» ") }.map(String.init)
        try tmux.send("C-q")
        try tmux.waitFor("DONE")
        return result
    }

    @Test func aPageTurnAndTheEndMoveUnlessMotionIsReduced() throws {
        let moving = try run(reduceMotion: false)
        let still = try run(reduceMotion: true)
        #expect(moving.pageTurnScreens.count > 1, "the page turns in several frames")
        #expect(still.pageTurnScreens.count == 1, "one still frame: \(still.pageTurnScreens.count)")
        #expect(moving.endScreens.contains { $0.contains("✦") }, "sparkles at the end")
        #expect(!still.endScreens.contains { $0.contains("✦") })
        #expect(still.endScreens.contains { $0.contains("★ The end!") } && moving.endScreens.contains { $0.contains("★ The end!") })
        for screen in moving.pageTurnScreens + moving.endScreens + still.pageTurnScreens + still.endScreens {
            #expect(!Self.blinks(screen))
        }
        #expect(moving.captions == still.captions, "the same words are said and shown")
        // WCAG 2.3.1: no more than 3 wholesale changes in any second (frames are 20 ms apart or more).
        #expect(Self.wholesaleChanges(moving.pageTurnScreens) <= 3)
    }

    static func blinks(_ screen: String) -> Bool {
        screen.components(separatedBy: "\u{1B}[").contains { sequence in
            guard let end = sequence.firstIndex(of: "m") else { return false }
            return sequence[..<end].split(separator: ";").contains { $0 == "5" || $0 == "6" }
        }
    }

    /// Consecutive frames of which more than half the rows changed.
    static func wholesaleChanges(_ screens: [String]) -> Int {
        zip(screens, screens.dropFirst()).filter { old, new in
            let a = old.split(separator: "\n", omittingEmptySubsequences: false)
            let b = new.split(separator: "\n", omittingEmptySubsequences: false)
            let changed = zip(a, b).filter { $0 != $1 }.count
            return changed * 2 > max(a.count, 1)
        }.count
    }
}
