import Foundation
import StoryKit
import StoryKitTestSupport
import Testing

/// The REPL with real speech: eSpeak NG through the narration player onto an ALSA device (a `file`
/// PCM the test defines), interface speech on the same device with the queue's priorities.
@Suite(.serialized) struct ReplSpeechTests {
    @Test func aStoryIsReadAloudOnTheDeviceAndItsReadCountAnnounced() throws {
        let fixture = try ReplFixture(withProfiles: true)
        defer { fixture.remove() }
        let device = try ALSATestDevice(in: fixture.folder)
        let arguments = ["--stories", fixture.stories, "--data-dir", fixture.data, "--device", ALSATestDevice.name, "--profile", "Maya"]
        let result = try StoryReaderProcess.run(
            arguments, input: "read tiny fox\nwait\nquit\n",
            environment: device.environment, dataDirectory: fixture.data)
        #expect(result.status == 0, "\(result.standardError)")
        #expect(!result.standardOutput.contains("cannot open audio device"), "\(result.standardOutput)")
        for sentence in ["The tiny fox woke up.", "She looked for the moon.", "The moon was in the pond.", "The fox said goodnight."] {
            #expect(result.standardOutput.contains(sentence + "\n"), "\(sentence)")
        }
        #expect(result.standardOutput.contains("The end. Maya, you have read The Tiny Fox once."), "\(result.standardOutput)")
        // What reached the device is speech: seconds of it, and loud enough.
        let samples = try device.samples()
        #expect(samples.count > SpeechAudioFormat.sampleRate * 5, "\(samples.count) samples")
        let loud = samples.filter { abs(Int($0)) > 1000 }.count
        #expect(loud > SpeechAudioFormat.sampleRate / 2, "\(loud) loud samples of \(samples.count)")
    }

    /// Paced silence (no such device): the story runs in real time, so lines can arrive while it
    /// is being read. An answer (`where`) and an error each pause the story at once, are said, and
    /// the story goes on from the word by itself.
    @Test func anAnswerAndAnErrorAreSaidAtOnceAndTheStoryGoesOnAfterEach() throws {
        let fixture = try ReplFixture(withProfiles: true)
        defer { fixture.remove() }
        let log = fixture.folder.url.appendingPathComponent("speech.log").path
        let arguments = ["--stories", fixture.stories, "--data-dir", fixture.data, "--device", "no-such-device", "--profile", "Maya"]
        let run = try ScriptedRun(arguments: arguments, environment: ["STORYREADER_SPEECH_LOG": log], dataDirectory: fixture.data)
        func trace() -> [String] {
            ((try? String(contentsOfFile: log, encoding: .utf8)) ?? "").split(separator: "\n").map(String.init)
        }
        func waitFor(_ what: String, _ condition: ([String]) -> Bool) throws {
            let deadline = Date().addingTimeInterval(20)
            while !condition(trace()) {
                if Date() > deadline { throw ScriptedRun.Timeout(what: what, trace: trace()) }
                Thread.sleep(forTimeInterval: 0.02)
            }
        }
        run.send("read tiny fox")
        try waitFor("the story starts") { $0.contains("start story: The Tiny Fox") }
        Thread.sleep(forTimeInterval: 0.3)
        run.send("where")
        try waitFor("the answer is said") { $0.contains { $0.hasPrefix("start text: The Tiny Fox, reading") } }
        try waitFor("the story goes on") { $0.filter { $0 == "start story: The Tiny Fox" }.count == 2 }
        run.send("nxt")
        try waitFor("the error is said") { $0.contains { $0.hasPrefix("start important: I don't know 'nxt'") } }
        run.send("wait")
        run.send("quit")
        let result = try run.finish()
        let lines = trace()
        #expect(result.status == 0, "\(result.standardError)")

        let answer = try #require(lines.firstIndex { $0.hasPrefix("start text: The Tiny Fox, reading") })
        let error = try #require(lines.firstIndex { $0.hasPrefix("start important: I don't know 'nxt'") })
        // Each held the story first, and was followed by the story going on.
        for said in [answer, error] {
            #expect(lines[said - 2] == "interrupt story: The Tiny Fox" && lines[said - 1] == "story held", "\(lines)")
            #expect(lines[(said + 1)...].first { $0.hasPrefix("start ") } == "start story: The Tiny Fox", "\(lines)")
        }
        // Once reading, nothing asked for is dropped (the greeting, left waiting when the first
        // line came, is: stale).
        let storyStart = try #require(lines.firstIndex(of: "start story: The Tiny Fox"))
        #expect(!lines[storyStart...].contains { $0.hasPrefix("drop ") }, "nothing asked for is dropped: \(lines)")
        #expect(result.standardOutput.contains("The end. Maya, you have read The Tiny Fox once."), "\(result.standardOutput)")
        // Every sentence was read once: each hold kept the place.
        for sentence in ["The tiny fox woke up.", "She looked for the moon.", "The moon was in the pond.", "The fox said goodnight."] {
            #expect(result.standardOutput.components(separatedBy: sentence + "\n").count - 1 == 1, "\(sentence): \(result.standardOutput)")
        }
    }
}

/// A `storyreader` run whose input the test writes line by line, while it runs.
final class ScriptedRun: @unchecked Sendable {
    struct Timeout: Error, CustomStringConvertible {
        var what: String
        var trace: [String]
        var description: String { "timed out waiting for \(what); speech log: \(trace)" }
    }

    private let process = Process()
    private let input = Pipe()
    private let output = Pipe()
    private let error = Pipe()
    private var collected = (Data(), Data())
    private let group = DispatchGroup()
    private let lock = NSLock()

    init(arguments: [String], environment extra: [String: String], dataDirectory: String) throws {
        process.executableURL = TestPaths.binary
        process.arguments = arguments
        process.currentDirectoryURL = TestPaths.repository
        var environment = ProcessInfo.processInfo.environment
        environment["COLUMNS"] = "80"
        environment["NO_COLOR"] = "1"
        environment["STORYREADER_DATA_DIR"] = dataDirectory
        for (key, value) in extra { environment[key] = value }
        process.environment = environment
        process.standardInput = input
        process.standardOutput = output
        process.standardError = error
        try process.run()
        DispatchQueue.global().async(group: group) { [self] in
            let data = output.fileHandleForReading.readDataToEndOfFile()
            lock.lock()
            collected.0 = data
            lock.unlock()
        }
        DispatchQueue.global().async(group: group) { [self] in
            let data = error.fileHandleForReading.readDataToEndOfFile()
            lock.lock()
            collected.1 = data
            lock.unlock()
        }
    }

    func send(_ line: String) { input.fileHandleForWriting.write(Data((line + "\n").utf8)) }

    struct Result {
        var status: Int32
        var standardOutput: String
        var standardError: String
    }

    func finish() throws -> Result {
        try? input.fileHandleForWriting.close()
        process.waitUntilExit()
        group.wait()
        lock.lock()
        defer { lock.unlock() }
        return Result(
            status: process.terminationStatus,
            standardOutput: String(decoding: collected.0, as: UTF8.self),
            standardError: String(decoding: collected.1, as: UTF8.self))
    }

    deinit { if process.isRunning { process.terminate() } }
}

/// `--no-speech`: for people who bring their own screen reader or braille display. The program
/// plays nothing at all (the ALSA device receives no sample) and shows the same captions.
@Suite struct NoSpeechTests {
    @Test func noSpeechPlaysNothingAndCaptionsTheSame() throws {
        let fixture = try ReplFixture(withProfiles: true)
        defer { fixture.remove() }
        let device = try ALSATestDevice(in: fixture.folder)
        let script = "read tiny fox\nwait\nquit\n"
        let spoken = try StoryReaderProcess.run(
            ["--stories", fixture.stories, "--data-dir", fixture.data, "--profile", "Maya", "--device", "storytest"],
            input: script, environment: device.environment)
        #expect(spoken.status == 0, "\(spoken.standardError)")
        let heard = try device.samples()
        #expect(heard.count > 22050, "with speech the device hears it")
        try? FileManager.default.removeItem(atPath: device.rawPath)
        let silent = try StoryReaderProcess.run(
            ["--stories", fixture.stories, "--data-dir", fixture.data, "--profile", "Maya", "--device", "storytest", "--no-speech"],
            input: script, environment: device.environment)
        #expect(silent.status == 0, "\(silent.standardError)")
        let played = FileManager.default.fileExists(atPath: device.rawPath) ? try device.samples().count : 0
        #expect(played == 0, "no sample was played")
        // The same captions, but the read count (one more read).
        let strip = { (text: String) in text.replacingOccurrences(of: "2 times", with: "once") }
        #expect(strip(silent.standardOutput) == spoken.standardOutput)
    }
}
