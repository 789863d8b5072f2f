import Foundation

/// Audio given as the microphone (`read --coach --listen FILE.wav`): a WAV file of 16 kHz mono
/// signed 16-bit PCM, the decoder's own format, read into memory (nothing is converted or written).
public enum ListeningAudio {
    /// The samples of the WAV file at `path`.
    public static func samples(wavFile path: String) throws(ListeningProblem) -> [Int16] {
        guard let data = FileManager.default.contents(atPath: path) else {
            throw ListeningProblem(N_("Cannot read {path}: give a WAV file that exists"), ["path": path])
        }
        return try samples(wav: [UInt8](data), name: path)
    }

    /// The samples of a WAV file's bytes (`name` for the messages).
    public static func samples(wav bytes: [UInt8], name: String) throws(ListeningProblem) -> [Int16] {
        func u32(_ at: Int) -> Int { Int(bytes[at]) | Int(bytes[at + 1]) << 8 | Int(bytes[at + 2]) << 16 | Int(bytes[at + 3]) << 24 }
        func u16(_ at: Int) -> Int { Int(bytes[at]) | Int(bytes[at + 1]) << 8 }
        let convert = "convert it with: sox IN.wav -r 16000 -c 1 -b 16 OUT.wav"
        guard bytes.count >= 12, bytes[0..<4] == [0x52, 0x49, 0x46, 0x46], bytes[8..<12] == [0x57, 0x41, 0x56, 0x45] else {
            throw ListeningProblem(N_("{path} is not a WAV file: {fix}"), ["path": name, "fix": convert])
        }
        var at = 12
        var formatOK = false
        while at + 8 <= bytes.count {
            let size = u32(at + 4)
            let body = at + 8
            if bytes[at..<(at + 4)] == [0x66, 0x6D, 0x74, 0x20], body + 16 <= bytes.count {
                formatOK = u16(body) == 1 && u16(body + 2) == 1 && u32(body + 4) == ReadingCoach.sampleRate && u16(body + 14) == 16
            } else if bytes[at..<(at + 4)] == [0x64, 0x61, 0x74, 0x61] {
                guard formatOK else {
                    throw ListeningProblem(N_("{path} is not 16 kHz mono 16-bit PCM: {fix}"), ["path": name, "fix": convert])
                }
                let end = min(bytes.count, body + size) & ~1
                return stride(from: body, to: end, by: 2).map { Int16(bitPattern: UInt16(bytes[$0]) | UInt16(bytes[$0 + 1]) << 8) }
            }
            at = body + size + (size & 1)
        }
        throw ListeningProblem(N_("{path} has no audio data: {fix}"), ["path": name, "fix": convert])
    }
}
