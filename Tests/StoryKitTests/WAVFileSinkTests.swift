import Foundation
import StoryKitTestSupport
import Testing

@testable import StoryKit

/// The WAV writer: nothing at the target until the file is whole, and RF64 past 4 GiB.
@Suite struct WAVFileSinkTests {
    static func samples(_ count: Int) -> [Int16] { (0..<count).map { Int16(truncatingIfNeeded: $0 &* 37) } }

    @Test func theTargetAppearsOnlyWhenClosed() throws {
        let folder = try TemporaryFolder("wav-rename")
        defer { folder.remove() }
        let target = folder.path + "/story.wav"
        let sink = try WAVFileSink(path: target)
        let audio = Self.samples(1000)
        _ = try audio.withUnsafeBufferPointer { try sink.write($0) }
        #expect(!FileManager.default.fileExists(atPath: target), "a file that looks whole exists before the end")
        #expect(FileManager.default.fileExists(atPath: sink.temporaryPath))
        try sink.close()
        let data = try Data(contentsOf: URL(fileURLWithPath: target))
        #expect(Array(data.prefix(44)) == WAVFileSink.header(dataBytes: 2000))
        #expect(data.count == 44 + 2000)
        #expect(!FileManager.default.fileExists(atPath: sink.temporaryPath))
    }

    @Test func aDiscardedOrDroppedExportLeavesNothing() throws {
        let folder = try TemporaryFolder("wav-discard")
        defer { folder.remove() }
        var sink: WAVFileSink? = try WAVFileSink(path: folder.path + "/a.wav")
        let audio = Self.samples(100)
        _ = try audio.withUnsafeBufferPointer { try sink!.write($0) }
        sink!.discard()
        sink = try WAVFileSink(path: folder.path + "/b.wav")
        _ = try audio.withUnsafeBufferPointer { try sink!.write($0) }
        sink = nil  // dropped without close: an error or a stop
        #expect(try FileManager.default.contentsOfDirectory(atPath: folder.path).isEmpty)
    }

    @Test func pastFourGibibytesTheHeaderIsRF64WithSixtyFourBitSizes() throws {
        let data = 5_000_000_000
        let header = WAVFileSink.header(dataBytes: data)
        #expect(header.count == 80)
        #expect(String(decoding: header[0..<4], as: UTF8.self) == "RF64")
        #expect(header[4..<8].allSatisfy { $0 == 0xFF })
        #expect(String(decoding: header[12..<16], as: UTF8.self) == "ds64")
        func u64(_ at: Int) -> Int { header[at..<at + 8].enumerated().reduce(0) { $0 | Int($1.element) << (8 * $1.offset) } }
        #expect(u64(20) == data + 72)
        #expect(u64(28) == data)
        #expect(u64(36) == data / 2)
        #expect(String(decoding: header[48..<52], as: UTF8.self) == "fmt ")
        #expect(String(decoding: header[72..<76], as: UTF8.self) == "data")
        // Just under the limit a plain RIFF header still holds it.
        #expect(WAVFileSink.header(dataBytes: WAVFileSink.riffDataLimit).count == 44)
        #expect(WAVFileSink.header(dataBytes: WAVFileSink.riffDataLimit + 2).count == 80)
    }

    @Test func aFileOverTheLimitIsRewrittenAsRF64WithItsSamplesIntact() throws {
        // The 4 GiB limit cannot be written in a test: the same path with a small threshold.
        let folder = try TemporaryFolder("wav-rf64")
        defer { folder.remove() }
        let target = folder.path + "/long.wav"
        let sink = try WAVFileSink(path: target, rf64Threshold: 1000)
        let audio = Self.samples(3_000_000)  // 6 MB: several blocks of the in-place move
        _ = try audio.withUnsafeBufferPointer { try sink.write($0) }
        try sink.close()
        let data = try Data(contentsOf: URL(fileURLWithPath: target))
        #expect(String(decoding: data[0..<4], as: UTF8.self) == "RF64")
        #expect(data.count == 80 + audio.count * 2)
        let written = data[80...].withUnsafeBytes { Array($0.bindMemory(to: Int16.self)) }
        #expect(written == audio)
    }
}
