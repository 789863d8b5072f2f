import Foundation
import StoryKit
import StoryKitTestSupport
import Testing

/// Issue 30, part B, with the real program: the profile form from empty to saved with real keys
/// under tmux (read from the speech log, as a blind parent hears it), the same form through a pipe,
/// a piped read before any profile is chosen, a Spanish pipe with no English, a missing catalog
/// said once, and `import --dry-run`'s total.
@Suite(.serialized)
struct FormsAndPipesTests {
    @Test func aBlindParentMakesMiaSixAnimalsAndSpaceSlowerWithRealKeys() throws {
        let fixture = try ReplFixture(withProfiles: false)
        let tmux = TmuxSession()
        defer {
            tmux.kill()
            fixture.remove()
        }
        let logging = "STORYREADER_SPEECH_LOG=\(fixture.folder.path)/speech.log; export STORYREADER_SPEECH_LOG; "
        try tmux.start(script: logging + fixture.paneScript())
        try tmux.waitFor("❯[Reader")
        try tmux.send("Down")
        try tmux.waitFor("❯[New profile]")
        try tmux.send("Enter")
        try tmux.waitFor("❯ Name:")
        // From here every key is counted: the figure for the lead's note.
        var keys = 0
        func press(_ key: String) throws {
            try tmux.send(key)
            keys += 1
        }
        func type(_ text: String) throws {
            for character in text {
                try tmux.send("-l", String(character))
                keys += 1
            }
        }
        try type("Mia")
        try press("Enter")
        try tmux.waitFor("❯ Age:")
        try type("6")
        try press("Enter")
        try tmux.waitFor("❯ Interests:")
        try type("animals, space")
        try press("Enter")
        try tmux.waitFor("❯ ◀ Voice: the story's language")
        try press("Tab")
        try tmux.waitFor("❯ ◀ Speed: 140 words per minute")
        try press("Left")
        try tmux.waitFor("❯ ◀ Speed: 127 words per minute")
        try press("C-s")
        let screen = try tmux.waitFor("Profile Mia saved.")
        #expect(screen.contains("Profile: Mia"))
        print("keys to make the profile Mia, 6, animals and space, slower (real keys): \(keys)")
        #expect(keys == 24)
        // Every value said back, as a blind parent hears it.
        fixture.waitForSpeechLog("the save to be said") { $0.contains { $0.hasSuffix("Profile Mia saved.") } }
        let heard = fixture.speechLog()
        for line in [
            "start message: Name: Mia.", "start message: Age: 6.", "start message: Interests: animals, space.",
            "start text: Speed: 127 words per minute.",
        ] {
            #expect(heard.contains(line), "\(line) in \(heard)")
        }
        try tmux.send("C-q")
        try tmux.waitFor("DONE")
        let mia = try #require(try fixture.openStore().profile(named: "Mia"))
        #expect(mia.age == 6)
        #expect(mia.interests == ["animals", "space"])
        #expect(mia.speech.rate == 127)
    }

    @Test func thePipedFormSubmitsOnActivateSaysTheSpeedAndAsksBeforeQuitting() throws {
        let fixture = try ReplFixture(withProfiles: false)
        defer { fixture.remove() }
        let form = "jump n\nactivate\ntype Mia\nactivate\ntype 6\nactivate\ntype animals, space\nactivate\nnext\ndecrease\n"
        let asked = try StoryReaderProcess.run(fixture.arguments, input: form + "quit\nactivate\nquit\n", dataDirectory: fixture.data)
        #expect(asked.status == 0, "\(asked.standardError)")
        let lines = asked.standardOutput.split(separator: "\n").map(String.init)
        for line in [
            "Name: Mia.", "Age: 6.", "Interests: animals, space.", "Speed: 127 words per minute.",
            "Discard the changes to this profile? Your changes are not saved.", "Changes discarded.", "Goodbye.",
        ] {
            #expect(lines.contains(line), "\(line) in \(lines)")
        }
        // The first quit asked; Goodbye came only after the changes were discarded.
        #expect(lines.firstIndex(of: "Changes discarded.")! < lines.firstIndex(of: "Goodbye.")!)
        #expect(try fixture.openStore().profile(named: "Mia") == nil)

        let saved = try StoryReaderProcess.run(fixture.arguments, input: form + "save\nquit\n", dataDirectory: fixture.data)
        #expect(saved.standardOutput.contains("Profile Mia saved.\n"), "\(saved.standardOutput)")
        #expect(try fixture.openStore().profile(named: "Mia")?.speech.rate == 127)
    }

    @Test func aPipedReadBeforeAnyProfileSaysItReadsAsTheGuest() throws {
        let fixture = try ReplFixture(withProfiles: true)
        defer { fixture.remove() }
        let guest = try StoryReaderProcess.run(
            fixture.arguments, input: "read tiny fox\nstop\nread big owl\nwhere\nquit\n", dataDirectory: fixture.data)
        // Short, as the story waits for it, and once a run; where am I says how to keep the place.
        let notices = guest.standardOutput.components(separatedBy: "\n").filter { $0.contains("guest") }
        #expect(notices == ["Reading as the guest: the place is not kept."], "\(guest.standardOutput)")
        #expect(
            guest.standardOutput.contains("No profile is chosen: the place is not kept. Type profile and a name to keep it."), "\(guest.standardOutput)")
        // With a profile chosen first, nothing of the kind is said.
        let maya = try StoryReaderProcess.run(fixture.arguments, input: "profile Maya\nread tiny fox\nquit\n", dataDirectory: fixture.data)
        #expect(maya.standardOutput.contains("Reading The Tiny Fox"), "\(maya.standardOutput)")
        #expect(!maya.standardOutput.contains("reading as the guest"))
    }

    @Test func aSpanishPipeSaysCommandErrorsAndMissingProfilesInSpanish() throws {
        let fixture = try ReplFixture(withProfiles: true)
        defer { fixture.remove() }
        let run = try StoryReaderProcess.run(
            fixture.arguments, input: "nxt\nprofile Nadie\nprofile Maya\nactions\nquit\n",
            environment: ["LANG": "es_ES.UTF-8"], dataDirectory: fixture.data)
        let out = run.standardOutput
        #expect(out.contains("No conozco 'nxt'. ¿Querías decir next? Escribe help para ver la lista.\n"), "\(out)")
        #expect(out.contains("No hay ningún perfil llamado") && out.contains(". Perfiles: Maya, Reader, Sam.\n"), "\(out)")
        #expect(out.contains("No tiene otras acciones"), "\(out)")
        for english in ["I don't know", "There is no profile", "It has no other actions", "items."] {
            #expect(!out.contains(english), "\(english) in \(out)")
        }
    }

    @Test func aLanguageWhoseCatalogIsMissingIsSaidOnceOnStandardError() throws {
        let fixture = try ReplFixture(withProfiles: true)
        defer { fixture.remove() }
        let nowhere = fixture.folder.url.appendingPathComponent("no-catalogs").path
        let repl = try StoryReaderProcess.run(
            ["--lang", "es"] + fixture.arguments, input: "quit\n",
            environment: ["STORYREADER_PO_DIR": nowhere], dataDirectory: fixture.data)
        let said = repl.standardError.components(separatedBy: "no catalog for 'es'").count - 1
        #expect(said == 1, "\(repl.standardError)")
        #expect(repl.standardError.contains("storyreader: no catalog for 'es' in \(nowhere): the interface is in English\n"), "\(repl.standardError)")
        #expect(repl.standardOutput.contains("Goodbye."))
        // LANG asks the same of a command; English, with the catalog found, says nothing.
        let list = try StoryReaderProcess.run(
            ["list", "--stories", fixture.stories], environment: ["LANG": "de_DE.UTF-8", "STORYREADER_PO_DIR": nowhere],
            dataDirectory: fixture.data)
        #expect(list.standardError.components(separatedBy: "no catalog for 'de'").count - 1 == 1, "\(list.standardError)")
        let found = try StoryReaderProcess.run(["--lang", "es"] + fixture.arguments, input: "quit\n", dataDirectory: fixture.data)
        #expect(!found.standardError.contains("no catalog"), "\(found.standardError)")
        #expect(found.standardOutput.contains("Adiós."))
    }

    @Test func aDryRunEndsWithItsTotal() throws {
        let fixture = try ReplFixture(withProfiles: false)
        defer { fixture.remove() }
        let story = try fixture.folder.write(
            "new/two-birds.md",
            """
            ---
            title: Two Birds
            ---

            Two birds sat on a wire. One flew away.

            ![a bird on a wire](bird.art)
            """)
        try fixture.folder.write("new/bird.art", "  \\\n (o>\n  ^\n")
        let other = try fixture.folder.write(
            "new/one-cloud.md",
            """
            ---
            title: One Cloud
            ---

            A cloud came by.
            """)
        let dry = try StoryReaderProcess.run(["import", "--dry-run", "--stories", fixture.stories, story.path, other.path], dataDirectory: fixture.data)
        #expect(dry.status == 0, "\(dry.standardError)")
        let lines = dry.standardOutput.split(separator: "\n").map(String.init)
        // The total is the sum of what the lines above it say.
        let words = lines.compactMap { line -> Int? in
            guard line.hasPrefix("Would import"), let range = line.range(of: #"\d+ words"#, options: .regularExpression) else { return nil }
            return Int(line[range].split(separator: " ")[0])
        }
        #expect(words.count == 2, "\(lines)")
        #expect(lines.filter { $0.hasPrefix("  picture: ") }.count == 1, "\(lines)")
        #expect(lines.last == "In all: 2 stories, \(words.reduce(0, +)) words, 1 picture, 0 warnings", "\(lines)")
    }
}
