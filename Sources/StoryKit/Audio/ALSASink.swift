import CAlsa
public import Foundation
import Synchronization

/// The audio device, through ALSA (`default` unless told otherwise).
///
/// Non-blocking writes with short waits, so an `interrupt()` from another thread is seen within a
/// few milliseconds; `drop()` discards the device buffer (`snd_pcm_drop`), so a stop is heard at
/// once. The playback clock is `written − snd_pcm_delay`, sampled by the writing thread and carried
/// forward in real time between samples.
///
/// It never runs ahead of real time: a device that takes audio faster than it could be heard
/// (ALSA's `null`, a `file` PCM) is paced like the silent fallback, so a story is never "heard" to
/// its end, and counted as read, in less time than it takes to say it.
public final class ALSASink: PCMSink {
    /// The PCM handle, only used by the writing thread (and `close`).
    private struct Handle: @unchecked Sendable { var pcm: OpaquePointer? }
    private struct Clock {
        var written = 0
        /// `played` measured at `time`.
        var played = 0
        var time: ContinuousClock.Instant
        var running = false
        /// Since when (and from which frame) audio has been flowing without a gap: no more than
        /// the time since then can have been heard.
        var anchor: (time: ContinuousClock.Instant, frame: Int)?

        /// The most that can have been heard by `now`.
        func heardAtMost(_ now: ContinuousClock.Instant, rate: Int) -> Int {
            guard let anchor else { return played }
            let elapsed = now - anchor.time
            let seconds = Double(elapsed.components.seconds) + Double(elapsed.components.attoseconds) * 1e-18
            return anchor.frame + Int(seconds * Double(rate))
        }
    }

    public let device: String
    public let bufferFrames: Int
    public let periodFrames: Int
    private let handle: Mutex<Handle>
    private let clockState: Mutex<Clock>
    private let interrupted = Atomic<Bool>(false)
    private let clock = ContinuousClock()
    private let rate = SpeechAudioFormat.sampleRate

    /// The device name to use: `--device`, else `STORYREADER_AUDIO_DEVICE`, else `default`.
    public static func deviceName(option: String?, environment: [String: String] = ProcessInfo.processInfo.environment) -> String {
        if let option, !option.isEmpty { return option }
        if let name = environment["STORYREADER_AUDIO_DEVICE"], !name.isEmpty { return name }
        return "default"
    }

    public init(device: String = "default", bufferMilliseconds: Int = 100) throws {
        self.device = device
        calsa_silence_errors()
        var pcm: OpaquePointer?
        var status = snd_pcm_open(&pcm, device, SND_PCM_STREAM_PLAYBACK, SND_PCM_NONBLOCK)
        guard status >= 0, let pcm else {
            throw AudioError.deviceUnavailable(device: device, reason: String(cString: snd_strerror(status)))
        }
        status = snd_pcm_set_params(
            pcm, SND_PCM_FORMAT_S16_LE, SND_PCM_ACCESS_RW_INTERLEAVED, UInt32(SpeechAudioFormat.channels),
            UInt32(SpeechAudioFormat.sampleRate), 1, UInt32(bufferMilliseconds * 1000))
        if status < 0 {
            snd_pcm_close(pcm)
            throw AudioError.deviceUnavailable(device: device, reason: String(cString: snd_strerror(status)))
        }
        var buffer: snd_pcm_uframes_t = 0
        var period: snd_pcm_uframes_t = 0
        snd_pcm_get_params(pcm, &buffer, &period)
        bufferFrames = Int(buffer)
        periodFrames = max(1, Int(period))
        // Start as soon as one period is queued, so a short last sentence is heard without a drain.
        var software: OpaquePointer?
        if snd_pcm_sw_params_malloc(&software) >= 0, let software {
            snd_pcm_sw_params_current(pcm, software)
            snd_pcm_sw_params_set_start_threshold(pcm, software, period)
            snd_pcm_sw_params(pcm, software)
            snd_pcm_sw_params_free(software)
        }
        handle = Mutex(Handle(pcm: pcm))
        clockState = Mutex(Clock(time: ContinuousClock().now))
    }

    deinit { try? close() }

    /// Measures the device's position (writing thread only).
    private func sample(_ pcm: OpaquePointer) {
        var delay: snd_pcm_sframes_t = 0
        let state = snd_pcm_state(pcm)
        let running = state == SND_PCM_STATE_RUNNING
        let ok = snd_pcm_delay(pcm, &delay) >= 0
        let now = clock.now
        clockState.withLock { clock in
            let queued = ok && (running || state == SND_PCM_STATE_PREPARED) ? max(0, Int(delay)) : 0
            clock.played = max(clock.played, min(clock.written - queued, clock.heardAtMost(now, rate: rate)))
            clock.time = now
            clock.running = running
        }
    }

    private func recover(_ pcm: OpaquePointer, _ status: Int) throws {
        let recovered = snd_pcm_recover(pcm, Int32(status), 1)
        if recovered < 0 {
            throw AudioError.deviceFailed(device: device, reason: String(cString: snd_strerror(recovered)))
        }
    }

    public func write(_ samples: UnsafeBufferPointer<Int16>) throws -> Bool {
        guard let base = samples.baseAddress, !samples.isEmpty else { return !interrupted.load(ordering: .acquiring) }
        return try handle.withLock { handle in
            guard let pcm = handle.pcm else { throw AudioError.deviceFailed(device: device, reason: "closed") }
            var offset = 0
            while offset < samples.count {
                if interrupted.load(ordering: .acquiring) { return false }
                // Nothing was queued: sound starts flowing now.
                let now = clock.now
                let ahead = clockState.withLock { clock -> Bool in
                    if clock.anchor == nil || clock.played >= clock.written { clock.anchor = (now, clock.written) }
                    return clock.written - clock.heardAtMost(now, rate: rate) > bufferFrames
                }
                if ahead {
                    // More is queued than the device's buffer holds in real time: a device that
                    // swallows audio at once waits here, like a real one would.
                    usleep(5_000)
                    sample(pcm)
                    continue
                }
                let chunk = min(samples.count - offset, periodFrames)
                let result = snd_pcm_writei(pcm, base + offset, snd_pcm_uframes_t(chunk))
                if result == -Int(EAGAIN) {
                    snd_pcm_wait(pcm, 5)
                    sample(pcm)
                    continue
                }
                if result < 0 {
                    try recover(pcm, result)
                    continue
                }
                offset += result
                clockState.withLock { $0.written += result }
                sample(pcm)
            }
            return true
        }
    }

    public var framesWritten: Int { clockState.withLock { $0.written } }

    public var framesPlayed: Int {
        let now = clock.now
        let estimate = clockState.withLock { clock -> Int? in
            guard clock.running else { return nil }
            let elapsed = now - clock.time
            let seconds = Double(elapsed.components.seconds) + Double(elapsed.components.attoseconds) * 1e-18
            return min(clock.written, clock.played + Int(seconds * Double(rate)), clock.heardAtMost(now, rate: rate))
        }
        if let estimate { return estimate }
        // Not running: not started yet (less than a period queued), run dry, or a device that takes
        // audio at once ("null"). Nothing else asks it while the speech service waits for the end
        // of what it wrote, so ask it now, and start what waits to be heard.
        handle.withLock { handle in
            guard let pcm = handle.pcm else { return }
            if snd_pcm_state(pcm) == SND_PCM_STATE_PREPARED, clockState.withLock({ $0.written > $0.played }) { snd_pcm_start(pcm) }
            sample(pcm)
        }
        return clockState.withLock { $0.played }
    }

    public func interrupt() { interrupted.store(true, ordering: .releasing) }

    public func drop() {
        handle.withLock { handle in
            guard let pcm = handle.pcm else { return }
            sample(pcm)
            snd_pcm_drop(pcm)
            snd_pcm_prepare(pcm)
            clockState.withLock { clock in
                clock.written = clock.played
                clock.running = false
                clock.anchor = nil
            }
        }
        interrupted.store(false, ordering: .releasing)
    }

    public func drain() throws {
        handle.withLock { handle in
            guard let pcm = handle.pcm else { return }
            while !interrupted.load(ordering: .acquiring) {
                let state = snd_pcm_state(pcm)
                if state == SND_PCM_STATE_XRUN || state == SND_PCM_STATE_SETUP { break }
                if state == SND_PCM_STATE_PREPARED {
                    var delay: snd_pcm_sframes_t = 0
                    if snd_pcm_delay(pcm, &delay) < 0 || delay <= 0 { break }
                    snd_pcm_start(pcm)
                }
                var delay: snd_pcm_sframes_t = 0
                let status = snd_pcm_delay(pcm, &delay)
                sample(pcm)
                if status < 0 || delay <= 0 { break }
                usleep(UInt32(min(5_000, max(500, Int(delay) * 1_000_000 / rate))))
            }
            // The device says it is empty; what it took cannot have been heard sooner than in real time.
            while !interrupted.load(ordering: .acquiring),
                clockState.withLock({ $0.heardAtMost(clock.now, rate: rate) < $0.written })
            {
                usleep(5_000)
            }
            clockState.withLock { clock in
                if !interrupted.load(ordering: .acquiring) { clock.played = clock.written }
                clock.running = false
                clock.anchor = nil
            }
        }
    }

    public func close() throws {
        handle.withLock { handle in
            guard let pcm = handle.pcm else { return }
            handle.pcm = nil
            snd_pcm_drop(pcm)
            snd_pcm_close(pcm)
        }
    }

    public var isRealTime: Bool { true }
}

/// Opens the audio output the way `storyreader read` does.
public enum AudioOutput {
    /// The device sink, or paced silence with a one-time notice (in the language of `messages`)
    /// when the device cannot be opened.
    public static func open(device: String, messages: MessageCatalog = .english) -> (sink: any PCMSink, notice: String?) {
        do {
            return (try ALSASink(device: device), nil)
        } catch {
            return (
                PacedSilenceSink(),
                messages.tr(
                    "{problem}; reading without sound (the text is still highlighted at speaking pace)",
                    ["problem": messages.describe(error)])
            )
        }
    }

    /// The sink `read` and the REPL play on: with `noAudio`, nothing (`DiscardingSink`, no waiting)
    /// or, when `pacedWithoutAudio`, paced silence; otherwise the ALSA device named by
    /// `deviceOption` / `$STORYREADER_AUDIO_DEVICE` / `default`, falling back to paced silence with
    /// a notice (to be shown once).
    public static func choose(
        noAudio: Bool, pacedWithoutAudio: Bool = false, deviceOption: String?,
        environment: [String: String] = ProcessInfo.processInfo.environment,
        messages: MessageCatalog = .english
    ) -> (sink: any PCMSink, notice: String?) {
        if noAudio { return (pacedWithoutAudio ? PacedSilenceSink() : DiscardingSink(), nil) }
        return open(device: ALSASink.deviceName(option: deviceOption, environment: environment), messages: messages)
    }
}
