import Foundation

/// The soft tone heard where reading passes a bookmark: made by the program (no sound file), a
/// short sine at the speech's sample rate, faded in and out so that it never clicks.
public enum BookmarkTone {
    /// 60 ms of 880 Hz (an A, above a voice's range) at about a fifth of full scale, with 15 ms
    /// fades: heard between two words without covering either.
    public static let samples: [Int16] = make(milliseconds: 60, frequency: 880, amplitude: 0.2, fadeMilliseconds: 15)

    /// A sine of `milliseconds` at `frequency` Hz, its peak `amplitude` (0–1) of full scale, with
    /// linear fades of `fadeMilliseconds` at both ends.
    public static func make(milliseconds: Int, frequency: Double, amplitude: Double, fadeMilliseconds: Int) -> [Int16] {
        let rate = SpeechAudioFormat.sampleRate
        let count = rate * milliseconds / 1000
        let fade = max(1, rate * fadeMilliseconds / 1000)
        return (0..<count).map { index in
            let envelope = min(1, Double(min(index, count - 1 - index)) / Double(fade))
            let value = sin(2 * Double.pi * frequency * Double(index) / Double(rate)) * amplitude * envelope
            return Int16((value * Double(Int16.max)).rounded())
        }
    }
}

extension BookmarkTone {
    /// `sound` with the tone put in before each of `places` (sample offsets in it; one tone for
    /// offsets that are the same), so that it is heard at a bookmarked word, not before its sentence.
    public static func placed(in sound: [Int16], before places: [Int]) -> [Int16] {
        var out: [Int16] = []
        out.reserveCapacity(sound.count + places.count * samples.count)
        var from = 0
        for place in Set(places.map { min(max(0, $0), sound.count) }).sorted() {
            out += sound[from..<place]
            out += samples
            from = place
        }
        return out + sound[from...]
    }

    /// Where sample `offset` of a sound is once tones are put in before `places` (`placed`): a
    /// word at a place is heard after its tone.
    public static func moved(_ offset: Int, places: [Int]) -> Int {
        offset + samples.count * Set(places).filter { $0 <= offset }.count
    }
}
