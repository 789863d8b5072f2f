import Foundation
import StoryKit
import StoryKitTestSupport
import Testing

/// The adversarial run's read-along books (issue 43), imported and used as a family would, each
/// command under strace: a `book.mp3` that is a live HLS playlist of a missing segment (it froze
/// `read`, `show`, `list --json` and `export`), an HLS playlist naming an MP3 outside the book by
/// absolute path (it was played), an ffconcat script naming itself (it recursed). Every command
/// ends, the book is read by eSpeak NG with one notice naming the file, and the trace shows that
/// no file outside the book was opened and that the book's audio was opened only beneath its folder.
@Suite struct HostileBookTests {
    @Test(arguments: HostileRecordings.Kind.allCases)
    func aHostileReadAlongBookNeverHangsNorReachesOutside(kind: HostileRecordings.Kind) throws {
        guard let strace = RequiredTool.find("strace", package: "strace", for: "tracing the files the program opens") else { return }
        let folder = try TemporaryFolder("hostile-book")
        defer { folder.remove() }
        let outside = folder.path + "/outside"
        try FileManager.default.createDirectory(atPath: outside, withIntermediateDirectories: true)
        // The file a playlist names by absolute path: a real MP3 (the live playlist's is missing).
        let target = outside + "/elsewhere.mp3"
        if kind != .liveHLS {
            let file = try Mp3ExportFile(path: target, tags: AudioTags(title: "Elsewhere", language: "en"))
            let tone = try Chirp.write(outside + "/tone.wav", seconds: 30)
            _ = try tone.withUnsafeBufferPointer { try file.write($0) }
            try file.close()
        }
        let epub = try HostileRecordings.book(in: folder.url, audio: kind.contents(name: "book.mp3", outside: target))
        let data = folder.path + "/data"
        let imported = try StoryReaderProcess.run(["import", epub.path], dataDirectory: data)
        #expect(imported.status == 0, "\(imported.standardError)")
        let stories = data + "/stories"
        #expect(FileManager.default.fileExists(atPath: stories + "/" + HostileRecordings.importedAudio()))

        var traces: [String: String] = [:]
        func traced(_ name: String, _ arguments: [String]) throws -> ProcessResult {
            let log = folder.path + "/\(name).strace"
            // Bounded: a command still going after 60 s is stopped and fails (they hung for ever).
            let result = try StoryReaderProcess.run(
                arguments, dataDirectory: data, timeout: 60,
                tracer: [strace.path, "-f", "-qq", "-e", "trace=open,openat,openat2,creat,execve,connect", "-o", log])
            #expect(result.status == 0, "\(name): \(result.standardError)")
            traces[name] = (try? String(contentsOfFile: log, encoding: .utf8)) ?? ""
            return result
        }
        let read = try traced("read", ["read", HostileRecordings.storyID, "--no-audio", "--events", "json", "--from-start"])
        let events = read.standardOutput.split(separator: "\n").compactMap { try? JSONSerialization.jsonObject(with: Data($0.utf8)) as? [String: Any] }
        let sentences = events.filter { $0["type"] as? String == "sentence" }
        #expect(sentences.count == 5, "\(read.standardOutput)")
        #expect(sentences.allSatisfy { $0["source"] as? String == "synthesis" }, "read by eSpeak NG, never from the playlist's target")
        let notices = read.standardError.split(separator: "\n")
        #expect(notices.count == 1, "\(read.standardError)")
        #expect(notices.first?.contains("1-book.mp3: not a recording a book may hold (MP3, MP4 or M4A, Ogg, WAV or FLAC)") == true, "\(read.standardError)")
        #expect(notices.first?.contains("eSpeak NG") == true, "\(read.standardError)")

        let shown = try traced("show", ["show", HostileRecordings.storyID])
        #expect(shown.standardOutput.contains("Recording: "), "\(shown.standardOutput)")
        let listed = try traced("list", ["list", "--json"])
        #expect(listed.standardOutput.contains(HostileRecordings.storyID))
        let wav = folder.path + "/night.wav"
        _ = try traced("export", ["export", HostileRecordings.storyID, "--to", wav])
        #expect(FileManager.default.fileExists(atPath: wav))

        for (name, trace) in traces {
            let lines = trace.split(separator: "\n")
            #expect(lines.contains { $0.contains("execve(") }, "\(name): the trace is of the program")
            #expect(!lines.contains { $0.contains(outside + "/") }, "\(name) opened a file outside the book: \(lines.filter { $0.contains(outside) })")
            // (The export's workers talk to it over loopback.)
            let network = lines.filter { $0.contains("connect(") && !$0.contains("AF_UNIX") && !$0.contains("\"127.0.0.1\"") }
            #expect(network.isEmpty, "\(name) reached beyond this machine: \(network)")
            // The book's audio is opened only by openat2 beneath the story's folder (RESOLVE_BENEATH).
            let audio = lines.filter { $0.contains("1-book.mp3") }
            #expect(audio.allSatisfy { $0.contains("openat2(") && $0.contains("RESOLVE_BENEATH") }, "\(name): \(audio)")
        }
        #expect(traces["read"]?.contains("1-book.mp3") == true, "the book's audio was looked at, by openat2")
    }

    /// The adversarial run's FLAC of silence (3.2 MB that played 50 hours; its WAV export wrote
    /// 4.2 GB in 45 s), here two hours in some 24 KB: refused by name, the book read by eSpeak NG,
    /// and its export the length of that reading.
    @Test func aFLACOfSilenceIsNotPlayedForHours() throws {
        let folder = try TemporaryFolder("flac-bomb-book")
        defer { folder.remove() }
        let audio = try HostileRecordings.flacSilence(folder.path + "/silence.flac", hours: 2)
        let epub = try HostileRecordings.book(in: folder.url, audio: audio, name: "book.flac")
        let data = folder.path + "/data"
        let imported = try StoryReaderProcess.run(["import", epub.path], dataDirectory: data)
        #expect(imported.status == 0, "\(imported.standardError)")
        let read = try StoryReaderProcess.run(
            ["read", HostileRecordings.storyID, "--no-audio", "--events", "json", "--from-start"], dataDirectory: data, timeout: 60)
        #expect(read.status == 0, "\(read.standardError)")
        #expect(!read.standardOutput.contains(#""source":"recording""#), "\(read.standardOutput)")
        let notices = read.standardError.split(separator: "\n")
        #expect(notices.count == 1, "\(read.standardError)")
        #expect(
            notices.first?.contains("1-book.flac: it would play longer than a recording of its size can: refused as a decompression bomb") == true,
            "\(read.standardError)")
        let wav = folder.path + "/night.wav"
        let export = try StoryReaderProcess.run(["export", HostileRecordings.storyID, "--to", wav], dataDirectory: data, timeout: 120)
        #expect(export.status == 0, "\(export.standardError)")
        // Five short sentences by eSpeak NG: some seconds (22,050 samples of 2 bytes a second), not hours.
        let bytes = try #require(try FileManager.default.attributesOfItem(atPath: wav)[.size] as? Int)
        #expect(bytes < 60 * 22_050 * 2, "\(bytes) bytes")
        let shown = try StoryReaderProcess.run(["show", HostileRecordings.storyID], dataDirectory: data, timeout: 60)
        #expect(!shown.standardOutput.contains("Recording: 2:00:00") && !shown.standardOutput.contains("hour"), "\(shown.standardOutput)")
    }
}
