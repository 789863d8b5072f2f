import Synchronization

/// One thing to say: text, voice settings and how the text is to be read.
public struct SpeechUtterance: Sendable, Hashable {
    /// How eSpeak reads `text`.
    public enum Encoding: Sendable, Hashable {
        /// Plain UTF-8 text (`espeakCHARS_UTF8`).
        case plain
        /// SSML (`espeakSSML`), used for `<mark name="…"/>` word marks.
        case ssml
        /// The flags the `espeak-ng` command uses (`espeakCHARS_AUTO|espeakPHONEMES`), so that output
        /// can be compared byte for byte with `espeak-ng -w`. Never for untrusted text.
        case commandLineCompatible
    }

    public var text: String
    /// Rate, pitch and volume; `settings.voice` must already be resolved (see `VoiceCatalog`).
    public var settings: SpeechSettings
    public var encoding: Encoding
    /// Adds eSpeak's pause at the end of the text (`espeakENDPAUSE`), as a sentence end would have.
    public var endPause: Bool

    public init(text: String, settings: SpeechSettings, encoding: Encoding = .plain, endPause: Bool = true) {
        self.text = text
        self.settings = settings
        self.encoding = encoding
        self.endPause = endPause
    }

    /// The voice name handed to eSpeak.
    public var voiceName: String { settings.voice ?? "en" }
}

/// Something eSpeak reported while synthesising, at a sample offset from the start of the utterance.
public struct SpeechEvent: Sendable, Hashable {
    public enum Kind: Sendable, Hashable {
        case sentenceStart
        /// A word starts; `length` in Unicode scalars as eSpeak reports it (unreliable, see SPEECH.md).
        case wordStart(length: Int)
        /// An SSML `<mark name="…"/>`.
        case mark(String)
        /// The end of a sentence or clause.
        case clauseEnd
    }

    public var kind: Kind
    /// 0-based offset in Unicode scalars into the utterance text (eSpeak's 1-based `text_position` − 1).
    public var textOffset: Int
    /// The sample, counted from the start of the utterance, where the event happens.
    public var sample: Int

    public init(kind: Kind, textOffset: Int, sample: Int) {
        self.kind = kind
        self.textOffset = textOffset
        self.sample = sample
    }
}

/// What the handler answers after each chunk of synthesis.
public enum SynthesisDecision: Sendable {
    case proceed
    case stop
}

/// How a synthesis ended.
public struct SynthesisResult: Sendable, Hashable {
    /// Samples delivered.
    public var sampleCount: Int
    /// True when it was stopped (by the handler or the stop token) before the end.
    public var wasStopped: Bool
}

/// A flag that stops a running synthesis from any thread; checked in the eSpeak callback, so
/// synthesis stops within one eSpeak buffer.
public final class StopToken: Sendable {
    private let flag = Atomic<Bool>(false)
    public init() {}
    public func stop() { flag.store(true, ordering: .releasing) }
    public var isStopped: Bool { flag.load(ordering: .acquiring) }
}

/// Failures of the speech engine, worded for the person who sees them.
/// `description` is English; `localized` says it in the parent's language.
public enum SpeechEngineError: TranslatableError, Sendable, Hashable, CustomStringConvertible {
    case initializationFailed(String)
    case voiceNotFound(String)
    case synthesisFailed(code: Int)

    public var description: String { localized(.english) }

    public func localized(_ messages: MessageCatalog) -> String {
        switch self {
        case .initializationFailed(let detail):
            messages.tr("eSpeak NG could not start: {detail}. Install the espeak-ng-data package (voices and dictionaries).", ["detail": detail])
        case .voiceNotFound(let name):
            messages.tr("eSpeak NG has no voice '{voice}': run 'storyreader voices' to see the voices installed", ["voice": name])
        case .synthesisFailed(let code):
            messages.tr("eSpeak NG failed to synthesise (error {code})", ["code": String(code)])
        }
    }
}

/// A chunk of synthesis: samples (valid only during the handler call) and the events within it.
public struct SpeechChunk {
    /// The samples of this chunk; copy them if you keep them.
    public var samples: UnsafeBufferPointer<Int16>
    /// The sample offset of `samples[0]` from the start of the utterance.
    public var firstSample: Int
    /// Events in this chunk, in order, as eSpeak reported them (stray ones included: see `NarrationAligner`).
    public var events: [SpeechEvent]
}

/// A speech synthesiser: an utterance in, PCM chunks and events out.
public protocol SpeechEngine: Sendable {
    /// Synthesises `utterance`, calling `handler` for every chunk (on the engine's own thread) until
    /// the end, until the handler answers `.stop`, or until `stop` is stopped. Blocks the caller.
    func synthesize(
        _ utterance: SpeechUtterance, stop: StopToken?,
        handler: @escaping @Sendable (SpeechChunk) -> SynthesisDecision
    ) throws -> SynthesisResult
}
