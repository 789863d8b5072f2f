import Foundation
import StoryKit
import StoryKitTestSupport
import Testing

/// The hidden `export-worker` as an export drives it: it says it is ready, then reads its run of
/// sentences from its standard input, and says exactly that run.
@Suite struct ExportWorkerTests {
    /// Runs a worker on the bundled story `story`, sends `input` once it is ready, and returns
    /// its status and standard output.
    /// `standby`: started as `export-standby` and sent the same arguments on its input first, as
    /// an export starts its workers before it knows its story.
    func worker(_ story: String, input: Data, standby: Bool = false) throws -> (status: Int32, output: Data) {
        let process = Process()
        process.executableURL = TestPaths.binary
        let arguments = ["export-worker", "--stories", TestPaths.stories.path, story, "--rate", "300", "--pitch", "50", "--volume", "100", "--voice", "en"]
        process.arguments = standby ? ["export-standby"] : arguments
        var environment = ProcessInfo.processInfo.environment
        environment["STORYREADER_DATA_DIR"] = NSTemporaryDirectory() + "storyreader-worker-\(UUID().uuidString.prefix(8))"
        process.environment = environment
        let output = Pipe()
        let commands = Pipe()
        process.standardOutput = output
        process.standardInput = commands
        try process.run()
        if standby {
            let frame = Data(arguments.map { $0 + "\0" }.joined().utf8)
            try commands.fileHandleForWriting.write(contentsOf: withUnsafeBytes(of: UInt32(frame.count).littleEndian) { Data($0) } + frame)
            // Given its arguments, it shows as a worker (what ps, and the export tests, look for).
            let deadline = Date().addingTimeInterval(10)
            while !ProcessTree.commandLine(process.processIdentifier).contains("export-worker"), Date() < deadline { Thread.sleep(forTimeInterval: 0.01) }
            #expect(
                ProcessTree.commandLine(process.processIdentifier).contains("export-worker"),
                "the standby's command line reads export-worker once it is given its story")
        }
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

    @Test func aStandbyWorkerSaysTheRunItIsSentAsAWorkerStartedWithIt() throws {
        var run = Data()
        for bound in [2, 5] { withUnsafeBytes(of: UInt64(bound).littleEndian) { run.append(contentsOf: $0) } }
        let (status, output) = try worker("pip", input: run, standby: true)
        #expect(status == 0)
        #expect(records(output).sentences == [2, 3, 4])
        #expect(output == (try worker("pip", input: run)).output, "the same samples and events, byte for byte")
    }

    /// A standby worker not needed (a short story, a recording) ends when its input closes.
    @Test func aStandbyWorkerGivenNothingEndsAtOnceSayingNothing() throws {
        // Its input closed with nothing sent: what an export that needed no worker leaves it.
        let result = try StoryReaderProcess.run(["export-standby"], timeout: 60)
        #expect(result.standardOutput.isEmpty)
        #expect(result.standardError.isEmpty)
        #expect(result.status == 0)
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
