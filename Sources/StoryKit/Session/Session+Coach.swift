/// The read-along coach in the reader (issue 45): `r` ("I read it myself") hands the story to the
/// child. The story's voice stops, the shell opens the microphone (`Effect.listen`, never before),
/// and the coach's news comes back through the loop's one inbox (`Input.coach`): each word heard
/// moves the highlight (and the braille display, which follows the reader's word), a silence brings
/// the next word in the story's voice, and `r` again or Escape closes the microphone and says the
/// tally.
extension Session {
    /// `--coach-wait`: the silence before the coach says the next word (2–8 s), for every child of
    /// this run (else each child's own Coach waits).
    public mutating func setCoachWait(milliseconds: Int) {
        state.options.coachWaitMilliseconds = ReadingCoach.Settings(waitMilliseconds: milliseconds).waitMilliseconds
    }

    /// `read --coach` on a terminal (and, with a microphone, without one): the reader opened on the
    /// story as `read` opens it, with `r` pressed before the story's voice says a word. The coach
    /// cannot follow this story's language: the notice, and the story read as without `--coach`.
    public mutating func startCoachingAlone(_ storyID: String, fromSentence sentence: Int? = nil) -> [Effect] {
        var opening = startReadingAlone(storyID, fromSentence: sentence)
        guard let reader = state.reader, reader.story.id == storyID, state.route == .reader,
            ListeningModel.forLanguage(reader.story.language) != nil
        else { return opening + toggleCoaching() }
        // The story's voice was asked for but has not started: nothing to pause, and it stays quiet.
        opening.removeAll { if case .narrate = $0 { true } else { false } }
        return opening + toggleCoaching().filter { $0 != .pauseNarration }
    }

    /// `r`: starts coaching from the sentence being read, or stops it.
    mutating func toggleCoaching() -> [Effect] {
        guard var reader = state.reader, state.stack.contains(.reader) else { return [speak(tr("Nothing is being read."))] }
        if state.coaching != nil { return stopCoaching() }
        guard ListeningModel.forLanguage(reader.story.language) != nil else {
            // Said in the child's language; the story goes on as it was.
            return [speak(ListeningModel.englishOnly(title: reader.story.title, state.messages), .message)]
        }
        var effects: [Effect] = []
        let wasPlaying = reader.status == .playing
        if wasPlaying { effects.append(.pauseNarration) }
        let map = reader.map
        let first = map.spokenSentences.first { $0 >= reader.sentence } ?? reader.sentence
        reader.wordIndex = map.firstWord(ofSentence: first)
        reader.status = .paused
        reader.explained = nil
        // The child reads from the sentence's start: the speech service's paused place is not it.
        reader.held = nil
        state.reader = reader
        state.coachListenings += 1
        state.coaching = CoachingState(listening: state.coachListenings, wasPlaying: wasPlaying)
        effects += savePosition()
        effects.append(speak(tr("Your turn: read it to me."), .message))
        effects.append(listen(from: first))
        return effects + [.render]
    }

    /// The sentences from `sentence` to the story's end, for the coach to follow.
    private func listen(from sentence: Int) -> Effect {
        let reader = state.reader!
        let map = reader.map
        let words = reader.story.words
        // A picture's description is not on the page for the child to read.
        let onPage = { (index: Int) -> Bool in
            if case .picture = map.blockKind[map.sentenceBlock[index]] { return false }
            return true
        }
        let sentences = map.spokenSentences.filter { $0 >= sentence && onPage($0) }.map { index in
            CoachSentence(id: index, words: words[map.sentenceFirstWord[index]..<map.sentenceFirstWord[index + 1]].map(\.text))
        }
        // `--coach-wait` for every child of this run, else the child's own Coach waits.
        let wait = state.options.coachWaitMilliseconds ?? state.profile.settings.coachWaitSeconds * 1000
        return .listen(CoachListening(listening: state.coaching?.listening ?? 0, sentences: sentences, waitMilliseconds: wait))
    }

    /// `r` again, Escape, or leaving the reader: the microphone is closed and the tally said. A
    /// child's read with the coach is kept for them (unless nothing was read or said), apart from
    /// the finished reads, and counted on the library's card at once.
    mutating func stopCoaching() -> [Effect] {
        guard let coaching = state.coaching else { return [] }
        state.coaching = nil
        let tally = CoachTally(read: coaching.read, helped: coaching.helped, skipped: coaching.skipped)
        var effects: [Effect] = [.stopListening]
        if state.profileName != nil, let id = state.profile.id, let story = state.reader?.story.id, tally.read + tally.helped > 0 {
            updateReading(story) { $0.coachedCount += 1 }
            effects.append(.save(.recordCoachedRead(profileID: id, story: story, tally)))
        }
        return effects + [speak(tally.spoken(state.messages), .message), .render]
    }

    /// A move while coaching (a sentence, paragraph or page; Home, End): the coach listens from
    /// there, the story's voice staying quiet.
    mutating func coachJump(to word: Int) -> [Effect] {
        guard var reader = state.reader, state.coaching != nil else { return [] }
        reader.wordIndex = word
        reader.explained = nil
        reader.held = nil
        state.reader = reader
        state.coachListenings += 1
        state.coaching?.listening = state.coachListenings
        return [.stopListening, listen(from: reader.sentence), .render]
    }

    /// The coach's news, from the listening thread through the inbox. News of a listening that
    /// has ended (coaching stopped, or restarted at a move) is old and changes nothing.
    mutating func coachNews(_ news: CoachNews) -> [Effect] {
        guard let coaching = state.coaching, var reader = state.reader, news.listening == coaching.listening else { return [] }
        switch news {
        case .failed(let problem, _):
            // Said once, and reading goes on as before: the story's voice again if it was reading.
            state.coaching = nil
            let said: [Effect] = [.stopListening, speak(problem.localized(state.messages), .message), .render]
            guard coaching.wasPlaying else { return said }
            reader.status = .playing
            reader.stopsAfterSentence = reader.stepMode
            state.reader = reader
            return said + [narrate()]
        case .event(let event, _):
            switch event {
            case .heard(let word, _, _):
                state.coaching?.read += 1
                reader.wordIndex = storyWord(word, reader)
                state.reader = reader
                return [.render]
            case .help(let word, _):
                state.coaching?.helped += 1
                reader.wordIndex = storyWord(word, reader)
                state.reader = reader
                // The next word, said for the child in the story's voice (and shown as said).
                return [.speakWith(Utterance(Self.bare(word.text), priority: .message), storyVoice(reader)), .render]
            case .skipped:
                // Noted, never said: repetitions and words passed over are not held against anyone.
                state.coaching?.skipped += 1
                return []
            case .finished:
                // The last word was read (or the microphone ended): the tally, and the reader
                // waits; `read` ends there, as at the story's end.
                guard state.options.endsWithReading else { return stopCoaching() }
                state.hasQuit = true
                return stopCoaching() + [.exit]
            }
        }
    }

    /// The story's word (an index into `Story.words`) that a coach's word stands for.
    private func storyWord(_ word: CoachWord, _ reader: ReaderState) -> Int {
        min(reader.map.firstWord(ofSentence: word.sentence) + word.index, max(reader.map.wordCount - 1, 0))
    }

    /// Keys and commands that mean something else while the child reads; nil: as without the coach.
    mutating func coachIntercepts(_ command: Command) -> [Effect]? {
        guard state.coaching != nil, state.route == .reader else { return nil }
        // The word heard or helped with, said slowly and spelled; the child goes on reading.
        return command == .explainWord ? explainWord(thenReads: false) : nil
    }
}

/// What the shell needs to follow the child reading: the sentences from where they start, as
/// written (the Session's sentence indices as their ids), and the silence before help.
public struct CoachListening: Sendable, Hashable {
    /// This listening's number: news of an earlier one is dropped.
    public var listening: Int
    public var sentences: [CoachSentence]
    public var waitMilliseconds: Int

    public init(listening: Int, sentences: [CoachSentence], waitMilliseconds: Int) {
        self.listening = listening
        self.sentences = sentences
        self.waitMilliseconds = waitMilliseconds
    }
}

/// The coach's news, sent from the listening thread through the loop's inbox.
public enum CoachNews: Sendable, Hashable {
    case event(CoachEvent, listening: Int)
    /// No microphone, or the speech model cannot be loaded: the coach does not listen.
    case failed(ListeningProblem, listening: Int)

    /// The listening the news is of.
    public var listening: Int {
        switch self {
        case .event(_, let listening), .failed(_, let listening): listening
        }
    }
}

/// The child reading to the coach: the words they read, were helped with and passed over.
public struct CoachingState: Sendable, Hashable {
    public var listening: Int
    /// The story's voice was reading when the child took over (a failing microphone gives it back).
    public var wasPlaying: Bool
    public var read = 0
    public var helped = 0
    public var skipped = 0
}
