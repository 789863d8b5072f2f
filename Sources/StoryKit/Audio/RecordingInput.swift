import CFFmpeg
import Foundation

/// The formats a book's recording may be in, told by the file's first bytes (its name says
/// nothing: FFmpeg probes content, and a `book.mp3` that was an HLS playlist or an ffconcat
/// script made it open other files, block for ever, or recurse). Each is read by the one FFmpeg
/// demuxer named here, none of which opens another file.
public enum RecordingFormat: String, Sendable, CaseIterable {
    case mp3
    /// MP4 and M4A (AAC, ALAC): FFmpeg's `mov` demuxer.
    case mp4 = "mov"
    /// Ogg Opus and Vorbis.
    case ogg
    case wav
    case flac

    /// How many first bytes `init(header:)` looks at.
    public static let headerBytes = 12

    /// The format whose signature `header` starts with; nil for anything else (a playlist, a
    /// script, text, another container).
    public init?(header: some Collection<UInt8>) {
        let bytes = Array(header.prefix(Self.headerBytes))
        func at(_ offset: Int, _ text: String) -> Bool {
            let expected = Array(text.utf8)
            return bytes.count >= offset + expected.count && Array(bytes[offset..<(offset + expected.count)]) == expected
        }
        if at(0, "ID3") {
            self = .mp3
        } else if bytes.count >= 2, bytes[0] == 0xFF, bytes[1] & 0xE0 == 0xE0, bytes[1] & 0x06 != 0 {
            // An MPEG audio frame's sync word, layer I–III (layer 0 is AAC's ADTS).
            self = .mp3
        } else if at(4, "ftyp") {
            self = .mp4
        } else if at(0, "OggS") {
            self = .ogg
        } else if at(0, "RIFF"), at(8, "WAVE") {
            self = .wav
        } else if at(0, "fLaC") {
            self = .flac
        } else {
            return nil
        }
    }

    /// The codecs a recording may hold: FFmpeg's decoders for speech in these containers.
    static let codecs: Set<AVCodecID> = [
        AV_CODEC_ID_MP3, AV_CODEC_ID_MP2, AV_CODEC_ID_AAC, AV_CODEC_ID_ALAC, AV_CODEC_ID_OPUS, AV_CODEC_ID_VORBIS, AV_CODEC_ID_FLAC,
        AV_CODEC_ID_PCM_U8, AV_CODEC_ID_PCM_S16LE, AV_CODEC_ID_PCM_S16BE, AV_CODEC_ID_PCM_S24LE, AV_CODEC_ID_PCM_S32LE,
        AV_CODEC_ID_PCM_F32LE, AV_CODEC_ID_PCM_F64LE, AV_CODEC_ID_PCM_MULAW, AV_CODEC_ID_PCM_ALAW,
    ]
}

/// Asks a recording being read to stop, from any thread: its next read is refused.
public final class RecordingStop: @unchecked Sendable {
    // @unchecked: the flag is a C int that input.c reads and `stop()` writes only atomically
    // (CFFmpeg's `cffmpeg_raise_flag`); the pointer itself never changes.
    fileprivate let flag: UnsafeMutablePointer<Int32>

    public init() {
        flag = .allocate(capacity: 1)
        flag.initialize(to: 0)
    }

    deinit { flag.deallocate() }

    public func stop() { cffmpeg_raise_flag(flag) }
}

/// One recording opened for reading, the only way a book's audio is opened (issue 43): the file
/// must be inside its book's folder (opened with openat2's `RESOLVE_BENEATH`, so no `..` or link
/// leads out, and never waiting on a FIFO), a regular file, in one of `RecordingFormat`'s formats
/// by its first bytes, read by that format's demuxer through a file descriptor of ours (FFmpeg
/// gets no name, and may open nothing else), every read refused after `deadline` or a stop.
///
/// Everything that reads a recording's audio (`AudioClipDecoder`, and a DAISY book's audio as
/// an EPUB's) goes through here.
final class RecordingInput {
    /// What FFmpeg opened.
    let context: UnsafeMutablePointer<AVFormatContext>
    let format: RecordingFormat
    /// The file's size in bytes.
    let bytes: Int
    /// What to say when the deadline (or a stop) cut the reading short.
    let tooLong: RecordingProblem
    private let name: String
    private let fd: Int32
    private var owned: UnsafeMutablePointer<AVFormatContext>?

    /// Opens `path`, which must be inside `folder` (nil: the folder it is in). The name in
    /// errors is the file's last component.
    init(path: String, folder: String? = nil, deadline: Duration = AudioClipDecoder.clipDeadline, stop: RecordingStop? = nil) throws(RecordingProblem) {
        let name = (path as NSString).lastPathComponent
        let base = folder ?? (path as NSString).deletingLastPathComponent
        let relative: String
        if folder == nil {
            relative = name
        } else if path.hasPrefix(base + "/") {
            relative = String(path.dropFirst(base.count + 1))
        } else {
            throw RecordingProblem(N_("{file}: the recording is outside the story's folder (not used)"), ["file": name])
        }
        self.name = name
        let opened = cffmpeg_open_beneath(base, relative)
        guard opened >= 0 else {
            switch -opened {
            case ENOENT, ENOTDIR: throw RecordingProblem(N_("{file}: the recording is missing"), ["file": name])
            case EXDEV, ELOOP: throw RecordingProblem(N_("{file}: the recording is outside the story's folder (not used)"), ["file": name])
            default:
                throw RecordingProblem(N_("{file}: the recording cannot be opened ({reason})"), ["file": name, "reason": String(cString: strerror(-opened))])
            }
        }
        fd = opened
        var status = stat()
        guard fstat(fd, &status) == 0, status.st_mode & S_IFMT == S_IFREG else {
            close(fd)
            throw RecordingProblem(N_("{file}: not a recording (not a regular file)"), ["file": name])
        }
        bytes = Int(status.st_size)
        var header = [UInt8](repeating: 0, count: RecordingFormat.headerBytes)
        let got = pread(fd, &header, header.count, 0)
        guard got > 0, let format = RecordingFormat(header: header.prefix(got)) else {
            close(fd)
            throw RecordingProblem(N_("{file}: not a recording a book may hold (MP3, MP4 or M4A, Ogg, WAV or FLAC)"), ["file": name])
        }
        self.format = format
        let components = deadline.components
        let milliseconds = max(1, components.seconds * 1000 + components.attoseconds / 1_000_000_000_000_000)
        var context: UnsafeMutablePointer<AVFormatContext>?
        tooLong = RecordingProblem(
            N_("{file}: reading the recording took longer than {seconds} seconds (not used)"),
            ["file": name, "seconds": String(max(1, components.seconds))])
        let result = cffmpeg_open_recording(&context, fd, format.rawValue, milliseconds, stop?.flag)
        guard result >= 0, let context else {
            close(fd)
            throw result == cffmpeg_error_exit() ? tooLong : RecordingProblem(N_("{file}: not a recording FFmpeg can read"), ["file": name])
        }
        self.context = context
        owned = context
    }

    deinit {
        cffmpeg_close_recording(&owned)
        close(fd)
    }

    /// The longest a recording of `bytes` may play, in milliseconds: a minute, and 4 ms a byte
    /// (2 kbit/s, a third of the lowest rate of any speech codec, Opus's 6 kbit/s). More is a
    /// decompression bomb: a 3.2 MB FLAC of silence said it played 50 hours, and its WAV export
    /// wrote 4.2 GB in 45 s.
    static func longestMilliseconds(bytes: Int) -> Int { 60_000 + bytes.multipliedReportingOverflow(by: 4).partialValue }

    /// `longestMilliseconds` of this file.
    var longestMilliseconds: Int { Self.longestMilliseconds(bytes: bytes) }

    /// What to say when the recording plays (or says it plays) longer than `longestMilliseconds`.
    var bomb: RecordingProblem {
        RecordingProblem(
            N_("{file}: it would play longer than a recording of its size can: refused as a decompression bomb"),
            ["file": (name as NSString).lastPathComponent])
    }

    /// True once a read was refused for the deadline or a stop.
    var expired: Bool { cffmpeg_recording_expired(context) != 0 }
}
