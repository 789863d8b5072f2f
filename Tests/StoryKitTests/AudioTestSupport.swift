import Foundation
import StoryKitTestSupport
import Synchronization
import Testing

@testable import StoryKit

/// Samples of a 16-bit mono WAV file (the 44-byte canonical header checked).
func wavSamples(_ path: String) throws -> [Int16] {
    let data = try Data(contentsOf: URL(fileURLWithPath: path))
    guard data.count >= 44, String(decoding: data[0..<4], as: UTF8.self) == "RIFF" else { throw WAVTestError.notWAV(path) }
    // Find the "data" chunk (espeak-ng writes the canonical layout too, but be safe).
    var offset = 12
    while offset + 8 <= data.count {
        let id = String(decoding: data[offset..<offset + 4], as: UTF8.self)
        let size = data[offset + 4..<offset + 8].withUnsafeBytes { Int(UInt32(littleEndian: $0.loadUnaligned(as: UInt32.self))) }
        if id == "data" {
            let end = min(data.count, offset + 8 + size)
            return data[(offset + 8)..<end].withUnsafeBytes { raw in
                (0..<(raw.count / 2)).map { Int16(littleEndian: raw.loadUnaligned(fromByteOffset: $0 * 2, as: Int16.self)) }
            }
        }
        offset += 8 + size
    }
    throw WAVTestError.notWAV(path)
}

enum WAVTestError: Error { case notWAV(String) }

func rms(_ samples: [Int16]) -> Double {
    guard !samples.isEmpty else { return 0 }
    let sum = samples.reduce(0.0) { $0 + Double($1) * Double($1) }
    return (sum / Double(samples.count)).squareRoot()
}

/// Median fundamental frequency of the voiced frames, by autocorrelation (60–400 Hz).
func fundamentalFrequency(_ samples: [Int16], sampleRate: Int = SpeechAudioFormat.sampleRate) -> Double {
    let frame = 1024
    let minLag = sampleRate / 400
    let maxLag = sampleRate / 60
    let loudness = rms(samples)
    var estimates: [Double] = []
    var start = 0
    while start + frame + maxLag < samples.count {
        let window = samples[start..<(start + frame + maxLag)].map(Double.init)
        let energy = window.prefix(frame).reduce(0) { $0 + $1 * $1 }
        if (energy / Double(frame)).squareRoot() > loudness * 0.8 {
            var bestLag = 0
            var best = 0.0
            for lag in minLag...maxLag {
                var sum = 0.0
                for i in 0..<frame { sum += window[i] * window[i + lag] }
                if sum > best {
                    best = sum
                    bestLag = lag
                }
            }
            if best > energy * 0.5 && bestLag > 0 { estimates.append(Double(sampleRate) / Double(bestLag)) }
        }
        start += frame
    }
    estimates.sort()
    return estimates.isEmpty ? 0 : estimates[estimates.count / 2]
}

/// Collects an utterance's samples in memory (short test texts only).
func synthesizeSamples(_ utterance: SpeechUtterance) throws -> [Int16] {
    let collected = Mutex<[Int16]>([])
    _ = try EspeakEngine.shared.synthesize(utterance, stop: nil) { chunk in
        collected.withLock { $0.append(contentsOf: chunk.samples) }
        return .proceed
    }
    return collected.withLock { $0 }
}

/// Runs a command and waits; returns its status.
@discardableResult
func runTool(_ path: String, _ arguments: [String], environment: [String: String]? = nil) throws -> Int32 {
    let process = Process()
    process.executableURL = URL(fileURLWithPath: path)
    process.arguments = arguments
    if let environment { process.environment = environment }
    process.standardOutput = FileHandle.nullDevice
    process.standardError = FileHandle.nullDevice
    try process.run()
    process.waitUntilExit()
    return process.terminationStatus
}

/// The espeak-ng command, or nil with a failure saying how to install it.
func espeakCommand(for what: String, sourceLocation: SourceLocation = #_sourceLocation) -> String? {
    RequiredTool.find("espeak-ng", package: "espeak-ng", for: what, sourceLocation: sourceLocation)?.path
}

/// A sink that counts what reaches it and forwards to another sink.
final class CountingSink: PCMSink {
    let inner: any PCMSink
    private let accepted = Atomic<Int>(0)
    private let marker = Atomic<Int>(-1)
    init(_ inner: any PCMSink) { self.inner = inner }
    func write(_ samples: UnsafeBufferPointer<Int16>) throws -> Bool {
        let before = inner.framesWritten
        let whole = try inner.write(samples)
        accepted.add(max(0, inner.framesWritten - before), ordering: .relaxed)
        return whole
    }
    /// Frames accepted since the start.
    var framesAccepted: Int { accepted.load(ordering: .relaxed) }
    var framesWritten: Int { inner.framesWritten }
    var framesPlayed: Int { inner.framesPlayed }
    func interrupt() { inner.interrupt() }
    func drop() { inner.drop() }
    func drain() throws { try inner.drain() }
    func close() throws { try inner.close() }
    var isRealTime: Bool { inner.isRealTime }
    var bufferFrames: Int { inner.bufferFrames }
}
