import Foundation
import StoryKitTestSupport
import Testing

/// `storyreader read STORY --profile NAME`: the child's finished reads and place are recorded.
@Suite struct ReadProfileTests {
    @Test func aFinishedReadIsCountedForTheChildAndShownInListAndHistory() throws {
        let data = try TemporaryFolder("read-profile")
        defer { data.remove() }
        let add = try StoryReaderProcess.run(["profile", "add", "--name", "Maya", "--age", "5"], dataDirectory: data.path)
        #expect(add.status == 0, "\(add.standardError)")

        for expected in 1...2 {
            let read = try StoryReaderProcess.run(["read", "snail", "--profile", "maya", "--no-audio"], dataDirectory: data.path)
            #expect(read.status == 0, "\(read.standardError)")
            let times = expected == 1 ? "once" : "\(expected) times"
            #expect(read.standardError.contains("Maya has read “The Snail Who Wanted to Race” \(times)"))
        }
        let list = try StoryReaderProcess.run(["list", "--profile", "Maya", "--json"], dataDirectory: data.path)
        let stories = try #require(try JSONSerialization.jsonObject(with: Data(list.standardOutput.utf8)) as? [[String: Any]])
        let counts = Dictionary(uniqueKeysWithValues: stories.map { ($0["id"] as? String ?? "", $0["readCount"] as? Int ?? -1) })
        #expect(counts["the-snail-who-wanted-to-race"] == 2)
        #expect(counts["the-lighthouse-cat"] == 0)

        let history = try StoryReaderProcess.run(["history", "--profile", "Maya"], dataDirectory: data.path)
        #expect(history.standardOutput.components(separatedBy: "The Snail Who Wanted to Race").count - 1 == 2)
    }

    @Test func exportingAWAVIsNotAReadAndAnUnknownChildIsAClearError() throws {
        let data = try TemporaryFolder("read-profile-wav")
        defer { data.remove() }
        _ = try StoryReaderProcess.run(["profile", "add", "--name", "Sam", "--age", "8"], dataDirectory: data.path)
        let wav = data.url.appendingPathComponent("snail.wav").path
        let export = try StoryReaderProcess.run(["read", "snail", "--profile", "Sam", "--wav", wav], dataDirectory: data.path)
        #expect(export.status == 0, "\(export.standardError)")
        #expect(FileManager.default.fileExists(atPath: wav))
        let list = try StoryReaderProcess.run(["list", "--profile", "Sam", "--json"], dataDirectory: data.path)
        let stories = try #require(try JSONSerialization.jsonObject(with: Data(list.standardOutput.utf8)) as? [[String: Any]])
        let snail = try #require(stories.first { $0["id"] as? String == "the-snail-who-wanted-to-race" })
        #expect(snail["readCount"] as? Int == 0)

        let unknown = try StoryReaderProcess.run(["read", "snail", "--profile", "Nobody", "--no-audio"], dataDirectory: data.path)
        #expect(unknown.status == 1)
        #expect(unknown.standardError.contains("Nobody"))
        #expect(unknown.standardError.contains("profile list"))
    }

    /// Reading in real time (paced silence: the device does not exist), interrupted after a few
    /// sentences: the next read resumes at the sentence reached.
    @Test func anInterruptedReadResumesAtItsSentence() throws {
        let data = try TemporaryFolder("read-profile-resume")
        defer { data.remove() }
        _ = try StoryReaderProcess.run(["profile", "add", "--name", "Ada", "--age", "7"], dataDirectory: data.path)

        let process = Process()
        process.executableURL = TestPaths.binary
        process.arguments = ["read", "lighthouse", "--profile", "Ada", "--rate", "450", "--data-dir", data.path]
        var environment = ProcessInfo.processInfo.environment
        environment["STORYREADER_AUDIO_DEVICE"] = "storyreader-no-such-device"
        process.environment = environment
        process.standardOutput = FileHandle.nullDevice
        process.standardError = FileHandle.nullDevice
        process.standardInput = FileHandle.nullDevice
        try process.run()
        Thread.sleep(forTimeInterval: 6)
        process.interrupt()
        process.waitUntilExit()

        let resumed = try StoryReaderProcess.run(["read", "lighthouse", "--profile", "Ada", "--no-audio", "--events", "json"], dataDirectory: data.path)
        #expect(resumed.status == 0, "\(resumed.standardError)")
        #expect(resumed.standardError.contains("resuming Ada's place at sentence"))
        let firstSentence = resumed.standardOutput.split(separator: "\n").first { $0.contains("\"sentence\"") }
        let start = try #require(
            firstSentence.flatMap { line in
                (try? JSONSerialization.jsonObject(with: Data(line.utf8)) as? [String: Any])?["start"] as? Int
            })
        #expect(start > 0, "the resumed read started at the beginning")

        // Finished now: the place is cleared, so the next read starts at the beginning.
        let again = try StoryReaderProcess.run(["read", "lighthouse", "--profile", "Ada", "--no-audio", "--events", "json"], dataDirectory: data.path)
        #expect(!again.standardError.contains("resuming"))
    }

    /// ALSA's `null` device takes audio as fast as it is given (a 16-minute story once "finished"
    /// in 4 s and was counted). The reader is paced by the clock whatever the device does, so a
    /// long story is still being read after seconds, and stopping it keeps the place uncounted.
    @Test func theNullDeviceIsReadAtSpeakingPaceAndNotCountedEarly() throws {
        let data = try TemporaryFolder("read-null-device")
        defer { data.remove() }
        _ = try StoryReaderProcess.run(["profile", "add", "--name", "Ada", "--age", "7"], dataDirectory: data.path)
        let process = Process()
        process.executableURL = TestPaths.binary
        process.arguments = ["read", "lighthouse", "--profile", "Ada", "--rate", "450", "--device", "null", "--data-dir", data.path]
        process.standardOutput = FileHandle.nullDevice
        process.standardError = FileHandle.nullDevice
        process.standardInput = FileHandle.nullDevice
        try process.run()
        Thread.sleep(forTimeInterval: 8)
        // About 1,000 words at 450 a minute: more than two minutes of speech.
        #expect(process.isRunning, "the story ended within 8 s: the device was not paced")
        process.interrupt()
        process.waitUntilExit()
        let list = try StoryReaderProcess.run(["list", "--profile", "Ada", "--json"], dataDirectory: data.path)
        let stories = try #require(try JSONSerialization.jsonObject(with: Data(list.standardOutput.utf8)) as? [[String: Any]])
        let lighthouse = try #require(stories.first { $0["id"] as? String == "the-lighthouse-cat" })
        #expect(lighthouse["readCount"] as? Int == 0)
        let resumed = try StoryReaderProcess.run(["read", "lighthouse", "--profile", "Ada", "--no-audio", "--events", "json"], dataDirectory: data.path)
        #expect(resumed.standardError.contains("resuming Ada's place at sentence"), "\(resumed.standardError)")
    }
}
