import COpusEnc
import Foundation

/// eSpeak NG's 22050 Hz made 16 kHz for the Opus export's encoders (`OpusShareEncoder`).
///
/// Opus codes speech up to 8 kHz at 16 kHz (wideband); given 22050 Hz, libopusenc resampled it to
/// 48 kHz (speex, quality 5) and libopus then filtered it down again: together four fifths of
/// the encoding's cost. Here one polyphase windowed-sinc filter (320 phases of 24 taps, cut at
/// 7.5 kHz) makes each output sample from the input around its own time: no delay, so output
/// sample k is input time k × 441 / 320, and a share's samples stay where they were.
struct SpeechResampler {
    static let inputRate = 22_050
    static let outputRate = 16_000
    /// 16000 / 22050 = 320 / 441.
    private static let up = 320
    private static let down = 441
    /// Input samples each side of an output sample's time.
    private static let half = 12
    private static let taps = 2 * half

    /// The filter, phase after phase: phase p's taps weigh input samples i − 11 … i + 12 for an
    /// output at input time i + p / 320. Each phase sums to 1 (silence and steady levels pass as
    /// they are).
    private static let filter: [Float] = {
        let cutoff = 7_500.0 / Double(inputRate)  // cycles per input sample
        var table = [Float](repeating: 0, count: up * taps)
        for phase in 0..<up {
            var row = [Double](repeating: 0, count: taps)
            for tap in 0..<taps {
                let distance = Double(tap - half + 1) - Double(phase) / Double(up)
                let x = 2 * cutoff * distance
                let sinc = x == 0 ? 1 : sin(Double.pi * x) / (Double.pi * x)
                // Blackman window over ±12.5 input samples.
                let w = Double.pi * distance / (Double(half) + 0.5)
                row[tap] = sinc * (0.42 + 0.5 * cos(w) + 0.08 * cos(2 * w))
            }
            let sum = row.reduce(0, +)
            for tap in 0..<taps { table[phase * taps + tap] = Float(row[tap] / sum) }
        }
        return table
    }()

    /// Input not yet used up: `input[0]` is input sample `inputStart` (negative at first: the
    /// silence before the share).
    private var input = [Float](repeating: 0, count: half - 1)
    private var inputStart = -(half - 1)
    private var appended = 0
    /// Output samples made so far.
    private(set) var produced = 0

    /// Output samples `inputCount` input samples stand for (those whose time falls within them).
    static func outputCount(for inputCount: Int) -> Int { (inputCount * up + down - 1) / down }

    /// Takes more input; appends to `output` (as floats of −1…1) every sample it now allows.
    mutating func append(_ samples: UnsafeBufferPointer<Int16>, to output: inout [Float]) {
        if let source = samples.baseAddress, !samples.isEmpty {
            input.append(contentsOf: repeatElement(0, count: samples.count))
            let base = input.count - samples.count
            input.withUnsafeMutableBufferPointer { copus_samples_to_float(source, samples.count, $0.baseAddress! + base) }
        }
        appended += samples.count
        produce(upTo: Self.outputCount(for: max(0, appended - Self.half)), into: &output)
    }

    /// The input ends (silence after it): makes the rest of the output it stands for.
    mutating func finish(into output: inout [Float]) {
        input += [Float](repeating: 0, count: Self.half + 1)
        produce(upTo: Self.outputCount(for: appended), into: &output)
    }

    private mutating func produce(upTo end: Int, into output: inout [Float]) {
        guard end > produced else { return }
        output.reserveCapacity(output.count + end - produced)
        let base = output.count
        output += repeatElement(0, count: end - produced)
        let (start, origin) = (produced, inputStart)
        Self.filter.withUnsafeBufferPointer { filter in
            input.withUnsafeBufferPointer { input in
                output.withUnsafeMutableBufferPointer { output in
                    copus_resample(filter.baseAddress!, input.baseAddress!, origin, start, end, output.baseAddress! + base)
                }
            }
        }
        produced = end
        // What the next output needs no longer reaches back before this.
        let keepFrom = produced * Self.down / Self.up - Self.half + 1 - inputStart
        if keepFrom > 1 << 14 {
            input.removeFirst(keepFrom)
            inputStart += keepFrom
        }
    }
}
