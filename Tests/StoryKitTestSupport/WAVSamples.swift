public import Foundation

/// Reading 16-bit mono PCM back for tests that listen to what was written.
public enum WAVSamples {
    /// The samples of a canonical 44-byte-header WAV file.
    public static func read(_ path: String) throws -> [Int16] {
        samples(of: try Data(contentsOf: URL(fileURLWithPath: path)).dropFirst(44))
    }

    public static func samples(of data: Data) -> [Int16] {
        data.withUnsafeBytes { raw in
            (0..<(raw.count / 2)).map { Int16(littleEndian: raw.loadUnaligned(fromByteOffset: $0 * 2, as: Int16.self)) }
        }
    }

    /// How alike two recordings sound: the Pearson correlation of their mean loudness per window
    /// (1 is the same envelope; speech against other speech or silence scores far lower).
    public static func loudnessCorrelation(_ a: [Int16], _ b: [Int16], window: Int) -> Double {
        let count = min(a.count, b.count) / window
        guard count > 1 else { return 0 }
        func envelope(_ x: [Int16]) -> [Double] {
            (0..<count).map { w in
                x[(w * window)..<((w + 1) * window)].reduce(0.0) { $0 + abs(Double($1)) } / Double(window)
            }
        }
        let ea = envelope(a)
        let eb = envelope(b)
        let ma = ea.reduce(0, +) / Double(count)
        let mb = eb.reduce(0, +) / Double(count)
        var covariance = 0.0
        var va = 0.0
        var vb = 0.0
        for (x, y) in zip(ea, eb) {
            covariance += (x - ma) * (y - mb)
            va += (x - ma) * (x - ma)
            vb += (y - mb) * (y - mb)
        }
        return va > 0 && vb > 0 ? covariance / (va * vb).squareRoot() : 0
    }
}
