import Foundation
import Testing

@testable import StoryKit

/// The Opus export's 22050 → 16000 Hz resampler: a tone keeps its pitch, level and time, a tone
/// above 8 kHz is filtered out, silence stays exact zeros (the encoder leaves out frames of zeros).
@Suite struct SpeechResamplerTests {
    /// `samples` through the resampler in blocks of `block`, then its end.
    func resample(_ samples: [Int16], block: Int = 1000) -> [Float] {
        var resampler = SpeechResampler()
        var output: [Float] = []
        var start = 0
        while start < samples.count {
            let end = min(samples.count, start + block)
            samples[start..<end].withUnsafeBufferPointer { resampler.append($0, to: &output) }
            start = end
        }
        resampler.finish(into: &output)
        return output
    }

    func tone(_ hertz: Double, count: Int, rate: Double = 22_050, amplitude: Double = 16_000) -> [Int16] {
        (0..<count).map { Int16(amplitude * sin(2 * Double.pi * hertz * Double($0) / rate)) }
    }

    @Test func aToneKeepsItsPitchLevelAndTime() {
        let input = tone(1_000, count: 22_050)
        let output = resample(input, block: 777)
        #expect(output.count == 16_000)
        #expect(output.count == SpeechResampler.outputCount(for: input.count))
        // Away from the ends, each output sample is the tone at its own time, k × 441 / 320.
        var worst = 0.0
        for k in 100..<15_900 {
            let expected = 16_000 / 32_768 * sin(2 * Double.pi * 1_000 * Double(k) / 16_000)
            worst = max(worst, abs(Double(output[k]) - expected))
        }
        #expect(worst < 0.005, "largest error \(worst) of a level of 0.49")
    }

    @Test func aToneAboveEightKilohertzIsFilteredOut() {
        let output = resample(tone(9_500, count: 22_050))
        let loudest = output[100..<15_900].map { abs($0) }.max() ?? 1
        #expect(loudest < 0.49 / 100, "9.5 kHz came through at \(loudest) (at least 40 dB down expected)")
    }

    @Test func silenceStaysExactZerosAndBlocksDoNotMatter() {
        let input = [Int16](repeating: 0, count: 5_000) + tone(440, count: 3_000) + [Int16](repeating: 0, count: 5_000)
        let whole = resample(input, block: input.count)
        #expect(resample(input, block: 64) == whole)
        // The tone's samples reach 12 input samples (9 output samples) each side of it at most.
        let toneStart = SpeechResampler.outputCount(for: 5_000 - 12)
        let toneEnd = SpeechResampler.outputCount(for: 8_000 + 12)
        #expect(whole[..<toneStart].allSatisfy { $0 == 0 })
        #expect(whole[toneEnd...].allSatisfy { $0 == 0 })
        #expect(whole[toneStart..<toneEnd].contains { $0 != 0 })
    }
}
