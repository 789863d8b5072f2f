import Foundation

/// Who reads a story to a child that has a recording (issue 29): the book's own recording where
/// it has one (the default), or always the synthetic voice (eSpeak NG).
public enum NarrationSource: String, Sendable, Hashable, Codable, CaseIterable {
    case recording
    case synthetic

    /// "recording", "synthetic", and also "book", "synthesis", "espeak".
    public init?(loose: String) {
        switch loose.trimmingCharacters(in: .whitespaces).lowercased() {
        case "recording", "recorded", "book", "narrator": self = .recording
        case "synthetic", "synthesis", "synthesised", "synthesized", "espeak", "espeak-ng", "voice": self = .synthetic
        default: return nil
        }
    }
}

/// The tempo a child's recordings play at: 1 is the recording's own pace; `+` and `-` step it by
/// a quarter within 0.5–2 (the range FFmpeg's `atempo` keeps the pitch in, see ``AudioClipDecoder``).
public enum RecordingTempo {
    public static let range = AudioClipDecoder.tempoRange
    public static let step = 0.25
    /// The values a picker offers (0.5, 0.75 … 2).
    public static let steps: [Double] = stride(from: range.lowerBound, through: range.upperBound, by: step).map { $0 }

    /// The next step up or down from `tempo` (a value between steps goes to the nearest step in
    /// that direction), held within the range.
    public static func stepped(_ tempo: Double, up: Bool) -> Double {
        let position = tempo / step
        let next = up ? (position + 0.001).rounded(.down) + 1 : (position - 0.001).rounded(.up) - 1
        return min(max(next * step, range.lowerBound), range.upperBound)
    }

    /// `tempo` rounded to hundredths, as it is stored and shown ("1.25", "0.5", "1").
    public static func text(_ tempo: Double) -> String {
        let hundredths = Int((tempo * 100).rounded())
        let whole = hundredths / 100
        let fraction = hundredths % 100
        if fraction == 0 { return String(whole) }
        return fraction % 10 == 0 ? "\(whole).\(fraction / 10)" : String(format: "%d.%02d", whole, fraction)
    }

    /// A tempo written as a number ("1.25", "1,25", "1.25x"); nil when it is none or out of range.
    public static func parse(_ text: String) -> Double? {
        var trimmed = text.trimmingCharacters(in: .whitespaces).lowercased().replacingOccurrences(of: ",", with: ".")
        if trimmed.hasSuffix("x") || trimmed.hasSuffix("×") { trimmed.removeLast() }
        guard !trimmed.isEmpty, trimmed.count <= 8, let value = Double(trimmed), value.isFinite, range.contains(value) else { return nil }
        return (value * 100).rounded() / 100
    }

    /// "its own pace", or "1.25 times its own pace", in the language of `messages`.
    public static func spoken(_ tempo: Double, _ messages: MessageCatalog) -> String {
        abs(tempo - 1) < 0.005 ? messages.tr("its own pace") : messages.tr("{tempo} times its own pace", ["tempo": text(tempo)])
    }
}
