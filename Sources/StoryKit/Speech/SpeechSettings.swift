/// How a story is spoken: rate, pitch, volume and voice.
///
/// Ranges follow eSpeak NG 1.51 as measured in `shared/design/SPEECH.md`. The command line rejects a
/// value out of range (`validate`); the REPL clamps it and says so (`clamped`).
public struct SpeechSettings: Sendable, Hashable, Codable {
    /// Words per minute.
    public var rate: Int
    /// 0 (low) … 100 (high); eSpeak's default is 50.
    public var pitch: Int
    /// 0 (silent) … 200 (loud, compressed above 100); eSpeak's default is 100.
    public var volume: Int
    /// An eSpeak voice name: a language (`en`, `en-us`, `es`, `fr`, `de`) with an optional variant
    /// (`en+f3`). `nil` means "the story's own language".
    public var voice: String?

    public static let rateRange = 80...450
    public static let pitchRange = 0...100
    public static let volumeRange = 0...200

    /// eSpeak NG's own defaults.
    public static let espeakDefaults = SpeechSettings(rate: 175, pitch: 50, volume: 100, voice: nil)
    /// The Magical Stories story voice: 80 % of the normal rate, pitch 10 % up, volume at 80 %.
    public static let storyDefaults = SpeechSettings(rate: 140, pitch: 55, volume: 80, voice: nil)

    public init(rate: Int = 140, pitch: Int = 55, volume: Int = 80, voice: String? = nil) {
        self.rate = rate
        self.pitch = pitch
        self.volume = volume
        self.voice = voice
    }

    /// One problem with a setting, worded for the person who typed it.
    public struct Problem: Error, Sendable, Hashable, CustomStringConvertible {
        public var setting: String
        public var value: Int
        public var range: ClosedRange<Int>
        public var description: String {
            "\(setting) \(value) is out of range: use a value from \(range.lowerBound) to \(range.upperBound)"
        }
    }

    /// Every out-of-range value, in the order rate, pitch, volume (empty when all are valid).
    public func problems() -> [Problem] {
        var found: [Problem] = []
        if !Self.rateRange.contains(rate) { found.append(Problem(setting: "rate", value: rate, range: Self.rateRange)) }
        if !Self.pitchRange.contains(pitch) { found.append(Problem(setting: "pitch", value: pitch, range: Self.pitchRange)) }
        if !Self.volumeRange.contains(volume) { found.append(Problem(setting: "volume", value: volume, range: Self.volumeRange)) }
        return found
    }

    /// The settings with every value pulled into its range, and the problems that were clamped.
    public func clamped() -> (settings: SpeechSettings, clamped: [Problem]) {
        var copy = self
        copy.rate = Self.rateRange.clamp(rate)
        copy.pitch = Self.pitchRange.clamp(pitch)
        copy.volume = Self.volumeRange.clamp(volume)
        return (copy, problems())
    }

    /// 10 % slower, clamped.
    public func slower() -> SpeechSettings {
        var copy = self
        copy.rate = Self.rateRange.clamp(Int((Double(rate) / 1.1).rounded()))
        return copy
    }

    /// 10 % faster, clamped.
    public func faster() -> SpeechSettings {
        var copy = self
        copy.rate = Self.rateRange.clamp(Int((Double(rate) * 1.1).rounded()))
        return copy
    }
}

extension ClosedRange where Bound == Int {
    /// `value` pulled into the range.
    public func clamp(_ value: Int) -> Int { Swift.min(Swift.max(value, lowerBound), upperBound) }
}
