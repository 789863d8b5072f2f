import Foundation
import StoryKitTestSupport
import Testing

@testable import StoryKit

/// `storyreader profile …` and `history`, run as a user would (no TTY: answers come from a pipe).
@Suite struct ProfileCommandTests {
    func run(_ arguments: [String], input: String? = nil, in folder: TemporaryFolder) throws -> ProcessResult {
        try StoryReaderProcess.run(arguments, input: input, dataDirectory: folder.path)
    }

    @Test func addWithFlagsThenListShowAndJSON() throws {
        let folder = try TemporaryFolder("profile-cli")
        defer { folder.remove() }
        let added = try run(
            [
                "profile", "add", "--name", "Mia", "--age", "7", "--interests", "space, trains", "--text-size", "xxLarge",
                "--reduced-motion", "on", "--hints", "off",
            ], in: folder)
        #expect(added.status == 0, "\(added.standardError)")
        #expect(added.standardOutput == "Added Mia, age 7.\n")

        let list = try run(["profile", "list"], in: folder)
        #expect(list.standardOutput == "Mia, age 7, likes space, trains\nReader, age 6\n")

        let show = try run(["profile", "show", "MIA", "--json"], in: folder)
        #expect(show.status == 0)
        let json = try #require(try JSONSerialization.jsonObject(with: Data(show.standardOutput.utf8)) as? [String: Any])
        #expect(json["name"] as? String == "Mia")
        #expect(json["interests"] as? [String] == ["space", "trains"])
        #expect(json["textSize"] as? String == "xxLarge")
        #expect(json["reducedMotion"] as? String == "on")
        #expect(json["hints"] as? Bool == false)
        #expect(json["rate"] as? Int == 140)

        let text = try run(["profile", "show", "mia"], in: folder)
        #expect(text.standardOutput.contains("Text size: xxLarge\n"))
        let listJSON = try run(["profile", "list", "--json"], in: folder)
        let profiles = try #require(try JSONSerialization.jsonObject(with: Data(listJSON.standardOutput.utf8)) as? [[String: Any]])
        #expect(profiles.compactMap { $0["name"] as? String } == ["Mia", "Reader"])
    }

    /// Every reading setting `profile show` prints as text is in its JSON too, as its flag spells it.
    @Test func theJSONHasTheReadingAidsBrailleNarrationAndTempo() throws {
        let folder = try TemporaryFolder("profile-cli")
        defer { folder.remove() }
        let added = try run(
            [
                "profile", "add", "--name", "Ana", "--age", "8", "--line-focus", "3", "--syllables", "--spacing", "wide",
                "--braille-code", "grade-2", "--narration", "synthetic", "--recording-tempo", "1.25",
            ], in: folder)
        #expect(added.status == 0, "\(added.standardError)")
        let show = try run(["profile", "show", "ana", "--json"], in: folder)
        #expect(show.status == 0, "\(show.standardError)")
        let json = try #require(try JSONSerialization.jsonObject(with: Data(show.standardOutput.utf8)) as? [String: Any])
        #expect(json["lineFocus"] as? String == "3")
        #expect(json["syllables"] as? Bool == true)
        #expect(json["spacing"] as? String == "wide")
        #expect(json["brailleCode"] as? String == "grade-2")
        #expect(json["narration"] as? String == "synthetic")
        #expect(json["recordingTempo"] as? Double == 1.25)
        let text = try run(["profile", "show", "ana"], in: folder).standardOutput
        #expect(text.contains("Braille: grade-2\n"), "\(text)")
        #expect(text.contains("Narration: synthetic\n"), "\(text)")
        // The default profile: what a child who chose nothing gets.
        let reader = try run(["profile", "show", "reader", "--json"], in: folder)
        let defaults = try #require(try JSONSerialization.jsonObject(with: Data(reader.standardOutput.utf8)) as? [String: Any])
        #expect(defaults["brailleCode"] as? String == "grade-1")
        #expect(defaults["narration"] as? String == "recording")
        #expect(defaults["recordingTempo"] as? Double == 1)
    }

    @Test func everyBadFlagIsNamedAndNothingIsSaved() throws {
        let folder = try TemporaryFolder("profile-cli")
        defer { folder.remove() }
        let result = try run(["profile", "add", "--name", "reader", "--age", "6.5", "--rate", "900", "--theme", "purple"], in: folder)
        #expect(result.status == 1)
        #expect(
            result.standardError == """
                storyreader: nothing was saved:
                Name (--name): a profile named "Reader" already exists (names ignore case): choose another name or edit that profile
                Age (--age): "6.5" is not a whole number: type a whole number of years from 2 to 12
                Speed (--rate): 900 is out of range: use a whole number from 80 to 450
                Theme (--theme): "purple" is not a theme: use one of default, dark, light, high-contrast-dark, high-contrast-light

                """)
        #expect(try run(["profile", "list"], in: folder).standardOutput == "Reader, age 6\n")
    }

    @Test(arguments: [
        ("", "Name (--name): the name is empty"),
        (String(repeating: "x", count: 10_000), "Name (--name): the name is 10000 characters long: use at most 40 characters"),
        ("Mia\u{1B}[2J", "Name (--name): the name contains control characters, escape sequences or hidden direction marks"),
        ("Mia\u{202E}", "Name (--name): the name contains control characters"),
    ])
    func badNamesAreExplained(_ name: String, _ message: String) throws {
        let folder = try TemporaryFolder("profile-cli")
        defer { folder.remove() }
        let result = try run(["profile", "add", "--name", name, "--age", "5"], in: folder)
        #expect(result.status == 1)
        #expect(result.standardError.contains(message))
        #expect(!result.standardError.contains("\u{1B}"))
        #expect(try run(["profile", "list"], in: folder).standardOutput == "Reader, age 6\n")
    }

    @Test(arguments: [("-1", "-1 is out of range"), ("abc", "\"abc\" is not a number"), ("200", "200 is out of range")])
    func badAgesAreExplained(_ age: String, _ message: String) throws {
        let folder = try TemporaryFolder("profile-cli")
        defer { folder.remove() }
        let result = try run(["profile", "add", "--name", "Leo", "--age=\(age)"], in: folder)
        #expect(result.status == 1)
        #expect(result.standardError.contains("Age (--age): \(message): type a whole number of years from 2 to 12"))
    }

    @Test func addFromAPipeReadsOneAnswerPerLineInFocusOrder() throws {
        let folder = try TemporaryFolder("profile-cli")
        defer { folder.remove() }
        // name, age, interests, voice, rate, pitch, volume, text size; the rest keep their defaults.
        let result = try run(["profile", "add"], input: "Leo\n5\nanimals, dragons\nen-us\n\n60\n\naccessibility1\n", in: folder)
        #expect(result.status == 0, "\(result.standardError)")
        let show = try run(["profile", "show", "leo"], in: folder).standardOutput
        #expect(show.hasPrefix("Name: Leo\nAge: 5\nInterests: animals, dragons\nVoice: en-us\nSpeed: 140\nPitch: 60\nVolume: 80\nText size: accessibility1\n"))

        // The first bad line stops it, by its number; the lines after it never move into other fields.
        let bad = try run(["profile", "add"], input: "Ann\nabc\nanimals\n", in: folder)
        #expect(bad.status == 1)
        #expect(bad.standardError.contains("nothing was saved: line 2 (Age): \"abc\" is not a number"), "\(bad.standardError)")
        #expect(try run(["profile", "show", "Ann"], in: folder).standardError.contains("there is no profile named \"Ann\""))
    }

    @Test func editAndRemoveSayWhatTheyDo() throws {
        let folder = try TemporaryFolder("profile-cli")
        defer { folder.remove() }
        _ = try run(["profile", "add", "--name", "Mia", "--age", "7"], in: folder)
        let edited = try run(["profile", "edit", "mia", "--age", "8", "--theme", "dark"], in: folder)
        #expect(edited.status == 0, "\(edited.standardError)")
        #expect(try run(["profile", "show", "Mia"], in: folder).standardOutput.contains("Age: 8\n"))
        // From a pipe: an empty line keeps a value; the end of input keeps the rest.
        let piped = try run(["profile", "edit", "Mia"], input: "\n9\nmusic\n", in: folder)
        #expect(piped.status == 0, "\(piped.standardError)")
        let shown = try run(["profile", "show", "Mia"], in: folder).standardOutput
        #expect(shown.hasPrefix("Name: Mia\nAge: 9\nInterests: music\n"))
        #expect(shown.contains("Theme: dark\n"))

        _ = try run(["bench", "log", "record-read", "--profile", "Mia", "--story", "fox", "--count", "2"], in: folder)
        let declined = try run(["profile", "remove", "Mia"], input: "no\n", in: folder)
        #expect(declined.standardOutput == "Not removed: Mia is kept.\n")
        let removed = try run(["profile", "remove", "Mia"], input: "yes\n", in: folder)
        #expect(removed.status == 0)
        #expect(removed.standardOutput == "Removed Mia's profile and settings, 2 finished reads, 0 reading positions and 0 favourites.\n")
        #expect(try run(["history"], in: folder).standardOutput == "No story has been finished yet.\n")
        let last = try run(["profile", "remove", "Reader", "--yes"], in: folder)
        #expect(last.status == 1)
        #expect(last.standardError.contains("is the only profile and cannot be removed"))
    }

    @Test func historyListsReadsNewestFirstAsTextAndJSON() throws {
        let folder = try TemporaryFolder("profile-cli")
        defer { folder.remove() }
        _ = try run(["profile", "add", "--name", "Mia", "--age", "7"], in: folder)
        _ = try run(["bench", "log", "record-read", "--profile", "Mia", "--story", "fox"], in: folder)
        _ = try run(["bench", "log", "record-read", "--profile", "Reader", "--story", "the-lighthouse-cat"], in: folder)
        let text = try run(["history"], in: folder).standardOutput.split(separator: "\n")
        #expect(text.count == 2)
        #expect(text[0].hasSuffix("  Reader  The Lighthouse Cat"))
        #expect(text[1].hasSuffix("  Mia  fox"))
        let json = try run(["history", "--profile", "mia", "--json"], in: folder)
        let entries = try #require(try JSONSerialization.jsonObject(with: Data(json.standardOutput.utf8)) as? [[String: Any]])
        #expect(entries.count == 1)
        #expect(entries.first?["story"] as? String == "fox")
        #expect(entries.first?["profile"] as? String == "Mia")
        #expect(entries.first?["title"] == nil)  // "fox" is not in the library
        #expect(try run(["history", "--profile", "Nobody"], in: folder).status == 1)
    }

    @Test func listWithAProfileShowsReadCountsAndFavourites() throws {
        let folder = try TemporaryFolder("profile-cli")
        defer { folder.remove() }
        _ = try run(["bench", "log", "record-read", "--profile", "Reader", "--story", "bedtime-for-bear", "--count", "3"], in: folder)
        _ = try run(["bench", "log", "favourite", "--profile", "Reader", "--story", "bedtime-for-bear"], in: folder)
        let json = try run(["list", "--profile", "reader", "--json"], in: folder)
        #expect(json.status == 0, "\(json.standardError)")
        let stories = try #require(try JSONSerialization.jsonObject(with: Data(json.standardOutput.utf8)) as? [[String: Any]])
        let bear = try #require(stories.first { $0["id"] as? String == "bedtime-for-bear" })
        #expect(bear["readCount"] as? Int == 3)
        #expect(bear["favourite"] as? Bool == true)
        let others = stories.filter { $0["id"] as? String != "bedtime-for-bear" }
        #expect(!others.isEmpty)
        #expect(others.allSatisfy { $0["readCount"] as? Int == 0 && $0["favourite"] as? Bool == false })

        let lines = try run(["list", "--profile", "Reader"], in: folder).standardOutput.split(separator: "\n")
        #expect(lines.first { $0.hasPrefix("bedtime-for-bear\t") }?.hasSuffix("\t3\tfavourite") == true)
        let plain = try run(["list", "--json"], in: folder).standardOutput
        #expect(!plain.contains("readCount"))
        let missing = try run(["list", "--profile", "Nobody"], in: folder)
        #expect(missing.status == 1)
        #expect(missing.standardError.contains("there is no profile named \"Nobody\""))
    }

    @Test func aFileThatIsNotADatabaseIsReportedAndKept() throws {
        let folder = try TemporaryFolder("profile-cli")
        defer { folder.remove() }
        let file = try folder.write("storyreader.sqlite", "my notes\n")
        let result = try run(["profile", "list"], in: folder)
        #expect(result.status == 1)
        #expect(result.standardError.contains("is not a storyreader database"))
        #expect(result.standardError.contains("move it aside"))
        #expect(try String(contentsOf: file, encoding: .utf8) == "my notes\n")
    }

    @Test func aDataFolderThatCannotBeCreatedIsNamed() throws {
        let folder = try TemporaryFolder("profile-cli")
        defer { folder.remove() }
        try folder.write("file", "x")
        let result = try StoryReaderProcess.run(["profile", "list", "--data-dir", folder.path + "/file/data"])
        #expect(result.status == 1)
        #expect(result.standardError.contains("the data folder \(folder.path)/file/data cannot be written (\(folder.path)/file is a file, not a folder)"))
        #expect(result.standardError.contains("--data-dir"))
    }

    /// A folder without write permission: as root (which ignores permission bits) the program runs
    /// as `nobody` through runuser; as an ordinary user it runs directly.
    @Test(arguments: [false, true])
    func aDataFolderWithoutWritePermissionIsNamed(_ missingSubfolder: Bool) throws {
        let folder = try TemporaryFolder("readonly")
        defer {
            chmod(folder.path, 0o755)
            folder.remove()
        }
        let asRoot = geteuid() == 0
        if asRoot {
            guard FileManager.default.isExecutableFile(atPath: "/usr/sbin/runuser") else { return }
            chmod(folder.path, 0o755)  // root owns it: nobody can read it but not write it
        } else {
            chmod(folder.path, 0o555)
        }
        let target = missingSubfolder ? folder.path + "/new" : folder.path
        let process = Process()
        process.executableURL = URL(fileURLWithPath: asRoot ? "/usr/sbin/runuser" : TestPaths.binary.path)
        process.arguments = (asRoot ? ["-u", "nobody", "--", TestPaths.binary.path] : []) + ["profile", "list", "--data-dir", target]
        let error = Pipe()
        process.standardError = error
        process.standardOutput = FileHandle.nullDevice
        try process.run()
        let message = String(decoding: error.fileHandleForReading.readDataToEndOfFile(), as: UTF8.self)
        process.waitUntilExit()
        #expect(process.terminationStatus == 1)
        #expect(message.contains("the data folder \(target) cannot be written"), "\(message)")
        #expect(message.contains("make it writable (chmod u+w), or choose another folder with --data-dir"))
        if missingSubfolder { #expect(message.contains("\(folder.path) is not writable")) }
        #expect(!FileManager.default.fileExists(atPath: folder.path + "/storyreader.sqlite"))
    }
}
