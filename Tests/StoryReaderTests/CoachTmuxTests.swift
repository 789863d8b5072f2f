import Foundation
import StoryKit
import StoryKitTestSupport
import Testing

#if canImport(Glibc)
    import Glibc
#endif

/// The read-along coach in the real reader under tmux (issue 45): `r` hands the story to the child,
/// the real capture path listens (ALSA's `file` plugin as the microphone, fed by this test through
/// a named pipe, so the microphone gives sound only when the test says: a reading, then silence),
/// and the speech log and the screen are read.
@Suite(.serialized)
struct CoachTmuxTests {
    /// A microphone the test speaks into: ALSA's `file` plugin reading a named pipe. A read waits
    /// while the pipe is empty (time does not pass for the coach), so what is heard, and when,
    /// is the test's to choose; opening the device opens the pipe, which `isOpen` tells.
    final class PipeMicrophone: Sendable {
        let path: String
        let alsa: ALSATestMicrophone
        private let writer = LockedValue<FileHandle?>(nil)

        init(in folder: TemporaryFolder) throws {
            path = folder.url.appendingPathComponent("mic.fifo").path
            #expect(mkfifo(path, 0o600) == 0)
            alsa = try ALSATestMicrophone(in: folder, rawPath: path)
            let writer = self.writer
            let path = self.path
            // Opening a pipe to write waits until the program opens it to read: the microphone.
            Thread.detachNewThread {
                let handle = FileHandle(forWritingAtPath: path)
                writer.withLock { $0 = handle }
            }
        }

        var isOpen: Bool { writer.withLock { $0 != nil } }

        func say(_ samples: Data) { writer.withLock { $0 }?.write(samples) }

        /// Bytes said and not yet taken by the microphone (`FIONREAD` on the pipe).
        var unread: Int {
            writer.withLock { handle in
                var count: Int32 = 0
                guard let handle, ioctl(handle.fileDescriptor, UInt(FIONREAD), &count) == 0 else { return 0 }
                return Int(count)
            }
        }

        /// Silence: the pipe ends, and the `file` plugin gives its slave's silence from then on.
        func close() {
            writer.withLock { handle in
                try? handle?.close()
                handle = nil
            }
        }
    }

    /// Words drawn underlined (the highlight of the word being heard) on the screen now.
    static func highlighted(_ tmux: TmuxSession) throws -> [String] {
        let styled = try tmux.tmux(["capture-pane", "-p", "-e", "-t", tmux.name])
        return styled.components(separatedBy: "\u{1B}[").compactMap { part in
            guard let end = part.firstIndex(of: "m") else { return nil }
            let parameters = part[..<end].split(separator: ";")
            guard parameters.contains("4") else { return nil }
            let text = part[part.index(after: end)...].trimmingCharacters(in: .whitespacesAndNewlines.union(.punctuationCharacters))
            return text.isEmpty ? nil : text
        }
    }

    static func waitForHighlight(_ tmux: TmuxSession, on word: String, seconds: Double = 30) throws -> [String] {
        let deadline = Date().addingTimeInterval(seconds)
        var last: [String] = []
        while Date() < deadline {
            last = try highlighted(tmux)
            if last.contains(word) { return last }
            Thread.sleep(forTimeInterval: 0.1)
        }
        Issue.record("the highlight never reached «\(word)»: \(last)\n\(try tmux.screen())")
        return last
    }

    @Test func theChildReadsTheCoachFollowsHelpsAndSaysTheTally() throws {
        let fixture = try ReplFixture(withProfiles: true)
        var tmux = TmuxSession()
        // Room for the whole passage and the reader's buttons.
        tmux.columns = 100
        tmux.rows = 40
        let microphone = try PipeMicrophone(in: fixture.folder)
        defer {
            microphone.close()
            tmux.kill()
            fixture.remove()
        }
        let clips = ReadCoachCommandTests.folder
        try fixture.folder.write(
            "stories/sense-and-sensibility.txt", try String(contentsOf: clips.appendingPathComponent("sense-and-sensibility.txt"), encoding: .utf8))
        // "And Mr. John Dashwood had then leisure": the reading, as the microphone's samples.
        let reading = fixture.folder.url.appendingPathComponent("reading.raw").path
        let sox = Process()
        sox.executableURL = URL(fileURLWithPath: "/usr/bin/sox")
        sox.arguments = [clips.appendingPathComponent(ReadingClips.names[0]).path, reading, "trim", "0", "2.5"]
        try sox.run()
        sox.waitUntilExit()
        #expect(sox.terminationStatus == 0)
        let temporary = fixture.folder.url.appendingPathComponent("tmp")
        try FileManager.default.createDirectory(at: temporary, withIntermediateDirectories: true)
        let environment = microphone.alsa.environment.merging([
            "STORYREADER_SPEECH_LOG": fixture.folder.path + "/speech.log", "TMPDIR": temporary.path,
        ]) { $1 }
        let exports = environment.map { "\($0.key)='\($0.value)'; export \($0.key); " }.joined()
        try tmux.start(
            script: exports + fixture.paneScript(subcommand: ["read", "sense"], extra: "--profile Maya --no-audio --rate 80 --mic storymic"))
        try tmux.waitFor("Reading Sense and Sensibility", seconds: 30)
        // The microphone is not opened before the child asks: the story's voice reads.
        fixture.waitForSpeechLog("the story's first sentence", seconds: 30) { $0.contains { $0.hasPrefix("story sentence 1") } }
        #expect(!microphone.isOpen, "the microphone was opened before r")

        try tmux.send("r")
        fixture.waitForSpeechLog("your turn", seconds: 30) { $0.contains("start message: Your turn: read it to me.") }
        let deadline = Date().addingTimeInterval(60)
        while !microphone.isOpen, Date() < deadline { Thread.sleep(forTimeInterval: 0.05) }
        #expect(microphone.isOpen, "r opens the microphone")
        try tmux.waitFor("[I read it myself: on, listening]", seconds: 10)

        // What the microphone hears while the program speaks is not the child's: the child reads
        // once "Your turn" is heard out (the speech log tells when the microphone hears them again).
        fixture.waitForSpeechLog("the microphone hears the child", seconds: 30) {
            guard let turn = $0.firstIndex(of: "start message: Your turn: read it to me.") else { return false }
            return $0[turn...].contains("microphone hears the child")
        }
        // The reading and a second of silence (shorter than the wait): a word is heard once the
        // decoder has heard it end. The highlight follows to the last word read. (The pipe gave
        // nothing while the program spoke: no chunk of its speech is read, so none is muted after it.)
        microphone.say(try Data(contentsOf: URL(fileURLWithPath: reading)) + Data(count: ReadingCoach.sampleRate * 2))
        _ = try Self.waitForHighlight(tmux, on: "leisure")
        try tmux.send("w")
        fixture.waitForSpeechLog("where am I", seconds: 10) { $0.contains { $0.contains("your turn to read at ‘leisure’") } }

        // Three seconds more (four in all): the next word is said for the child in the story's voice.
        microphone.say(Data(count: ReadingCoach.sampleRate * 2 * 3))
        fixture.waitForSpeechLog("the help word", seconds: 30) { $0.contains("start message: to") }
        // The microphone hears the help word through the speaker: it is fed as silence, not read.
        fixture.waitForSpeechLog("the help word is not the child's", seconds: 10) { log in
            guard let help = log.firstIndex(of: "start message: to") else { return false }
            let program = "microphone hears the program: fed as silence"
            // Said while the microphone was told the program speaks (already, or as it began).
            return log[..<help].last { $0.hasPrefix("microphone hears") } == program || log[help...].first { $0.hasPrefix("microphone hears") } == program
        }
        _ = try Self.waitForHighlight(tmux, on: "to")

        // r again: the microphone is let go of, and the tally said.
        try tmux.send("r")
        let tally = "You read 7 words by yourself, and I helped with 1."
        fixture.waitForSpeechLog("the tally", seconds: 10) { $0.contains { $0.hasSuffix(tally) } }
        microphone.close()
        try tmux.waitFor("[I read it myself: off]", seconds: 10)
        try tmux.send("q")
        try tmux.waitFor("DONE", seconds: 30)
        #expect(fixture.file("status").trimmingCharacters(in: .whitespacesAndNewlines) == "0")
        // Nothing of the voice is kept: no audio in the data folder, nothing in the temporary one.
        try ReadCoachCommandTests.expectNothingOfTheVoiceKept(dataDirectory: fixture.data, temporary: temporary)
        let log = fixture.speechLog()
        #expect(log.filter { $0 == "start message: Your turn: read it to me." }.count == 1, "\(log)")
    }
}
