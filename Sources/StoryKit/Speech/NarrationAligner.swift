/// Turns the events of one narration utterance into the sample where each word starts.
///
/// Every word has a `<mark>` before it, so every word gets a time, in order. Where eSpeak also
/// reports a word event inside the word's own text, that sample is used instead: marks sit where the
/// mark falls in the sound stream, which can be before a pause or an opening quote (measured: a mark
/// before `“don’t` came 158 ms before the word). Stray events (length 0, positions going back, in
/// markup) match no word and are ignored.
///
/// eSpeak joins a short word to the next one ("of reach", "the cat", "been debated"): the pair gets
/// one word event, at the first word's start, where the first word's mark also is. The second word
/// then starts after an estimate of the first word's length (letters at the speaking rate), so that
/// both are lit, in order.
public struct NarrationAligner: Sendable {
    /// Where a word's time came from.
    public enum Source: Sendable, Hashable { case mark, wordEvent, estimatedAfterJoinedWord }

    /// A word's start, in samples from the start of the utterance.
    public struct Timing: Sendable, Hashable {
        /// Index of the word in its sentence.
        public var word: Int
        public var sample: Int
        public var source: Source
    }

    public let utterance: NarrationUtterance
    /// Times so far, by word index within the sentence.
    public private(set) var timings: [Int: Timing] = [:]
    private var lastWord = -1
    private var lastSample = 0

    private let samplesPerLetter: Int

    public init(utterance: NarrationUtterance) {
        self.utterance = utterance
        // About 8 letters a word in connected speech, short words being quick.
        let rate = Double(SpeechSettings.rateRange.clamp(utterance.utterance.settings.rate))
        samplesPerLetter = Int(Double(SpeechAudioFormat.sampleRate) * 60 / (rate * 8))
    }

    /// Takes the events of one chunk; returns the words whose time was set or refined.
    public mutating func consume(_ events: [SpeechEvent]) -> [Timing] {
        var changed: [Timing] = []
        for event in events {
            switch event.kind {
            case .mark(let name):
                guard let word = NarrationUtterance.wordIndex(forMark: name), word > lastWord,
                    word >= utterance.firstWord, timings[word] == nil
                else { continue }
                changed.append(place(word, at: event.sample, source: .mark))
            case .wordStart:
                guard let word = utterance.wordIndex(atUtteranceOffset: event.textOffset) else { continue }
                if let existing = timings[word] {
                    // eSpeak's own start of the word just marked is exact: use it.
                    guard existing.source == .mark, word == lastWord, event.sample >= existing.sample else { continue }
                    let timing = Timing(word: word, sample: event.sample, source: .wordEvent)
                    timings[word] = timing
                    lastSample = timing.sample
                    changed.append(timing)
                } else if word > lastWord {
                    // A word whose mark never came.
                    changed.append(place(word, at: event.sample, source: .wordEvent))
                }
            case .sentenceStart, .clauseEnd:
                continue
            }
        }
        return changed
    }

    /// Sets word `word`'s time; a word that eSpeak starts together with the one before (same
    /// sample or earlier) starts after an estimate of that word's length instead.
    private mutating func place(_ word: Int, at sample: Int, source: Source) -> Timing {
        var timing = Timing(word: word, sample: max(sample, lastSample), source: source)
        if word > utterance.firstWord, word - 1 == lastWord, let previous = timings[word - 1], sample <= previous.sample {
            let letters = utterance.letterCounts[word - 1 - utterance.firstWord]
            timing = Timing(word: word, sample: previous.sample + max(1, letters) * samplesPerLetter, source: .estimatedAfterJoinedWord)
        }
        timings[word] = timing
        lastWord = word
        lastSample = timing.sample
        return timing
    }
}
