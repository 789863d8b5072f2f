import Foundation
import StoryKit
import StoryKitTestSupport
import Testing

/// An MP3 export made by several processes, each encoding its own share with its own LAME encoder
/// on its own core: one MP3 file with one Info frame whose LAME tag makes FFmpeg decode it to the
/// WAV's length, no frame at a join taking bits from the share before it, nothing heard there.
@Suite(.serialized) struct ExportMp3JoinTests {
    @Test func sharesEncodedApartJoinWithoutAClick() throws {
        let ffmpeg = try #require(RequiredTool.find("ffmpeg", package: "ffmpeg", for: "decoding the joined MP3"))
        let folder = try TemporaryFolder("mp3-join")
        defer { folder.remove() }
        let story = "the-moon-who-lost-her-hum"  // no pictures: a caption cue for every narrated sentence
        let jobs = 3
        let mp3 = folder.url.appendingPathComponent("moon.mp3")
        let wav = folder.url.appendingPathComponent("moon.wav")
        try ExportJoinCheck.export(story, jobs: jobs, to: mp3, wav: wav)
        let samples = try ExportJoinCheck.decode(mp3, ffmpeg: ffmpeg, into: folder)
        let joins = try ExportJoinCheck.joins(story, jobs: jobs, captionsOf: mp3)
        ExportJoinCheck.expectNoClick(samples, reference: try WAVSamples.read(wav.path), joins: joins, format: "MP3")

        // The frames after the ID3 tag: the Info frame, then the shares' frames, end to end.
        let bytes = [UInt8](try Data(contentsOf: mp3))
        let tagSize = 10 + (0..<4).reduce(0) { $0 << 7 | Int(bytes[6 + $1] & 0x7F) }
        var frames: [Range<Int>] = []
        var offset = tagSize
        let bitrates = [0, 8, 16, 24, 32, 40, 48, 56, 64, 80, 96, 112, 128, 144, 160]
        while offset + 4 <= bytes.count {
            try #require(bytes[offset] == 0xFF && bytes[offset + 1] == 0xF3, "an MPEG-2 layer III frame at byte \(offset)")
            let size = 72_000 * bitrates[Int(bytes[offset + 2] >> 4)] / 22050 + Int(bytes[offset + 2] >> 1 & 1)
            frames.append(offset..<(offset + size))
            offset += size
        }
        #expect(offset == bytes.count, "the file ends on a whole frame")
        let info = Array(bytes[frames[0]])
        func bigEndian(_ at: Int, _ count: Int) -> Int { (0..<count).reduce(0) { $0 << 8 | Int(info[at + $1]) } }
        #expect(String(decoding: info[13..<17], as: UTF8.self) == "Info")
        #expect(bigEndian(21, 4) == frames.count - 1, "the Info frame counts the audio frames")
        #expect(bigEndian(25, 4) == bytes.count - tagSize, "the Info frame counts the bytes")
        #expect(String(decoding: info[29..<33], as: UTF8.self) == "LAME")
        let delays = bigEndian(29 + 21, 3)
        #expect(delays >> 12 == 576, "LAME's encoder delay")
        // Decoders trim the delay (and their own 529) and the padding: what is left is the speech.
        let trimmed: Int = (frames.count - 1) * 576 - 576 - (delays & 0xFFF)
        #expect(trimmed == samples.count)
        // Each share's first frame (a join is on a frame: the captions time it to the millisecond)
        // has main_data_begin 0: it takes no bits from the share before it.
        for join in joins {
            let frame = frames[1 + Int((Double(join) / 576).rounded())]
            #expect(bytes[frame.lowerBound + 4] == 0, "main_data_begin of the frame at the join at \(join) samples")
        }
    }
}
