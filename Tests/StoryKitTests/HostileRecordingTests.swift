import Foundation
import StoryKitTestSupport
import Testing

@testable import StoryKit

/// A book's recording is read only from inside the book, as audio, by a demuxer chosen from its
/// first bytes, within a deadline (issue 43): what FFmpeg's probing would have followed (an HLS
/// playlist, an ffconcat script) is refused before FFmpeg sees it, and says why.
@Suite struct HostileRecordingTests {
    @Test func formatsAreToldByTheirFirstBytes() {
        func format(_ bytes: [UInt8]) -> RecordingFormat? { RecordingFormat(header: bytes) }
        #expect(format(Array("ID3\u{4}\0\0".utf8)) == .mp3)
        #expect(format([0xFF, 0xFB, 0x90, 0x64]) == .mp3, "an MPEG-1 layer III frame")
        #expect(format([0xFF, 0xF1, 0x50, 0x80]) == nil, "AAC's ADTS (layer 0) is not an MP3")
        #expect(format([0, 0, 0, 0x20] + Array("ftypM4A ".utf8)) == .mp4)
        #expect(format(Array("OggS\0\u{2}".utf8)) == .ogg)
        #expect(format(Array("RIFF\u{24}\0\0\0WAVE".utf8)) == .wav)
        #expect(format(Array("RIFF\u{24}\0\0\0AVI ".utf8)) == nil)
        #expect(format(Array("fLaC\0\0\0\u{22}".utf8)) == .flac)
        for text in ["#EXTM3U\n", "ffconcat version 1.0\n", "[playlist]\n", "<?xml ", "", "ID", "file:/etc/passwd"] {
            #expect(format(Array(text.utf8)) == nil, "\(text)")
        }
        #expect(RecordingFormat.allCases.map(\.rawValue) == ["mp3", "mov", "ogg", "wav", "flac"], "FFmpeg's demuxers, none of which opens another file")
    }

    /// Each adversarial `book.mp3` is refused at once with why, for a clip and for its length
    /// (the speech thread hung on the first, `show` and `export` on the second).
    @Test(arguments: HostileRecordings.Kind.allCases)
    func aHostileBookMp3IsNotARecording(kind: HostileRecordings.Kind) throws {
        let folder = try TemporaryFolder("hostile-recording")
        defer { folder.remove() }
        let outside = try TemporaryFolder("hostile-outside")
        defer { outside.remove() }
        let tone = outside.path + "/tone.wav"
        _ = try Chirp.write(tone, seconds: 1)
        let book = try folder.write("book.mp3", kind.contents(name: "book.mp3", outside: tone))
        do {
            _ = try AudioClipDecoder.decode(path: book.path, folder: folder.path, beginMs: 0, endMs: nil)
            Issue.record("\(kind) was decoded")
        } catch {
            #expect(error.description == "book.mp3: not a recording a book may hold (MP3, MP4 or M4A, Ogg, WAV or FLAC)")
        }
        #expect(AudioClipDecoder.durationMilliseconds(path: book.path, folder: folder.path) == nil)
    }

    /// A recording is opened only inside its folder: not through a symbolic link leading out,
    /// not by `..`, not a FIFO (whose opening blocked), not a folder. The file inside is read.
    @Test func aRecordingIsOpenedOnlyInsideItsFolder() throws {
        let root = try TemporaryFolder("recording-folder")
        defer { root.remove() }
        let book = root.url.appendingPathComponent("book")
        try FileManager.default.createDirectory(at: book.appendingPathComponent("audio"), withIntermediateDirectories: true)
        let outside = root.path + "/outside.wav"
        _ = try Chirp.write(outside, seconds: 1)
        let inside = book.path + "/audio/tone.wav"
        _ = try Chirp.write(inside, seconds: 1)
        try FileManager.default.createSymbolicLink(atPath: book.path + "/audio/link.wav", withDestinationPath: outside)
        try FileManager.default.createSymbolicLink(atPath: book.path + "/audio/near.wav", withDestinationPath: "tone.wav")
        #expect(mkfifo(book.path + "/audio/fifo.mp3", 0o644) == 0)

        func problem(_ path: String) -> String? {
            do {
                _ = try AudioClipDecoder.decode(path: path, folder: book.path, beginMs: 0, endMs: nil)
                return nil
            } catch {
                return error.description
            }
        }
        #expect(problem(inside) == nil)
        #expect(problem(book.path + "/audio/near.wav") == nil, "a link that stays inside the book is followed")
        #expect(problem(book.path + "/audio/link.wav") == "link.wav: the recording is outside the story's folder (not used)")
        #expect(problem(book.path + "/audio/../../outside.wav") == "outside.wav: the recording is outside the story's folder (not used)")
        #expect(problem(outside) == "outside.wav: the recording is outside the story's folder (not used)")
        #expect(problem(book.path + "/audio/fifo.mp3") == "fifo.mp3: not a recording (not a regular file)")
        #expect(problem(book.path + "/audio") == "audio: not a recording (not a regular file)")
        #expect(problem(book.path + "/audio/none.mp3") == "none.mp3: the recording is missing")
    }

    /// A recording told to stop ends at its next read, with an error (the reading it cuts short
    /// may have been going for as long as its deadline allows).
    @Test func aStoppedRecordingEndsAtItsNextRead() throws {
        let folder = try TemporaryFolder("recording-stop")
        defer { folder.remove() }
        let tone = folder.path + "/tone.wav"
        _ = try Chirp.write(tone, seconds: 2)
        let stop = RecordingStop()
        #expect(try AudioClipDecoder.decode(path: tone, beginMs: 0, endMs: nil, stop: stop).count == 2 * SpeechAudioFormat.sampleRate)
        stop.stop()
        do {
            _ = try AudioClipDecoder.decode(path: tone, beginMs: 0, endMs: nil, deadline: .seconds(7), stop: stop)
            Issue.record("a stopped recording was decoded")
        } catch {
            #expect(error.description == "tone.wav: reading the recording took longer than 7 seconds (not used)")
        }
    }

    /// A FLAC of two hours of silence in 24 KB says it plays longer than a file of its size can:
    /// refused, for a clip and for its length; a FLAC of speech's size plays.
    @Test func aFLACOfSilenceIsADecompressionBomb() throws {
        let folder = try TemporaryFolder("flac-bomb")
        defer { folder.remove() }
        let bomb = folder.path + "/silence.flac"
        let bytes = try HostileRecordings.flacSilence(bomb, hours: 2).count
        #expect(RecordingInput.longestMilliseconds(bytes: bytes) < 2 * 3_600_000, "\(bytes) bytes")
        do {
            _ = try AudioClipDecoder.decode(path: bomb, beginMs: 0, endMs: 1000)
            Issue.record("the bomb was decoded")
        } catch {
            #expect(error.description == "silence.flac: it would play longer than a recording of its size can: refused as a decompression bomb")
        }
        #expect(AudioClipDecoder.durationMilliseconds(path: bomb) == nil)

        let ffmpeg = try #require(RequiredTool.find("ffmpeg", package: "ffmpeg", for: "encoding a FLAC"))
        let tone = folder.path + "/tone.wav"
        let samples = try Chirp.write(tone, seconds: 2)
        let flac = folder.path + "/tone.flac"
        #expect(try ExternalProcess.run(ffmpeg, ["-v", "error", "-y", "-i", tone, "-c:a", "flac", flac], environment: [:]).status == 0)
        #expect(try AudioClipDecoder.decode(path: flac, beginMs: 0, endMs: nil) == samples, "FLAC is lossless")
        #expect(AudioClipDecoder.durationMilliseconds(path: flac) == 2000)
    }
}
