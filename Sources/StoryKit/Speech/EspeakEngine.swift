import CEspeak
import Foundation
import Synchronization

/// The eSpeak NG library as a `SpeechEngine`.
///
/// eSpeak NG 1.51 is one global, non-thread-safe instance that can be initialised only once per
/// process (see `shared/design/SPEECH.md`). So there is one `EspeakEngine` (`shared`), and every
/// eSpeak call runs on the process's speech thread (`SpeechThread`), one at a time: callers from
/// other threads wait their turn; a caller on the speech thread (a `SpeechService` step) runs at
/// once. Output is SYNCHRONOUS: the callback runs on that thread and hands PCM to the caller's
/// handler; stopping is the callback returning 1.
public final class EspeakEngine: SpeechEngine, Sendable {
    /// The process's engine.
    public static let shared = EspeakEngine()

    /// eSpeak's buffer in milliseconds: how much audio each callback carries, hence how fast a stop
    /// takes effect during synthesis.
    public static let bufferMilliseconds: Int32 = 20

    private let thread = SpeechThread.shared

    private init() {}

    /// Runs `body` on the speech thread, eSpeak started, and returns its result (blocking the caller).
    private func onEngineThread<T: Sendable>(_ body: @escaping @Sendable () throws -> T) throws -> T {
        let thread = self.thread
        return try thread.run {
            try thread.enterEngine {
                try EngineState.ensureInitialized()
                return try body()
            }
        }
    }

    /// Starts eSpeak (if not yet started) and reports what went wrong if it cannot.
    public func start() throws {
        try onEngineThread {}
    }

    public func synthesize(
        _ utterance: SpeechUtterance, stop: StopToken?,
        handler: @escaping @Sendable (SpeechChunk) -> SynthesisDecision
    ) throws -> SynthesisResult {
        try onEngineThread {
            try EngineState.synthesize(utterance, stop: stop, handler: handler)
        }
    }

    /// Synthesises without blocking a Swift concurrency thread.
    public func synthesize(
        _ utterance: SpeechUtterance, stop: StopToken? = nil,
        handler: @escaping @Sendable (SpeechChunk) -> SynthesisDecision
    ) async throws -> SynthesisResult {
        let thread = self.thread
        return try await withCheckedThrowingContinuation { continuation in
            thread.enqueue {
                continuation.resume(
                    with: Result {
                        try thread.enterEngine {
                            try EngineState.ensureInitialized()
                            return try EngineState.synthesize(utterance, stop: stop, handler: handler)
                        }
                    })
            }
        }
    }

    /// True when eSpeak accepts `name` as a voice. Cheaper than listing every voice, but eSpeak
    /// accepts unknown variants (`en+child`) silently: check variants with `voices()`.
    public func hasVoice(_ name: String) throws -> Bool {
        try onEngineThread { EngineState.selectVoice(name) }
    }

    /// The installed languages and variants.
    public func voices() throws -> VoiceCatalog {
        try onEngineThread { EngineState.listVoices() }
    }
}

/// The state of one running synthesis, reached from the C callback through `user_data`.
private final class SynthesisContext {
    let handler: @Sendable (SpeechChunk) -> SynthesisDecision
    let stop: StopToken?
    var samplesSoFar = 0
    var wasStopped = false

    init(handler: @escaping @Sendable (SpeechChunk) -> SynthesisDecision, stop: StopToken?) {
        self.handler = handler
        self.stop = stop
    }
}

/// Everything that touches eSpeak. Only ever used on the speech thread, inside `enterEngine`.
private enum EngineState {
    nonisolated(unsafe) static var initialization: Result<Void, SpeechEngineError>?
    nonisolated(unsafe) static var currentVoice: String?
    /// The running synthesis, for the rare callback that arrives without `user_data`.
    nonisolated(unsafe) static var current: SynthesisContext?

    static func ensureInitialized() throws {
        if let initialization { return try initialization.get() }
        let rate = espeak_Initialize(
            AUDIO_OUTPUT_SYNCHRONOUS, EspeakEngine.bufferMilliseconds, nil,
            Int32(espeakINITIALIZE_DONT_EXIT))
        if rate <= 0 {
            initialization = .failure(.initializationFailed("espeak_Initialize returned \(rate); its data (phondata, voices) is missing"))
        } else if Int(rate) != SpeechAudioFormat.sampleRate {
            initialization = .failure(.initializationFailed("unexpected sample rate \(rate) Hz"))
        } else {
            espeak_SetSynthCallback(espeakCallback)
            initialization = .success(())
        }
        try initialization!.get()
    }

    static func synthesize(
        _ utterance: SpeechUtterance, stop: StopToken?,
        handler: @escaping @Sendable (SpeechChunk) -> SynthesisDecision
    ) throws -> SynthesisResult {
        let voice = utterance.voiceName
        guard selectVoice(voice) else { throw SpeechEngineError.voiceNotFound(voice) }
        let settings = utterance.settings
        espeak_SetParameter(espeakRATE, Int32(SpeechSettings.rateRange.clamp(settings.rate)), 0)
        espeak_SetParameter(espeakPITCH, Int32(SpeechSettings.pitchRange.clamp(settings.pitch)), 0)
        espeak_SetParameter(espeakVOLUME, Int32(SpeechSettings.volumeRange.clamp(settings.volume)), 0)

        var flags: Int32
        switch utterance.encoding {
        case .plain: flags = Int32(espeakCHARS_UTF8)
        case .ssml: flags = Int32(espeakCHARS_UTF8 | espeakSSML)
        case .commandLineCompatible: flags = Int32(espeakCHARS_AUTO | espeakPHONEMES)
        }
        if utterance.endPause { flags |= Int32(espeakENDPAUSE) }

        let context = SynthesisContext(handler: handler, stop: stop)
        current = context
        // SSML's <voice xml:lang> (a name in its own language) changes eSpeak's voice behind our
        // back: the next text selects its voice again, whatever we think is loaded.
        let switchesVoice = utterance.encoding == .ssml && utterance.text.contains("<voice")
        defer {
            current = nil
            if switchesVoice { currentVoice = nil }
        }
        if stop?.isStopped == true { return SynthesisResult(sampleCount: 0, wasStopped: true) }
        // Swift strings are valid UTF-8; a NUL would end the text early, so it goes.
        let text = utterance.text.contains("\0") ? utterance.text.replacingOccurrences(of: "\0", with: " ") : utterance.text
        let status = text.withCString { pointer in
            espeak_Synth(
                pointer, strlen(pointer) + 1, 0, POS_CHARACTER, 0, UInt32(flags), nil,
                Unmanaged.passUnretained(context).toOpaque())
        }
        guard status == EE_OK else { throw SpeechEngineError.synthesisFailed(code: Int(status.rawValue)) }
        return SynthesisResult(sampleCount: context.samplesSoFar, wasStopped: context.wasStopped)
    }

    static func selectVoice(_ voice: String) -> Bool {
        if voice == currentVoice { return true }
        guard espeak_SetVoiceByName(voice) == EE_OK else {
            currentVoice = nil  // whatever eSpeak kept, select again next time
            return false
        }
        currentVoice = voice
        return true
    }

    static func listVoices() -> VoiceCatalog {
        func collect(_ list: UnsafeMutablePointer<UnsafePointer<espeak_VOICE>?>?) -> [VoiceCatalog.Voice] {
            guard let list else { return [] }
            var voices: [VoiceCatalog.Voice] = []
            var index = 0
            while let voice = list[index]?.pointee {
                index += 1
                let name = voice.name.map { String(cString: $0) } ?? ""
                let identifier = voice.identifier.map { String(cString: $0) } ?? ""
                // `languages`: (priority byte, name, NUL)… then NUL.
                var languages: [String] = []
                if var cursor = voice.languages {
                    while cursor.pointee != 0 {
                        cursor += 1  // the priority byte
                        let language = String(cString: cursor)
                        languages.append(language)
                        cursor += strlen(cursor) + 1
                    }
                }
                let gender: VoiceCatalog.Voice.Gender =
                    switch voice.gender {
                    case 1: .male
                    case 2: .female
                    default: .unspecified
                    }
                voices.append(VoiceCatalog.Voice(name: name, identifier: identifier, languages: languages, gender: gender))
            }
            return voices
        }
        let languages = collect(espeak_ListVoices(nil))
        var spec = espeak_VOICE()
        let variants = "variant".withCString { pointer in
            spec.languages = pointer
            return collect(espeak_ListVoices(&spec))
        }
        return VoiceCatalog(languages: languages, variants: variants)
    }
}

/// The C callback: no captures; state comes through the event's `user_data`.
private func espeakCallback(
    _ wav: UnsafeMutablePointer<Int16>?, _ count: Int32, _ events: UnsafeMutablePointer<espeak_EVENT>?
) -> Int32 {
    var context: SynthesisContext? = nil
    if let userData = events?.pointee.user_data {
        context = Unmanaged<SynthesisContext>.fromOpaque(userData).takeUnretainedValue()
    } else {
        context = EngineState.current
    }
    guard let context else { return 1 }
    if context.wasStopped { return 1 }
    if context.stop?.isStopped == true {
        context.wasStopped = true
        return 1
    }
    var collected: [SpeechEvent] = []
    if var event = events {
        while event.pointee.type != espeakEVENT_LIST_TERMINATED {
            let e = event.pointee
            let offset = max(0, Int(e.text_position) - 1)
            switch e.type {
            case espeakEVENT_WORD:
                collected.append(SpeechEvent(kind: .wordStart(length: Int(e.length)), textOffset: offset, sample: Int(e.sample)))
            case espeakEVENT_SENTENCE:
                collected.append(SpeechEvent(kind: .sentenceStart, textOffset: offset, sample: Int(e.sample)))
            case espeakEVENT_MARK:
                // The name dies with the callback: copy it now.
                let name = e.id.name.map { String(cString: $0) } ?? ""
                collected.append(SpeechEvent(kind: .mark(name), textOffset: offset, sample: Int(e.sample)))
            case espeakEVENT_END:
                collected.append(SpeechEvent(kind: .clauseEnd, textOffset: offset, sample: Int(e.sample)))
            default:
                break
            }
            event += 1
        }
    }
    let sampleCount = wav == nil ? 0 : Int(max(0, count))
    if sampleCount == 0 && collected.isEmpty { return 0 }
    let buffer = UnsafeBufferPointer(start: sampleCount == 0 ? nil : wav, count: sampleCount)
    let chunk = SpeechChunk(samples: buffer, firstSample: context.samplesSoFar, events: collected)
    context.samplesSoFar += sampleCount
    if context.handler(chunk) == .stop || context.stop?.isStopped == true {
        context.wasStopped = true
        return 1
    }
    return 0
}
