import Foundation

/// Word by word: the reading aid that says one word on demand (`e`: slowly, then spelled, shown
/// big with its syllables) and, while paused, moves a word at a time with the word said aloud.
extension Session {
    /// A story's own words are said in its voice: the child's speed, pitch and volume, and the
    /// story's language unless the child chose a voice.
    func storyVoice(_ reader: ReaderState) -> SpeechSettings {
        var speech = state.profile.speech
        if speech.voice == nil { speech.voice = reader.story.language }
        return speech
    }

    /// A word as written, without the punctuation around it ("“Oh" → "Oh", "sea," → "sea").
    static func bare(_ word: String) -> String {
        let scalars = word.unicodeScalars
        guard let first = scalars.firstIndex(where: { CharacterSet.alphanumerics.contains($0) }),
            let last = scalars.lastIndex(where: { CharacterSet.alphanumerics.contains($0) })
        else { return "" }
        return String(scalars[first...last])
    }

    /// Left and Right while paused: the next or previous word, said in the story's voice.
    mutating func moveWord(by delta: Int) -> [Effect] {
        guard var reader = state.reader, state.stack.contains(.reader) else { return [speak(tr("Nothing is being read."))] }
        guard reader.status == .paused else {
            return [speak(tr("Word by word works while the story is paused: press Space to pause first."))]
        }
        let words = reader.story.words
        var target = reader.wordIndex + delta
        // Words with nothing to say (a lone dash) are stepped over.
        while words.indices.contains(target), Self.bare(words[target].text).isEmpty { target += delta }
        guard target >= 0 else { return [speak(tr("Top: this is the first word."))] }
        guard target < words.count else { return [speak(tr("End: this is the last word."))] }
        reader.wordIndex = target
        reader.explained = nil
        state.reader = reader
        return [.speakWith(Utterance(Self.bare(words[target].text), priority: .message), storyVoice(reader)), .render]
    }

    /// `e`: the word being read, said slowly, then spelled letter by letter, shown big with its
    /// syllables; then the story goes on from that word (the announcements are said first), unless
    /// the child is reading it to the coach (`thenReads` false): then the child goes on.
    mutating func explainWord(thenReads: Bool = true) -> [Effect] {
        guard var reader = state.reader, state.stack.contains(.reader) else { return [speak(tr("Nothing is being read."))] }
        guard reader.status == .playing || reader.status == .paused, let written = reader.word else {
            return [speak(tr("There is no word to explain here."))]
        }
        let word = Self.bare(written)
        guard !word.isEmpty else { return [speak(tr("There is no word to explain here."))] }
        let wasPlaying = reader.status == .playing
        reader.explained = (reader.wordIndex, Syllables.dotted(word, language: reader.story.language))
        let voice = storyVoice(reader)
        var slow = voice
        slow.rate = max(SpeechSettings.rateRange.lowerBound, voice.rate * 6 / 10)
        let letters = word.map { String($0) }.joined(separator: ", ")
        // Paused in the speech service, to go on at the very sound where it stopped.
        if wasPlaying { reader.held = heldNarration(reader) }
        var effects: [Effect] = wasPlaying ? [.pauseNarration] : []
        effects.append(.speakWith(Utterance(word, priority: .message), slow))
        effects.append(.speakWith(Utterance(letters + ".", priority: .message, spelling: word), voice))
        guard thenReads else {
            state.reader = reader
            return effects + [.render]
        }
        reader.status = .playing
        reader.stopsAfterSentence = reader.stepMode
        state.reader = reader
        effects.append(narrate())
        effects.append(.render)
        return effects
    }

    /// A routing key on the braille display (or `word N`): reading goes on from word `index`;
    /// while paused, the word is first said slowly and spelled, as `e` does.
    mutating func goToWord(_ index: Int) -> [Effect] {
        guard var reader = state.reader, state.stack.contains(.reader) else { return [speak(tr("Nothing is being read."))] }
        guard reader.story.words.indices.contains(index) else {
            return [speak(trn("This story has {count} word.", "This story has {count} words.", reader.story.words.count))]
        }
        // Playing, or reading to the coach (which then follows from there): no word said first.
        guard reader.status == .paused, state.coaching == nil else { return jumpReading(to: index) }
        reader.wordIndex = index
        reader.explained = nil
        state.reader = reader
        return explainWord()
    }
}
