import CAlsa
public import Foundation

/// The microphone for the read-along coach: ALSA capture in the decoder's own format (16 kHz,
/// mono, signed 16-bit), opened only when coaching is explicitly started and closed when it ends.
///
/// Privacy: what it hears is handed on in memory, a tenth of a second at a time, and never
/// written anywhere.
public final class Microphone {
    public let device: String
    private var pcm: OpaquePointer?

    /// The device to listen on: `--mic`, else `$STORYREADER_MIC_DEVICE`, else `default`.
    public static func deviceName(option: String?, environment: [String: String] = ProcessInfo.processInfo.environment) -> String {
        if let option, !option.isEmpty { return option }
        if let name = environment["STORYREADER_MIC_DEVICE"], !name.isEmpty { return name }
        return "default"
    }

    /// Opens `device` for capture; a missing or refusing microphone is a `ListeningProblem` that
    /// names it and says what to do.
    public init(device: String) throws(ListeningProblem) {
        self.device = device
        calsa_silence_errors()
        var pcm: OpaquePointer?
        var status = snd_pcm_open(&pcm, device, SND_PCM_STREAM_CAPTURE, 0)
        guard status >= 0, let pcm else { throw Self.problem(device, status) }
        status = snd_pcm_set_params(
            pcm, SND_PCM_FORMAT_S16_LE, SND_PCM_ACCESS_RW_INTERLEAVED, 1, UInt32(ReadingCoach.sampleRate), 1, 100_000)
        if status < 0 {
            snd_pcm_close(pcm)
            throw Self.problem(device, status)
        }
        self.pcm = pcm
    }

    deinit { close() }

    private static func problem(_ device: String, _ status: Int32) -> ListeningProblem {
        ListeningProblem(
            N_(
                "No microphone: '{device}' cannot be opened ({reason}). The story is read without the coach; give a microphone with --mic DEVICE or $STORYREADER_MIC_DEVICE"
            ),
            ["device": device, "reason": String(cString: snd_strerror(status))])
    }

    /// The next `count` samples, waiting for them; empty once the device has nothing more (or
    /// failed past recovery).
    public func read(_ count: Int) -> [Int16] {
        guard let pcm else { return [] }
        var samples = [Int16](repeating: 0, count: count)
        var got = 0
        while got < count {
            let frames = samples.withUnsafeMutableBufferPointer { buffer in
                snd_pcm_readi(pcm, buffer.baseAddress! + got, snd_pcm_uframes_t(count - got))
            }
            if frames > 0 {
                got += Int(frames)
            } else if frames == 0 || snd_pcm_recover(pcm, Int32(frames), 1) < 0 {
                break
            }
        }
        return Array(samples[0..<got])
    }

    /// Closes the device (the microphone is off).
    public func close() {
        guard let pcm else { return }
        snd_pcm_close(pcm)
        self.pcm = nil
    }
}
