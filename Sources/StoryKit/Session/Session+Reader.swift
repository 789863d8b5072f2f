/// Reading aloud: start, pause, resume, stop, move by sentence and paragraph, speed, step mode.
extension Session {
    mutating func startReading(_ storyID: String, fromWord: Int) -> [Effect] {
        guard let story = catalog.story(id: storyID) else {
            return [speak("That story could not be opened. It may have been moved.", .important)]
        }
        var effects: [Effect] = []
        if state.reader != nil, state.stack.contains(.reader) {
            effects += leaveReader(stopping: true)
            state.stack.removeAll { $0 == .reader }
        }
        let start = story.words.isEmpty ? 0 : min(max(fromWord, 0), story.words.count - 1)
        let wordIndex = sentenceStart(story, containing: start)
        var reader = ReaderState(story: story, wordIndex: wordIndex, status: .playing,
                                 stepMode: state.reader?.stepMode ?? state.profile.settings.stepMode)
        reader.stopsAfterSentence = reader.stepMode
        state.reader = reader
        if state.route != .story(storyID) { state.stack.append(.story(storyID)) }
        state.stack.append(.reader)
        state.focus["reader"] = "play"
        state.warning = nil
        let from = wordIndex == 0 ? "" : ", from " + Screens.pageText(story: story, word: wordIndex)
        effects.append(speak("Reading \(story.title)\(from). \(Screens.pageText(story: story, word: wordIndex).capitalizedFirst).", .message))
        effects.append(narrate())
        return effects
    }

    /// Reads the story from the start of the sentence saved for this profile.
    mutating func resumeReading(_ storyID: String) -> [Effect] {
        guard let story = catalog.story(id: storyID) else { return startReading(storyID, fromWord: 0) }
        return startReading(storyID, fromWord: story.firstWord(ofSentence: state.reading(storyID).sentenceIndex ?? 0))
    }

    func narrate() -> Effect {
        let reader = state.reader!
        return .narrate(storyID: reader.story.id, fromWord: reader.wordIndex, settings: state.profile.speech, stepMode: reader.stopsAfterSentence)
    }

    /// Index of the first word of the sentence holding `word`.
    func sentenceStart(_ story: Story, containing word: Int) -> Int {
        let sentences = story.sentences
        var index = 0
        for sentence in sentences {
            if word < index + sentence.words.count { return index }
            index += sentence.words.count
        }
        return max(0, min(word, story.words.count - 1))
    }

    /// (sentence index, first word) of every sentence with words.
    func sentenceStarts(_ story: Story) -> [Int] {
        var starts: [Int] = []
        var index = 0
        for sentence in story.sentences {
            if !sentence.words.isEmpty { starts.append(index) }
            index += sentence.words.count
        }
        return starts
    }

    mutating func pause() -> [Effect] {
        guard var reader = state.reader, state.stack.contains(.reader) else { return [speak("Nothing is being read.")] }
        guard reader.status == .playing else { return [speak("Already paused. Say resume to go on.")] }
        reader.status = .paused
        state.reader = reader
        var effects: [Effect] = [.pauseNarration]
        effects += savePosition()
        effects.append(speak("Paused at \(Screens.pageText(story: reader.story, word: reader.wordIndex)).", .message))
        return effects
    }

    mutating func resume() -> [Effect] {
        guard var reader = state.reader, state.stack.contains(.reader) else { return [speak("Nothing is being read. Choose a story first.")] }
        guard reader.status != .playing else { return [speak("Already reading.")] }
        if reader.status == .finished { reader.wordIndex = 0 }
        reader.status = .playing
        reader.stopsAfterSentence = reader.stepMode
        reader.wordIndex = sentenceStart(reader.story, containing: reader.wordIndex)
        state.reader = reader
        return [speak("Reading on.", .message), narrate()]
    }

    mutating func stopReading() -> [Effect] {
        var effects = leaveReader(stopping: true)
        if state.route == .reader { state.stack.removeLast() }
        effects.append(speak("Stopped.", .message))
        return effects + announceScreen()
    }

    /// Stops the narration and keeps the position (when reading did not finish).
    mutating func leaveReader(stopping: Bool) -> [Effect] {
        guard var reader = state.reader else { return [] }
        var effects: [Effect] = []
        if reader.status == .playing { effects.append(.stopNarration) }
        if reader.status == .playing || reader.status == .paused {
            effects += savePosition()
            reader.status = .stopped
        }
        state.reader = reader
        return effects
    }

    /// Keeps the sentence being read (the store keeps sentences; resuming starts that sentence again).
    mutating func savePosition() -> [Effect] {
        guard let reader = state.reader else { return [] }
        let sentence = reader.story.sentence(containingWord: reader.wordIndex)
        updateReading(reader.story.id) { $0.sentenceIndex = sentence }
        guard state.profileName != nil, let id = state.profile.id else { return [] }
        return [.save(.savePosition(profileID: id, story: reader.story.id, sentence: sentence))]
    }

    mutating func moveInStory(bySentence delta: Int) -> [Effect] {
        guard let reader = state.reader, state.stack.contains(.reader) else { return [speak("Nothing is being read.")] }
        let starts = sentenceStarts(reader.story)
        guard !starts.isEmpty else { return [speak("This story has no sentences.")] }
        let current = starts.lastIndex { $0 <= reader.wordIndex } ?? 0
        let target = current + delta
        guard target >= 0 else { return [speak("Top: this is the first sentence.")] }
        guard target < starts.count else { return [speak("End: this is the last sentence.")] }
        return jumpReading(to: starts[target])
    }

    mutating func moveInStory(byParagraph delta: Int) -> [Effect] {
        guard let reader = state.reader, state.stack.contains(.reader) else { return [speak("Nothing is being read.")] }
        var starts: [Int] = []
        var index = 0
        for block in reader.story.blocks {
            let count = block.sentences.reduce(0) { $0 + $1.words.count }
            if count > 0, block.kind == .paragraph { starts.append(index) }
            index += count
        }
        guard !starts.isEmpty else { return [speak("This story has no paragraphs.")] }
        let current = starts.lastIndex { $0 <= reader.wordIndex } ?? -1
        let target = current + delta
        guard target >= 0 else { return [speak("Top: this is the first paragraph.")] }
        guard target < starts.count else { return [speak("End: this is the last paragraph.")] }
        return jumpReading(to: starts[target])
    }

    /// Goes on reading from `word`: playing, it carries on from there; paused, it reads that sentence.
    mutating func jumpReading(to word: Int) -> [Effect] {
        guard var reader = state.reader else { return [] }
        let wasPlaying = reader.status == .playing
        reader.wordIndex = word
        reader.status = .playing
        reader.stopsAfterSentence = wasPlaying ? reader.stepMode : true
        state.reader = reader
        return (wasPlaying ? [.stopNarration] : []) + [narrate()]
    }

    mutating func toggleStepMode() -> [Effect] {
        guard var reader = state.reader else { return [speak("Step mode works while reading a story.")] }
        reader.stepMode.toggle()
        reader.stopsAfterSentence = reader.stepMode
        state.reader = reader
        return [speak(reader.stepMode ? "Step mode on: each sentence waits for Next sentence." : "Step mode off.", .message)]
    }

    mutating func changeRate(faster: Bool) -> [Effect] {
        var profile = state.profile
        let old = profile.speech.rate
        profile.speech = faster ? profile.speech.faster() : profile.speech.slower()
        state.profile = profile
        var effects: [Effect] = []
        if profile.speech.rate == old {
            effects.append(speak(faster ? "This is the fastest: \(old) words per minute." : "This is the slowest: \(old) words per minute."))
        } else {
            effects.append(speak("\(faster ? "Faster" : "Slower"): \(profile.speech.rate) words per minute."))
        }
        if state.reader?.status == .playing { effects.append(.changeSpeech(profile.speech)) }
        effects += saveSettings(state.storedProfile)
        return effects
    }

    mutating func handleNarration(_ event: NarrationEvent) -> [Effect] {
        guard var reader = state.reader, reader.status == .playing else { return [] }
        switch event {
        case .sentenceStarted(let index):
            let sentences = reader.story.sentences
            guard sentences.indices.contains(index) else { return [] }
            reader.wordIndex = sentences[..<index].reduce(0) { $0 + $1.words.count }
            state.reader = reader
            return [.caption(sentences[index].text)]
        case .word(let index):
            reader.wordIndex = index
            state.reader = reader
            return []
        case .sentenceFinished(let index):
            // The position moves on to the next sentence: a pause now resumes there.
            let sentences = reader.story.sentences
            if index + 1 < sentences.count, sentences.indices.contains(index) {
                reader.wordIndex = min(sentences[...index].reduce(0) { $0 + $1.words.count }, max(reader.story.words.count - 1, 0))
            }
            guard reader.stopsAfterSentence else { state.reader = reader; return [] }
            reader.status = .paused
            state.reader = reader
            return [.pauseNarration] + savePosition()
        case .finished:
            reader.status = .finished
            state.reader = reader
            updateReading(reader.story.id) { $0.sentenceIndex = nil }
            // A profile's read is counted by the store, in one transaction; its answer (the
            // store's count) is announced. The guest's reads are counted here and never saved.
            if state.profileName != nil, let id = state.profile.id {
                return [.save(.recordFinished(profileID: id, story: reader.story.id))]
            }
            updateReading(reader.story.id) { $0.readCount += 1 }
            return announceEnd(reader.story.id)
        }
    }

    /// "The end. Maya, you have read The Tiny Fox 3 times."
    func announceEnd(_ storyID: String) -> [Effect] {
        let count = state.reading(storyID).readCount
        let title = catalog.entry(id: storyID)?.title ?? state.reader?.story.title ?? storyID
        let times = count == 1 ? "once" : "\(count) times"
        let who = state.profileName.map { "\($0), you have" } ?? "You have"
        return [speak("The end. \(who) read \(title) \(times). Press Escape to go back.", .message)]
    }
}

extension Story {
    /// The index (into `sentences`) of the sentence holding word `word`.
    func sentence(containingWord word: Int) -> Int {
        var first = 0
        for (index, sentence) in sentences.enumerated() {
            if word < first + sentence.words.count { return index }
            first += sentence.words.count
        }
        return max(0, sentences.count - 1)
    }

    /// The first word (an index into `words`) of sentence `index`; past the end, the last sentence's.
    func firstWord(ofSentence index: Int) -> Int {
        let clamped = min(max(index, 0), max(sentences.count - 1, 0))
        return sentences.prefix(clamped).reduce(0) { $0 + $1.words.count }
    }
}

extension String {
    var capitalizedFirst: String { prefix(1).uppercased() + dropFirst() }
}
