import Foundation
import StoryKit

/// A recording made at test time: a rising tone at the sink's format, written as a WAV file, where
/// every sample is told apart from the others, so where a resumed clip starts is found exactly.
public enum Chirp {
    /// A tone rising from 200 to 2,000 Hz over `seconds` (or at `constant` Hz), written to `path`.
    public static func write(_ path: String, seconds: Double = 3, constant: Double? = nil) throws -> [Int16] {
        let rate = SpeechAudioFormat.sampleRate
        let count = Int(seconds * Double(rate))
        var phase = 0.0
        let samples = (0..<count).map { index -> Int16 in
            let t = Double(index) / Double(rate)
            let frequency = constant ?? (200 + 1800 * t / seconds)
            phase += 2 * Double.pi * frequency / Double(rate)
            return Int16(12000 * sin(phase))
        }
        let sink = try WAVFileSink(path: path)
        try samples.withUnsafeBufferPointer { _ = try sink.write($0) }
        try sink.close()
        return samples
    }

    /// Where `heard` stands in `samples` (the first place they match), if anywhere.
    public static func place(of heard: ArraySlice<Int16>, in samples: [Int16]) -> Int? {
        guard heard.count <= samples.count else { return nil }
        return (0...(samples.count - heard.count)).first { samples[$0..<($0 + heard.count)].elementsEqual(heard) }
    }
}
