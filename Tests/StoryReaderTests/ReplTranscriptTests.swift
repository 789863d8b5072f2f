import Foundation
import StoryKit
import StoryKitTestSupport
import Testing

/// Golden transcripts: scripted sessions without a terminal, compared line by line with the files
/// in Transcripts/. Set UPDATE_SNAPSHOTS=1 to rewrite them (then read the diff before committing).
@Suite(.serialized) struct ReplTranscriptTests {
    static let folder = TestPaths.repository.appendingPathComponent("Tests/StoryReaderTests/Transcripts")

    /// Runs `script` and compares the captions with `name`.txt.
    func check(
        _ name: String, script: String, profiles: Bool, expectStatus: Int32 = 0, extra: [String] = [],
        prepare: (ReplFixture) throws -> Void = { _ in }, verify: (ReplFixture) throws -> Void = { _ in }
    ) throws -> String {
        let fixture = try ReplFixture(withProfiles: profiles)
        defer { fixture.remove() }
        try prepare(fixture)
        let result = try StoryReaderProcess.run(fixture.arguments + extra, input: script, dataDirectory: fixture.data)
        #expect(result.status == expectStatus, "stderr: \(result.standardError)")
        #expect(result.standardError.isEmpty, "stderr: \(result.standardError)")
        // The transcript interleaves each command with the captions it produced.
        Snapshot.assertMatches(result.standardOutput, named: name + ".txt", in: Self.folder)
        try verify(fixture)
        return result.standardOutput
    }

    @Test func pickAProfileFindAStoryByHeadingsReadPauseResumeFinish() throws {
        let output = try check(
            "pick-profile-and-read",
            script: """
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
        #expect(output.contains("Paused at ‘She’, sentence 2 of 4."))
    }

    /// A story of two pages, a chapter heading and a picture, for the listening flows.
    static let lantern = """
        ---
        title: The Lantern
        ages: 3-8
        tags: animals
        ---

        # The dark

        Tom had a lantern. It was small and red. It lit the path.

        The path went into the wood. Owls called in the trees.

        ---

        # The light

        ![A small red lantern on a mossy stone](lantern.art)

        Tom sat on a stone. The lantern glowed. He was not afraid.
        """

    /// The core listening flow, as a blind child hears it: open a story, Right twice, Up, pause and
    /// go on, where am I, a page break said, stop, quit; then a second run welcomes back to the
    /// place, `read` goes on from it, and `storyreader read` with the same keys says the same.
    @Test func listeningMovesPausesSaysThePlaceAndWelcomesBack() throws {
        let keys = """
            wait 1
            sentence next
            wait 1
            sentence next
            wait 1
            paragraph prev
            wait 1
            pause
            where
            resume
            wait 6
            where
            stop
            """
        var again = ""
        var alone = ""
        var aloneErrors = ""
        let output = try check(
            "listening", script: "profile Maya\nread lantern\n" + keys + "\nquit\n", profiles: true,
            prepare: { fixture in
                try fixture.folder.write("stories/lantern.md", Self.lantern)
                try fixture.folder.write("stories/lantern.art", " _\n[*]\n")
            },
            verify: { fixture in
                again = try StoryReaderProcess.run(
                    fixture.arguments, input: "profile Maya\nactivate\nwait 1\nstop\nread lantern\nwait 1\nquit\n",
                    dataDirectory: fixture.data
                ).standardOutput
                let read = try StoryReaderProcess.run(
                    ["read", "lantern", "--from-start", "--profile", "Maya"] + fixture.arguments, input: keys,
                    dataDirectory: fixture.data)
                alone = read.standardOutput
                aloneErrors = read.standardError
            })
        #expect(output.contains("Page 2 of 2."), "the page break is said")
        #expect(output.contains("Picture: A small red lantern on a mossy stone"), "a picture's description says it is one")
        #expect(output.contains("in ‘The light’"), "where am I names the chapter")
        let againLines = again.split(separator: "\n").map(String.init)
        #expect(againLines.contains { $0.hasPrefix("Welcome back Maya. You were reading The Lantern, page 2 of 2.") }, "\(again)")
        #expect(againLines.contains { $0.hasPrefix("Going on with The Lantern, page 2 of 2.") }, "\(again)")
        #expect(!againLines.contains("Reading The Lantern."), "the place was never started over: \(again)")
        // The same keys through `storyreader read` say the same, from the story's first words to Stopped.
        func reading(_ text: String) -> [Substring] {
            let lines = text.split(separator: "\n")
            guard let first = lines.firstIndex(of: "Reading The Lantern."), let last = lines.lastIndex(of: "Stopped.") else { return [] }
            return Array(lines[first...last])
        }
        #expect(!reading(output).isEmpty)
        #expect(reading(alone) == reading(output), "\(alone)\(aloneErrors)")
    }

    /// Word mode and a word on demand, typed: paused, `word next`/`word prev` say one word each;
    /// `explain` says the word, spells it and reads on from it.
    @Test func wordByWordAndAWordExplained() throws {
        let output = try check(
            "word-mode",
            script: """
                read tiny fox
                wait 1
                pause
                word next
                word next
                word prev
                explain
                wait 1
                quit
                """, profiles: true, extra: ["--profile", "Maya"])
        let lines = output.split(separator: "\n").map(String.init)
        let paused = try #require(lines.firstIndex { $0.hasPrefix("Paused at") })
        #expect(lines.count > paused + 5)
        // Three single words, the last one the one before it, then its letters.
        let words = Array(lines[(paused + 1)...(paused + 3)])
        #expect(words.allSatisfy { !$0.contains(" ") }, "\(words)")
        #expect(words[2] == words[0])
        #expect(lines[paused + 5] == words[2].map { String($0) }.joined(separator: ", ") + ".")
    }

    @Test func theReadCountGrowsAcrossRuns() throws {
        let fixture = try ReplFixture(withProfiles: true)
        defer { fixture.remove() }
        for expected in ["once", "2 times"] {
            let result = try StoryReaderProcess.run(
                fixture.arguments + ["--profile", "Maya"], input: "read tiny fox\nwait\nquit\n", dataDirectory: fixture.data)
            #expect(result.standardOutput.contains("you have read The Tiny Fox \(expected)."), "\(result.standardOutput)")
        }
        let library = try StoryReaderProcess.run(fixture.arguments + ["--profile", "Maya"], input: "heading\nnext\nnext\n", dataDirectory: fixture.data)
        #expect(library.standardOutput.contains("Story: The Tiny Fox, read 2 times, ages 3 to 6, button."))
    }

    @Test func createAProfileWithOneMistakeExplainedAndCorrected() throws {
        let output = try check(
            "create-profile",
            script: """
                where
                next
                activate
                type Ada
                next
                type 40
                next
                type animals
                :set volume 100
                jump s
                jump s
                jump s
                jump s
                activate
                type 6
                :set interests animals
                jump s
                jump s
                jump s
                jump s
                jump s
                activate
                where
                quit
                """, profiles: false,
            prepare: { fixture in
                let names = try fixture.openStore().profiles().map(\.name)
                #expect(names == ["Reader"])
            },
            verify: { fixture in
                let ada = try fixture.openStore().requireProfile(named: "Ada")
                #expect(ada.age == 6 && ada.interests == ["animals"] && ada.settings.speech.volume == 100)
            })
        // The default profile is there before anyone acts.
        #expect(output.contains("Profiles. Reader, age 6, button."))
        #expect(output.contains("Age: 40 is out of range: type a whole number of years from 2 to 12."))
        #expect(output.contains("Profile Ada saved."))
    }

    /// The profile is in the database the command line reads.
    @Test func aProfileMadeInTheReplIsStoredForTheCommandLine() throws {
        let fixture = try ReplFixture(withProfiles: false)
        defer { fixture.remove() }
        let script = "next\nactivate\ntype Ada\n:set age 7\n:set interests space, trains\n:set rate 120\nsave\nquit\n"
        let repl = try StoryReaderProcess.run(fixture.arguments, input: script, dataDirectory: fixture.data)
        #expect(repl.standardOutput.contains("Profile Ada saved."), "\(repl.standardOutput)")
        let shown = try StoryReaderProcess.run(["profile", "show", "Ada", "--json", "--data-dir", fixture.data], dataDirectory: fixture.data)
        #expect(shown.status == 0, "\(shown.standardError)")
        let json = try #require(try JSONSerialization.jsonObject(with: Data(shown.standardOutput.utf8)) as? [String: Any])
        #expect(json["age"] as? Int == 7)
        #expect(json["interests"] as? [String] == ["space", "trains"])
        #expect(try fixture.openStore().requireProfile(named: "Ada").settings.speech.rate == 120)
    }

    /// A profile added with `storyreader profile add` is picked in the REPL, a story is read to the
    /// end, and `storyreader list --profile` counts it.
    @Test func aProfileAddedOnTheCommandLineReadsInTheReplAndTheListCountsIt() throws {
        let fixture = try ReplFixture(withProfiles: false)
        defer { fixture.remove() }
        let added = try StoryReaderProcess.run(
            ["profile", "add", "--name", "Zoe", "--age", "5", "--interests", "animals", "--data-dir", fixture.data],
            dataDirectory: fixture.data)
        #expect(added.status == 0, "\(added.standardError)")
        let repl = try StoryReaderProcess.run(fixture.arguments, input: "next\nactivate\nread tiny fox\nwait\nquit\n", dataDirectory: fixture.data)
        #expect(repl.status == 0, "\(repl.standardError)")
        #expect(repl.standardOutput.contains("Hello Zoe."), "\(repl.standardOutput)")
        #expect(repl.standardOutput.contains("The end. Zoe, you have read The Tiny Fox once."), "\(repl.standardOutput)")
        let list = try StoryReaderProcess.run(
            ["list", "--profile", "Zoe", "--json", "--stories", fixture.stories, "--data-dir", fixture.data],
            dataDirectory: fixture.data)
        #expect(list.status == 0, "\(list.standardError)")
        let stories = try #require(try JSONSerialization.jsonObject(with: Data(list.standardOutput.utf8)) as? [[String: Any]])
        let fox = try #require(stories.first { $0["title"] as? String == "The Tiny Fox" })
        #expect(fox["readCount"] as? Int == 1)
        #expect(stories.filter { $0["title"] as? String != "The Tiny Fox" }.allSatisfy { $0["readCount"] as? Int == 0 })
    }

    /// The announced count is the store's: reads recorded elsewhere (the command line, another
    /// terminal) after the REPL started are counted too.
    @Test func theAnnouncedCountIsTheStoresCount() throws {
        let fixture = try ReplFixture(withProfiles: true)
        defer { fixture.remove() }
        let store = try fixture.openStore()
        let maya = try store.requireProfile(named: "Maya")
        for _ in 0..<4 { try store.recordFinishedRead(profileID: maya.id!, storyID: "tiny-fox") }
        let result = try StoryReaderProcess.run(fixture.arguments + ["--profile", "Maya"], input: "read tiny fox\nwait\nquit\n", dataDirectory: fixture.data)
        #expect(result.standardOutput.contains("you have read The Tiny Fox 5 times."), "\(result.standardOutput)")
        #expect(try store.readCount(profileID: maya.id!, storyID: "tiny-fox") == 5)
    }

    /// Favourites and positions are the store's; the next run welcomes back to the place, and Go on
    /// reading starts the saved sentence again.
    @Test func favouritesAndPositionsPersistAndGoOnStartsTheSavedSentence() throws {
        let fixture = try ReplFixture(withProfiles: true)
        defer { fixture.remove() }
        let first = try StoryReaderProcess.run(
            fixture.arguments + ["--profile", "Maya"],
            input: "read tiny fox\nwait 1\npause\nback\nnext\nnext\nactivate\nquit\n", dataDirectory: fixture.data)
        #expect(first.standardOutput.contains("Paused at ‘She’, sentence 2 of 4."), "\(first.standardOutput)")
        #expect(first.standardOutput.contains("The Tiny Fox saved to favourites."), "\(first.standardOutput)")
        let store = try fixture.openStore()
        let maya = try store.requireProfile(named: "Maya")
        #expect(try store.position(profileID: maya.id!, storyID: "tiny-fox") == 1)
        #expect(try store.favourites(profileID: maya.id!) == ["tiny-fox"])
        let browse = try StoryReaderProcess.run(fixture.arguments + ["--profile", "Maya"], input: "heading\nquit\n", dataDirectory: fixture.data)
        #expect(browse.standardOutput.contains("Favourites, contains 1 story, heading."), "\(browse.standardOutput)")
        let second = try StoryReaderProcess.run(fixture.arguments + ["--profile", "Maya"], input: "activate\nwait 1\nquit\n", dataDirectory: fixture.data)
        let lines = second.standardOutput.split(separator: "\n").map(String.init)
        #expect(lines.count > 3, "\(second.standardOutput)")
        #expect(lines[1].hasPrefix("Welcome back Maya. You were reading The Tiny Fox, sentence 2 of 4."), "\(second.standardOutput)")
        // The welcome said the story and the place: the button is only named (no place said twice).
        #expect(lines[1].hasSuffix("Library, 3 stories. Go on reading, button. Press Enter to go on from your place."), "\(second.standardOutput)")
        let going = try #require(lines.firstIndex(of: "Going on with The Tiny Fox, sentence 2 of 4."), "\(second.standardOutput)")
        #expect(lines[going + 1] == "She looked for the moon.")
        #expect(try store.position(profileID: maya.id!, storyID: "tiny-fox") == 2, "the place moved on only by reading on")
    }

    /// A wrong PIN is refused kindly; the right one opens Settings, whose changes are saved with it.
    @Test func aWrongPINIsRefusedAndTheRightOneOpensSettings() throws {
        let output = try check(
            "pin-prompt",
            script: """
                set rate 180
                settings
                type 1357
                activate
                type 2468
                activate
                set rate 200
                back
                set rate 220
                quit
                """, profiles: true, extra: ["--profile", "Maya"],
            prepare: { fixture in
                try fixture.openStore().setPIN("2468")
                return
            },
            verify: { fixture in
                // Only the change made in the parent's visit is kept.
                let maya = try fixture.openStore().requireProfile(named: "Maya")
                #expect(maya.settings.speech.rate == 200)
            })
        #expect(output.contains("That PIN is not right. Try again."))
        #expect(output.contains("\nSettings. "))
    }

    @Test func fiveWrongPINsLockItAndTheWaitIsSaid() throws {
        let fixture = try ReplFixture(withProfiles: true)
        defer { fixture.remove() }
        try fixture.openStore().setPIN("2468")
        let wrong = String(repeating: "type 1111\nactivate\n", count: 5)
        let result = try StoryReaderProcess.run(
            fixture.arguments + ["--profile", "Maya"], input: "settings\n" + wrong + "type 2468\nactivate\nquit\n",
            dataDirectory: fixture.data)
        let lines = result.standardOutput.split(separator: "\n").map(String.init)
        #expect(lines.filter { $0 == "That PIN is not right. Try again." }.count == 4, "\(result.standardOutput)")
        #expect(lines.filter { $0 == "Too many tries. Try again in 30 seconds." }.count == 2, "\(result.standardOutput)")
        #expect(!result.standardOutput.contains("Settings. "))
        #expect(try fixture.openStore().pinLockout().failedAttempts == 5)
    }

    @Test func aDatabaseThatIsNotSQLiteStopsTheReplWithTheStoresMessage() throws {
        let fixture = try ReplFixture(withProfiles: false)
        defer { fixture.remove() }
        let other = try TemporaryFolder("not-sqlite")
        defer { other.remove() }
        try other.write(StoryStore.fileName, "these are not the droids")
        let result = try StoryReaderProcess.run(
            ["--no-audio", "--stories", fixture.stories, "--data-dir", other.path], input: "quit\n", dataDirectory: other.path)
        #expect(result.status == 1)
        #expect(result.standardError.contains("is not a storyreader database (not an SQLite file)"), "\(result.standardError)")
        #expect(result.standardOutput.isEmpty)
        #expect(try String(contentsOf: other.url.appendingPathComponent(StoryStore.fileName), encoding: .utf8) == "these are not the droids")
    }

    @Test func helpAndLearnMode() throws {
        let output = try check(
            "help-and-learn",
            script: """
                help
                next
                heading
                learn
                next
                heading
                read
                quit
                back
                where
                nxt
                back
                quit
                """, profiles: true)
        #expect(output.contains("next: moves to the next item."))
        #expect(output.contains("quit: leaves Magical Stories."), "learn mode says what quit does, and does not quit")
        #expect(output.contains("Help. question mark, help."), "help opens on its first key, its symbol said by name")
        #expect(output.contains("Control Q: quit"), "help printed whole without a screen")
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
