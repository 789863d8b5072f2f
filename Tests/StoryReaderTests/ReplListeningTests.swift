import Foundation
import StoryKit
import StoryKitTestSupport
import Testing

@testable import StoryReader

#if canImport(Glibc)
    import Glibc
#endif

/// The coach's one listening loop (`ReplListening`) on the real capture path: ALSA's `file` plugin
/// reading a named pipe the test writes to (`CoachTmuxTests.PipeMicrophone`), so the microphone
/// gives sound only when the test says. In this process: ALSA finds the test's device through
/// `ALSA_CONFIG_PATH` (the system's configuration, then the device), set for the suite's run.
@Suite(.serialized)
struct ReplListeningTests {
    /// "And Mr. John Dashwood had then leisure to consider …": the passage's first sentence.
    static let sentence = CoachSentence(
        id: 0,
        words: "And Mr John Dashwood had then leisure to consider how much there might be prudently in his power to do for them".split(separator: " ")
            .map(String.init))

    /// The reading of "And Mr. John Dashwood had then leisure" (2.5 s) as the microphone's samples.
    static func reading() throws -> Data {
        let path = FileManager.default.temporaryDirectory.appendingPathComponent("listening-\(UUID().uuidString).raw").path
        defer { try? FileManager.default.removeItem(atPath: path) }
        let sox = Process()
        sox.executableURL = URL(fileURLWithPath: "/usr/bin/sox")
        sox.arguments = [ReadCoachCommandTests.folder.appendingPathComponent(ReadingClips.names[0]).path, path, "trim", "0", "2.5"]
        try sox.run()
        sox.waitUntilExit()
        #expect(sox.terminationStatus == 0)
        return try Data(contentsOf: URL(fileURLWithPath: path))
    }

    static func silence(seconds: Double) -> Data { Data(count: Int(Double(ReadingCoach.sampleRate) * seconds) * 2) }

    /// Runs `body` with the pipe microphone known to ALSA in this process.
    static func withMicrophone(_ body: (CoachTmuxTests.PipeMicrophone, TemporaryFolder) throws -> Void) throws {
        let folder = try TemporaryFolder("listening")
        defer { folder.remove() }
        let microphone = try CoachTmuxTests.PipeMicrophone(in: folder)
        defer { microphone.close() }
        let old = getenv("ALSA_CONFIG_PATH").map { String(cString: $0) }
        setenv("ALSA_CONFIG_PATH", microphone.alsa.environment["ALSA_CONFIG_PATH"]!, 1)
        defer { if let old { setenv("ALSA_CONFIG_PATH", old, 1) } else { unsetenv("ALSA_CONFIG_PATH") } }
        try body(microphone, folder)
    }

    /// How many of this process's descriptors are open on `path` (the pipe: the test's writing end,
    /// and the microphone's reading end while it is open).
    static func descriptors(on path: String) -> Int {
        let fds = (try? FileManager.default.contentsOfDirectory(atPath: "/proc/self/fd")) ?? []
        return fds.filter { (try? FileManager.default.destinationOfSymbolicLink(atPath: "/proc/self/fd/" + $0)) == path }.count
    }

    static func waitUntil(_ what: String, seconds: Double = 60, _ condition: () -> Bool) {
        let deadline = Date().addingTimeInterval(seconds)
        while !condition(), Date() < deadline { Thread.sleep(forTimeInterval: 0.02) }
        #expect(condition(), "\(what)")
    }

    /// The program's own speech (the help word said through the speaker, a key's answer) reaches
    /// the microphone: what it hears while the program speaks, and just after, is fed to the coach
    /// as silence. The child's reading said over the program's speech is not heard; the same
    /// reading after it is, each word at its time on the audio's clock (after the muted span).
    @Test func whatTheMicrophoneHearsWhileTheProgramSpeaksIsNotTheChildsReading() throws {
        try Self.withMicrophone { microphone, _ in
            let news = LockedValue<[CoachNews]>([])
            // The longest wait: no help comes in the test's silences.
            let listening = ReplListening(CoachListening(listening: 1, sentences: [Self.sentence], waitMilliseconds: 8000), device: ALSATestMicrophone.name) {
                item in news.withLock { $0.append(item) }
            }
            defer { listening.stop() }
            Self.waitUntil("the microphone is opened") { microphone.isOpen }
            let reading = try Self.reading()
            listening.programSpeaks(true)
            microphone.say(reading)
            // The program stops speaking once the microphone has taken all of it (the pipe holds 2 s).
            Self.waitUntil("the microphone took the reading") { microphone.unread == 0 }
            listening.programSpeaks(false)
            microphone.say(Self.silence(seconds: 0.5) + reading + Self.silence(seconds: 1.5))
            func heard() -> [(word: String, ms: Int)] {
                news.withLock { $0 }.compactMap { if case .event(.heard(let word, let ms, _), _) = $0 { (word.text, ms) } else { nil } }
            }
            Self.waitUntil("the reading after the program's speech is heard: \(heard())") { heard().contains { $0.word == "leisure" } }
            #expect(heard().map(\.word) == ["And", "Mr", "John", "Dashwood", "had", "then", "leisure"], "\(heard())")
            // Heard in the second reading: the first (2.5 s, said over the program's speech) was silence to the coach.
            #expect((heard().first?.ms ?? 0) >= 2500, "\(heard())")
        }
    }

    /// `stop` returns at once even while the microphone's read waits for sound (here, forever: the
    /// pipe is empty), and the capture device is closed on its own thread as that read returns;
    /// nothing more is told.
    @Test func stopClosesTheMicrophoneOnItsOwnThreadAsItsReadReturns() throws {
        try Self.withMicrophone { microphone, _ in
            let news = LockedValue<[CoachNews]>([])
            let listening = ReplListening(CoachListening(listening: 1, sentences: [Self.sentence], waitMilliseconds: 3000), device: ALSATestMicrophone.name) {
                item in news.withLock { $0.append(item) }
            }
            Self.waitUntil("the microphone is opened") { microphone.isOpen && Self.descriptors(on: microphone.path) == 2 }
            // The read waits on the empty pipe; stop does not wait for it.
            listening.stop()
            #expect(Self.descriptors(on: microphone.path) == 2, "still in its read")
            microphone.say(Self.silence(seconds: 0.1))
            Self.waitUntil("the microphone is closed") { Self.descriptors(on: microphone.path) == 1 }
            #expect(news.withLock { $0 }.isEmpty, "\(news.withLock { $0 })")
        }
    }
}
