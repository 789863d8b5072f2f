import Foundation
import Testing
import StoryKit
import StoryKitTestSupport

/// Golden transcripts: scripted sessions without a terminal, compared line by line with the files
/// in Transcripts/. Set UPDATE_TRANSCRIPTS=1 to rewrite them (then read the diff before committing).
@Suite(.serialized) struct ReplTranscriptTests {
    static let folder = TestPaths.repository.appendingPathComponent("Tests/StoryReaderTests/Transcripts")

    /// Runs `script` and compares the captions with `name`.txt.
    func check(_ name: String, script: String, profiles: Bool, expectStatus: Int32 = 0) throws -> String {
        let fixture = try ReplFixture(withProfiles: profiles)
        defer { fixture.remove() }
        let result = try StoryReaderProcess.run(fixture.arguments, input: script, dataDirectory: fixture.data)
        #expect(result.status == expectStatus, "stderr: \(result.standardError)")
        #expect(result.standardError.isEmpty, "stderr: \(result.standardError)")
        // The transcript interleaves each command with the captions it produced.
        let file = Self.folder.appendingPathComponent(name + ".txt")
        if ProcessInfo.processInfo.environment["UPDATE_TRANSCRIPTS"] == "1" {
            try result.standardOutput.write(to: file, atomically: true, encoding: .utf8)
        }
        let golden = try String(contentsOf: file, encoding: .utf8)
        let actualLines = result.standardOutput.split(separator: "\n", omittingEmptySubsequences: false)
        let goldenLines = golden.split(separator: "\n", omittingEmptySubsequences: false)
        for (index, (actual, expected)) in zip(actualLines, goldenLines).enumerated() where actual != expected {
            Issue.record("\(name).txt line \(index + 1): expected «\(expected)», got «\(actual)»")
            break
        }
        #expect(actualLines.count == goldenLines.count, "\(name).txt: \(goldenLines.count) lines expected, got \(actualLines.count)")
        return result.standardOutput
    }

    @Test func pickAProfileFindAStoryByHeadingsReadPauseResumeFinish() throws {
        let output = try check("pick-profile-and-read", script: """
            next
            prev
            activate
            heading
            next
            next
            activate
            activate
            wait 1
            pause
            where
            resume
            wait
            back
            quit
            """, profiles: true)
        #expect(output.contains("The end. Maya, you have read The Tiny Fox once."))
        #expect(output.contains("Paused at page 1 of 1."))
    }

    @Test func theReadCountGrowsAcrossRuns() throws {
        let fixture = try ReplFixture(withProfiles: true)
        defer { fixture.remove() }
        for expected in ["once", "2 times"] {
            let result = try StoryReaderProcess.run(fixture.arguments + ["--profile", "Maya"], input: "read tiny fox\nwait\nquit\n", dataDirectory: fixture.data)
            #expect(result.standardOutput.contains("you have read The Tiny Fox \(expected)."), "\(result.standardOutput)")
        }
        let library = try StoryReaderProcess.run(fixture.arguments + ["--profile", "Maya"], input: "heading\nnext\nnext\n", dataDirectory: fixture.data)
        #expect(library.standardOutput.contains("Story: The Tiny Fox, read 2 times, ages 3 to 6, button."))
    }

    @Test func createAProfileWithOneMistakeExplainedAndCorrected() throws {
        let output = try check("create-profile", script: """
            activate
            type Ada
            next
            type 40
            next
            type animals
            next
            activate
            type 6
            :set interests animals
            next
            activate
            where
            quit
            """, profiles: false)
        #expect(output.contains("Age must be a number from 2 to 12. You typed 40."))
        #expect(output.contains("Profile Ada saved."))
    }

    @Test func helpAndLearnMode() throws {
        let output = try check("help-and-learn", script: """
            help
            next
            heading
            learn
            next
            heading
            read
            back
            where
            nxt
            back
            quit
            """, profiles: true)
        #expect(output.contains("next: moves to the next item."))
        #expect(output.contains("I don't know 'nxt'. Did you mean next?"))
    }

    @Test func anEndOfInputWhileReadingFinishesTheStory() throws {
        let fixture = try ReplFixture(withProfiles: true)
        defer { fixture.remove() }
        let result = try StoryReaderProcess.run(fixture.arguments + ["--profile", "Maya"], input: "read owl\n", dataDirectory: fixture.data)
        #expect(result.status == 0)
        #expect(result.standardOutput.hasSuffix("So she counted stars.\nThe end. Maya, you have read The Big Owl once. Press Escape to go back.\nGoodbye.\n"))
    }

    @Test func dumbTerminalIsTreatedLikeNoTerminal() throws {
        let fixture = try ReplFixture(withProfiles: true)
        defer { fixture.remove() }
        let result = try StoryReaderProcess.run(fixture.arguments, input: "where\nquit\n", environment: ["TERM": "dumb"], dataDirectory: fixture.data)
        #expect(!result.standardOutput.contains("\u{1B}"))
        #expect(result.standardOutput.contains("You are on Profiles."))
    }
}
