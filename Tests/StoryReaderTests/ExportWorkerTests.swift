import Foundation
import StoryKit
import StoryKitTestSupport
import Testing

/// The hidden `export-worker` as an export drives it: it says it is ready, then reads its run of
/// sentences from its standard input, and says exactly that run.
@Suite struct ExportWorkerTests {
    /// Runs a worker on the bundled story `story`, sends `input` once it is ready, and returns
    /// its status and standard output.
    func worker(_ story: String, input: Data) throws -> (status: Int32, output: Data) {
        let process = Process()
        process.executableURL = TestPaths.binary
        process.arguments = ["export-worker", "--stories", TestPaths.stories.path, story, "--rate", "300", "--pitch", "50", "--volume", "100", "--voice", "en"]
        var environment = ProcessInfo.processInfo.environment
        environment["STORYREADER_DATA_DIR"] = NSTemporaryDirectory() + "storyreader-worker-\(UUID().uuidString.prefix(8))"
        process.environment = environment
        let output = Pipe()
        let commands = Pipe()
        process.standardOutput = output
        process.standardInput = commands
        try process.run()
        // Ready first: the one byte it sends before it is told anything.
        let ready = output.fileHandleForReading.readData(ofLength: 1)
        #expect(ready == Data("R".utf8))
        try commands.fileHandleForWriting.write(contentsOf: input)
        try commands.fileHandleForWriting.close()
        let rest = output.fileHandleForReading.readDataToEndOfFile()
        process.waitUntilExit()
        return (process.terminationStatus, rest)
    }

    /// The records a worker sent: the sentences begun, the samples, whether it ended.
    func records(_ data: Data) -> (sentences: [Int], samples: Int, ended: Bool) {
        let bytes = [UInt8](data)
        var at = 0
        func number(_ size: Int) -> Int {
            defer { at += size }
            return (0..<size).reduce(0) { $0 | Int(bytes[at + $1]) << (8 * $1) }
        }
        var sentences: [Int] = []
        var samples = 0
        var ended = false
        while at < bytes.count {
            let tag = bytes[at]
            at += 1
            switch tag {
            case UInt8(ascii: "P"):
                let count = number(4)
                samples += count
                at += count * 2
            case UInt8(ascii: "S"):
                sentences.append(number(4))
                at += 8
            case UInt8(ascii: "W"): at += 16
            case UInt8(ascii: "E"):
                at += 8
                ended = true
            default:
                Issue.record("unknown record \(tag) at \(at - 1)")
                return (sentences, samples, ended)
            }
        }
        return (sentences, samples, ended)
    }

    @Test func aWorkerSaysTheRunItIsSentAndNothingElse() throws {
        var run = Data()
        for bound in [2, 5] { withUnsafeBytes(of: UInt64(bound).littleEndian) { run.append(contentsOf: $0) } }
        let (status, output) = try worker("pip", input: run)
        #expect(status == 0)
        let said = records(output)
        #expect(said.sentences == [2, 3, 4])
        #expect(said.samples > 22050, "three sentences of speech")
        #expect(said.ended)
    }

    @Test func aWorkerSentNoRunEndsAtOnceSayingNothing() throws {
        let (status, output) = try worker("pip", input: Data())
        #expect(status == 0)
        #expect(output.isEmpty)
    }

    @Test func aRunOutsideTheStoryIsRefused() throws {
        var run = Data()
        for bound in [3, 9999] { withUnsafeBytes(of: UInt64(bound).littleEndian) { run.append(contentsOf: $0) } }
        let (status, output) = try worker("pip", input: run)
        #expect(status != 0)
        #expect(output.isEmpty)
    }
}
