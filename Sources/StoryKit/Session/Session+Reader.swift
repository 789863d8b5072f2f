import Foundation

/// Reading aloud, the one reader of the REPL, the kiosk and `storyreader read`: start, go on from
/// the place, pause and resume at the word, moves by sentence, paragraph and page, speed, step
/// mode, where am I, and the place said on pause, at page breaks and on coming back.
extension Session {
    // MARK: - Starting

    /// `read NAME`: a story left midway goes on from its place; `read NAME from start` starts over.
    mutating func read(_ typed: String) -> [Effect] {
        var name = typed.trimmingCharacters(in: .whitespaces)
        var fromStart = false
        for suffix in [" from start", " from the start", " --from-start", " again"] where name.lowercased().hasSuffix(suffix) {
            name = String(name.dropLast(suffix.count)).trimmingCharacters(in: .whitespaces)
            fromStart = true
        }
        if name.isEmpty { return [speak(tr("read needs a story's name: for example, read lighthouse."), .important)] }
        switch catalog.resolve(name) {
        case .success(let entry):
            // Read before anyone chose a profile (a script's first line): the guest reads, and
            // keeps no place past this run, which is said rather than found out at the next run;
            // short and once, as the story waits for it (where am I says how to keep the place).
            let asGuest = readsAsGuest && !state.toldGuest ? [speak(tr("Reading as the guest: the place is not kept."), .message)] : []
            if readsAsGuest { state.toldGuest = true }
            if !fromStart, state.reading(entry.id).sentenceIndex != nil { return asGuest + goOnReading(entry.id) }
            return asGuest + startReading(entry.id, fromWord: 0)
        case .failure(let error):
            return [speak(SpokenForm.finish(error.spoken(state.messages)), .important)]
        }
    }

    /// No profile was chosen (the profiles screen is the first): the guest reads and keeps no place.
    var readsAsGuest: Bool { state.profileName == nil && state.stack.first == .profiles }

    /// `storyreader read STORY`: the session opens on the reader of that story, and leaving the
    /// reader ends the program. `sentence` (from `--from`) wins over the saved place.
    public mutating func startReadingAlone(_ storyID: String, fromSentence sentence: Int? = nil) -> [Effect] {
        withLanguageRuns(openReadingAlone(storyID, fromSentence: sentence))
    }

    private mutating func openReadingAlone(_ storyID: String, fromSentence sentence: Int?) -> [Effect] {
        state.options.endsWithReading = true
        state.stack = [.library]
        if let sentence, let story = story(id: storyID) {
            return startReading(storyID, fromWord: StoryMap(story: story).firstWord(ofSentence: sentence), loaded: story, goingOn: false) + [.render]
        }
        if state.reading(storyID).sentenceIndex != nil { return goOnReading(storyID) + [.render] }
        return startReading(storyID, fromWord: 0) + [.render]
    }

    /// `goingOn`: from the place this child left (said "Going on with…"), not a place asked for.
    mutating func startReading(_ storyID: String, fromWord: Int, loaded: Story? = nil, goingOn: Bool = true) -> [Effect] {
        guard let story = loaded ?? story(id: storyID) else {
            return [speak(tr("That story could not be opened. It may have been moved."), .important)]
        }
        var effects: [Effect] = []
        if state.reader != nil, state.stack.contains(.reader) {
            effects += leaveReader(stopping: true)
            state.stack.removeAll { $0 == .reader }
        }
        var reader = ReaderState(story: story, status: .playing, stepMode: state.reader?.stepMode ?? state.profile.settings.stepMode)
        reader.wordIndex = reader.map.wordCount == 0 ? 0 : min(max(fromWord, 0), reader.map.wordCount - 1)
        reader.stopsAfterSentence = reader.stepMode
        state.reader = reader
        // The kiosk's log lists the stories read.
        if state.kiosk?.storiesRead.contains(storyID) == false { state.kiosk?.storiesRead.append(storyID) }
        noteSittingStarts(reader, goingOn: goingOn)
        if state.route != .story(storyID) { state.stack.append(.story(storyID)) }
        state.stack.append(.reader)
        state.focus["reader"] = "play"
        state.warning = nil
        let text =
            reader.wordIndex == 0
            ? tr("Reading {title}.", ["title": story.title])
            : goingOn
                ? tr("Going on with {title}, {place}.", ["title": story.title, "place": placeText(reader)])
                : tr("Reading {title}, from {place}.", ["title": story.title, "place": placeText(reader)])
        effects.append(speak(text, .message))
        effects += armBedtime()
        effects.append(narrate())
        return effects
    }

    /// Goes on from the place kept for this profile: the word where it paused in this run, else
    /// the saved sentence's first word.
    mutating func goOnReading(_ storyID: String) -> [Effect] {
        guard let story = story(id: storyID) else { return startReading(storyID, fromWord: 0) }
        let record = state.reading(storyID)
        let map = StoryMap(story: story)
        var word = map.firstWord(ofSentence: record.sentenceIndex ?? 0)
        if let kept = record.wordIndex, map.sentence(containingWord: kept) == record.sentenceIndex { word = kept }
        return startReading(storyID, fromWord: word, loaded: story)
    }

    /// Reads on from the reader's word: the narration held in the speech service goes on where it
    /// was, if nothing moved since the pause (not its word, voice or source); else it is told anew.
    mutating func narrate() -> Effect {
        let reader = state.reader!
        let settings = state.profile.speech
        state.reader?.held = nil
        if let held = reader.held, held == heldNarration(reader) {
            return .resumeNarration(settings: settings, stepMode: reader.stopsAfterSentence)
        }
        return .narrate(storyID: reader.story.id, fromWord: reader.wordIndex, settings: settings, stepMode: reader.stopsAfterSentence)
    }

    /// Where `reader`'s narration would be held if paused now.
    func heldNarration(_ reader: ReaderState) -> HeldNarration {
        HeldNarration(word: reader.wordIndex, voice: state.profile.speech.voice, recording: state.profile.settings.narration == .recording)
    }

    /// Pauses the narration in the speech service, which keeps it (`ReaderState.held`).
    mutating func pauseNarration() -> Effect {
        if let reader = state.reader {
            let held = heldNarration(reader)
            state.reader?.held = held
        }
        return .pauseNarration
    }

    /// Stops the narration: the speech service forgets it, so nothing is held any more.
    mutating func stopNarration() -> Effect {
        state.reader?.held = nil
        return .stopNarration
    }

    // MARK: - Pause, resume, stop

    mutating func togglePause() -> [Effect] {
        state.reader?.status == .playing ? pause() : resume()
    }

    mutating func pause() -> [Effect] {
        guard var reader = state.reader, state.stack.contains(.reader) else { return [speak(tr("Nothing is being read."))] }
        guard reader.status == .playing else { return [speak(tr("Already paused. Press Space to go on."))] }
        reader.status = .paused
        state.reader = reader
        return [pauseNarration()] + savePosition() + [speak(tr("Paused at {place}.", ["place": placeText(reader, naming: true)]), .message)]
    }

    /// Goes on from the word where reading paused, saying nothing first: the story itself is the answer.
    mutating func resume() -> [Effect] {
        guard var reader = state.reader, state.stack.contains(.reader) else { return [speak(tr("Nothing is being read. Choose a story first."))] }
        guard reader.status != .playing else { return [speak(tr("Already reading."))] }
        // The child was reading to the coach: the story's voice takes over from the word they reached.
        if state.coaching != nil { return stopCoaching() + resume() }
        if reader.status == .finished { reader.wordIndex = 0 }
        reader.status = .playing
        reader.stopsAfterSentence = reader.stepMode
        reader.pausedForParent = false
        state.reader = reader
        return [narrate()]
    }

    mutating func stopReading() -> [Effect] {
        var effects = leaveReader(stopping: true)
        if state.options.endsWithReading {
            state.hasQuit = true
            return effects + [speak(tr("Stopped."), .message), .exit]
        }
        if state.route == .reader { state.stack.removeLast() }
        focusGoOn()
        effects.append(speak(tr("Stopped."), .message))
        return effects + announceScreen()
    }

    /// Back from the reader with the place kept, Enter goes on from it: the focus is on Go on
    /// reading, not on Start again (which would throw the place away).
    mutating func focusGoOn() {
        guard case .story(let storyID) = state.route, state.reading(storyID).sentenceIndex != nil else { return }
        state.focusedID = "resume"
    }

    /// Stops the narration and keeps the place (when reading did not finish).
    mutating func leaveReader(stopping: Bool) -> [Effect] {
        guard var reader = state.reader else { return [] }
        // The microphone is closed before the reader is left, and the child hears their tally.
        var effects = stopCoaching()
        if reader.status == .playing {
            effects.append(.stopNarration)
            reader.held = nil
        }
        if reader.status == .playing || reader.status == .paused {
            effects += savePosition()
            reader.status = .stopped
        }
        state.reader = reader
        return effects
    }

    /// Keeps the place: the sentence in the store (what `read` and the next run go on from) and
    /// the word in memory (what this run goes on from).
    mutating func savePosition() -> [Effect] {
        guard let reader = state.reader else { return [] }
        let sentence = reader.sentence
        updateReading(reader.story.id) {
            $0.sentenceIndex = sentence
            $0.wordIndex = reader.wordIndex
        }
        state.snapshot.inProgress[state.profile.name] = reader.story.id
        guard state.profileName != nil, let id = state.profile.id else { return [] }
        return [.save(.savePosition(profileID: id, story: reader.story.id, sentence: sentence))]
    }

    // MARK: - Moving

    mutating func moveInStory(bySentence delta: Int) -> [Effect] {
        guard let reader = state.reader, state.stack.contains(.reader) else { return [speak(tr("Nothing is being read."))] }
        return move(among: reader.map.spokenSentences, by: delta, unit: .sentence)
    }

    mutating func moveInStory(byParagraph delta: Int) -> [Effect] {
        guard let reader = state.reader, state.stack.contains(.reader) else { return [speak(tr("Nothing is being read."))] }
        return move(among: reader.map.paragraphStarts, by: delta, unit: .paragraph)
    }

    mutating func moveInStory(byPage delta: Int) -> [Effect] {
        guard let reader = state.reader, state.stack.contains(.reader) else { return [speak(tr("Nothing is being read."))] }
        guard reader.map.pageCount > 1 else { return [speak(tr("This story has one page."))] }
        return move(among: reader.map.pageStarts, by: delta, unit: .page)
    }

    /// Home and End: the first sentence, the last one (said, since it is a long way to go).
    mutating func moveToEdge(end: Bool) -> [Effect] {
        guard let reader = state.reader, state.stack.contains(.reader) else { return [speak(tr("Nothing is being read."))] }
        guard let target = end ? reader.map.spokenSentences.last : reader.map.spokenSentences.first else {
            return [speak(tr("This story has no sentences."))]
        }
        return [speak(end ? tr("The last sentence.") : tr("The beginning."), .message)] + jumpReading(to: reader.map.firstWord(ofSentence: target))
    }

    /// Moves `delta` places among `starts` (sentence indices) from the sentence being heard.
    enum StoryUnit { case sentence, paragraph, page }

    private mutating func move(among starts: [Int], by delta: Int, unit: StoryUnit) -> [Effect] {
        guard let reader = state.reader else { return [] }
        guard !starts.isEmpty else {
            let none: String =
                switch unit {
                case .sentence: tr("This story has no sentences.")
                case .paragraph: tr("This story has no paragraphs.")
                case .page: tr("This story has no pages.")
                }
            return [speak(none)]
        }
        let here = reader.sentence
        let current = starts.lastIndex { $0 <= here } ?? -1
        let target = current + delta
        guard target >= 0 else {
            let first: String =
                switch unit {
                case .sentence: tr("Top: this is the first sentence.")
                case .paragraph: tr("Top: this is the first paragraph.")
                case .page: tr("Top: this is the first page.")
                }
            return [speak(first)]
        }
        guard target < starts.count else {
            let last: String =
                switch unit {
                case .sentence: tr("End: this is the last sentence.")
                case .paragraph: tr("End: this is the last paragraph.")
                case .page: tr("End: this is the last page.")
                }
            return [speak(last)]
        }
        return jumpReading(to: reader.map.firstWord(ofSentence: starts[target]))
    }

    /// Goes on reading from `word`: playing, it carries on from there; paused, it reads that sentence.
    /// Either way the narration is stopped first: paused, the speech keeps where a recording's clip
    /// was cut (to resume at the sample), and a move is a new place even onto the same word.
    mutating func jumpReading(to word: Int) -> [Effect] {
        // The child reading to the coach: the coach follows from there (`Session+Coach.swift`).
        if state.coaching != nil { return coachJump(to: word) }
        guard var reader = state.reader else { return [] }
        let wasPlaying = reader.status == .playing
        reader.wordIndex = word
        reader.status = .playing
        reader.stopsAfterSentence = wasPlaying ? reader.stepMode : true
        state.reader = reader
        return [stopNarration(), narrate()]
    }

    mutating func toggleStepMode() -> [Effect] {
        guard var reader = state.reader else { return [speak(tr("Step mode works while reading a story."))] }
        reader.stepMode.toggle()
        reader.stopsAfterSentence = reader.stepMode
        state.reader = reader
        return [speak(reader.stepMode ? tr("Step mode on: each sentence waits for Space.") : tr("Step mode off."), .message)]
    }

    mutating func changeRate(faster: Bool) -> [Effect] {
        // A story the book's recording reads: + and - step the recording's tempo, not the rate.
        if let story = state.reader?.story, story.recording != nil, state.profile.settings.narration == .recording {
            return changeRecordingTempo(faster: faster)
        }
        var profile = state.profile
        // A speed given on the command line ends here: the child's choice wins from now on.
        if state.presentationOverride.holds(.rate) {
            state.presentationOverride.release(.rate)
            var stored = state.storedProfile
            stored.speech.rate = profile.speech.rate
            state.profile = stored
        }
        let old = profile.speech.rate
        profile.speech = faster ? profile.speech.faster() : profile.speech.slower()
        let (rate, held) = allowedRate(profile.speech.rate)
        profile.speech.rate = rate
        state.profile = profile
        var effects: [Effect] = []
        if let held {
            effects.append(speak(held, .message))
        } else if profile.speech.rate == old {
            effects.append(
                speak(
                    faster
                        ? tr("This is the fastest: {rate} words per minute.", ["rate": String(old)])
                        : tr("This is the slowest: {rate} words per minute.", ["rate": String(old)])))
        } else {
            let rate = String(profile.speech.rate)
            effects.append(speak(faster ? tr("Faster: {rate} words per minute.", ["rate": rate]) : tr("Slower: {rate} words per minute.", ["rate": rate])))
        }
        if state.reader?.status == .playing { effects.append(.changeSpeech(profile.speech)) }
        effects += saveSettings(state.storedProfile)
        return effects
    }

    /// `+`/`-` while a recording reads: its tempo a quarter up or down (0.5–2), said, kept for
    /// the child as the rate is (a kiosk keeps it for the session).
    mutating func changeRecordingTempo(faster: Bool) -> [Effect] {
        guard childMayChange(.recordingTempo) else { return refusedSetting() }
        if state.presentationOverride.holds(.recordingTempo) {
            // A tempo given on the command line ends here: the child's choice wins from now on.
            let tempo = state.profile.settings.recordingTempo
            state.presentationOverride.release(.recordingTempo)
            var stored = state.storedProfile
            stored.settings.recordingTempo = tempo
            state.profile = stored
        }
        var profile = state.profile
        let old = profile.settings.recordingTempo
        // A kiosk holds it within the parent's tempo ±20 %, as it holds the speed.
        let (tempo, held) = allowedTempo(RecordingTempo.stepped(old, up: faster))
        profile.settings.recordingTempo = tempo
        state.profile = profile
        let value = RecordingTempo.spoken(tempo, state.messages)
        var effects: [Effect] = []
        if tempo == old {
            effects.append(
                speak(
                    faster
                        ? tr("This is the fastest recording tempo: {tempo}.", ["tempo": value])
                        : tr("This is the slowest recording tempo: {tempo}.", ["tempo": value])))
        } else {
            effects.append(speak(held ?? tr("Recording tempo: {tempo}.", ["tempo": value])))
        }
        if state.reader?.status == .playing { effects.append(.changeTempo(tempo)) }
        effects += saveSettings(state.storedProfile)
        return effects
    }

    // MARK: - The place, in the child's words

    /// "‘lighthouse’, page 2 of 5" (naming the word), or "page 2 of 5"; a one-page story counts sentences.
    func placeText(_ reader: ReaderState, naming: Bool = false) -> String {
        var parts: [String] = []
        if naming, let word = reader.word { parts.append(tr("‘{word}’", ["word": word])) }
        if reader.map.pageCount > 1 {
            parts.append(tr("page {page} of {pages}", ["page": String(reader.page + 1), "pages": String(reader.map.pageCount)]))
        } else {
            let spoken = reader.map.spokenSentences
            let index = (spoken.lastIndex { $0 <= reader.sentence } ?? 0) + 1
            parts.append(tr("sentence {sentence} of {sentences}", ["sentence": String(index), "sentences": String(spoken.count)]))
        }
        return parts.joined(separator: ", ")
    }

    /// Where am I, while reading: the story, what it is doing, page, sentence, paragraph, chapter.
    func whereAmIReading(_ reader: ReaderState) -> [Effect] {
        let map = reader.map
        let spoken = map.spokenSentences
        let sentence = (spoken.lastIndex { $0 <= reader.sentence } ?? 0) + 1
        let doing: String =
            switch reader.status {
            case .playing: tr("reading")
            case .paused: tr("paused")
            case .stopped: tr("stopped")
            case .finished: tr("finished")
            }
        var text = "\(reader.story.title), \(state.coaching == nil ? doing : tr("your turn to read"))"
        if reader.status != .finished, let word = reader.word { text += " " + tr("at ‘{word}’", ["word": word]) }
        text +=
            ". "
            + tr(
                "Page {page} of {pages}, sentence {sentence} of {sentences}",
                [
                    "page": String(reader.page + 1), "pages": String(map.pageCount), "sentence": String(sentence), "sentences": String(spoken.count),
                ])
        if let printed = printPagePlace(reader) { text += ", " + printed }
        if let paragraph = map.paragraph(ofSentence: reader.sentence) {
            text += ", " + tr("paragraph {paragraph} of {paragraphs}", ["paragraph": String(paragraph.number), "paragraphs": String(paragraph.of)])
        }
        if let chapter = map.chapter(ofSentence: reader.sentence) { text += ", " + tr("in ‘{chapter}’", ["chapter": chapter]) }
        if state.route != .reader { text += ". " + tr("You are on {screen}", ["screen": SpokenForm.finish(screen.title)]) }
        if readsAsGuest { text += ". " + tr("No profile is chosen: the place is not kept. Type profile and a name to keep it") }
        return [speak(text + ".")]
    }

    // MARK: - Narration heard

    mutating func handleNarration(_ event: NarrationEvent) -> [Effect] {
        guard var reader = state.reader, reader.status == .playing else { return [] }
        let map = reader.map
        switch event {
        case .sentenceStarted(let index):
            guard index >= 0, index < map.sentenceCount else { return [] }
            let first = map.firstWord(ofSentence: index)
            // Going on inside the sentence (a resume): the caption starts at the word heard.
            let resumed = map.sentence(containingWord: reader.wordIndex) == index && reader.wordIndex > first
            if !resumed { reader.wordIndex = first }
            state.reader = reader
            var effects: [Effect] = []
            if !resumed, map.startsPage(index) {
                // Said by the narration before the sentence (`Narration.pageAnnouncement`), shown here.
                effects.append(
                    .caption(
                        Narration.pageAnnouncement(
                            page: map.page(ofSentence: index), of: map.pageCount,
                            language: reader.story.language)))
            }
            // A bookmark's tone, heard at its word in the sentence (`Session+Bookmarks.swift`), shown too.
            effects += bookmarkCaption(sentence: index, fromWord: reader.wordIndex, map: map, story: reader.story.id)
            effects.append(.caption(captionText(reader, sentence: index, fromWord: resumed ? reader.wordIndex : nil)))
            return effects
        case .word(let index):
            reader.wordIndex = index
            // The explained word stays big until the reading has moved past it.
            var effects: [Effect] = []
            if let explained = reader.explained, explained.word != index {
                reader.explained = nil
                effects.append(.render)
            }
            state.reader = reader
            return effects
        case .sentenceFinished(let index):
            // The place moves on to the next sentence: a pause now goes on from there.
            if let next = map.spokenSentences.first(where: { $0 > index }) { reader.wordIndex = map.firstWord(ofSentence: next) }
            state.heardSentences[state.heardKey(reader.story.id), default: []].insert(index)
            state.reader = reader
            if let goodnight = bedtimeStops(afterSentence: index) { return goodnight }
            guard reader.stopsAfterSentence else {
                state.reader = reader
                return []
            }
            reader.status = .paused
            state.reader = reader
            return [pauseNarration()] + savePosition()
        case .finished:
            reader.status = .finished
            state.reader = reader
            updateReading(reader.story.id) {
                $0.sentenceIndex = nil
                $0.wordIndex = nil
            }
            if state.snapshot.inProgress[state.profile.name] == reader.story.id { state.snapshot.inProgress[state.profile.name] = nil }
            let heard = state.heardSentences.removeValue(forKey: state.heardKey(reader.story.id)) ?? []
            // A profile's read is counted by the store, in one transaction; its answer (the
            // store's count) is announced. Without a profile nothing is counted, and nothing is said
            // to be; nor when the child jumped to the end without hearing most of the story.
            if state.profileName != nil, let id = state.profile.id, Self.heardMost(heard, of: map) {
                return [.save(.recordFinished(profileID: id, story: reader.story.id))]
            }
            return endOfStory([speak(tr("The end.") + " " + tr("Press Escape to go back."), .message)])
        }
    }

    /// A read counts when its last sentence and at least half of its sentences were heard to their
    /// end (Home, End or moving on skip what they pass over).
    static func heardMost(_ heard: Set<Int>, of map: StoryMap) -> Bool {
        let spoken = map.spokenSentences
        guard let last = spoken.last else { return true }
        return heard.contains(last) && heard.intersection(spoken).count * 2 >= spoken.count
    }

    /// A sitting begins: from the beginning nothing is heard yet; going on from a place kept by an
    /// earlier run, the sentences before it count as heard then (this run's own are remembered).
    mutating func noteSittingStarts(_ reader: ReaderState, goingOn: Bool) {
        let key = state.heardKey(reader.story.id)
        if reader.wordIndex == 0 || !goingOn {
            state.heardSentences[key] = []
        } else if state.heardSentences[key] == nil {
            state.heardSentences[key] = Set(reader.map.spokenSentences.filter { $0 < reader.sentence })
        }
    }

    /// The caption of a story sentence: what is said, with a picture's "Picture: " as it is said.
    func captionText(_ reader: ReaderState, sentence index: Int, fromWord word: Int?) -> String {
        let sentences = reader.story.sentences
        let sentence = sentences[index]
        if let word, reader.story.words.indices.contains(word) {
            let start = reader.story.words[word].range.start - sentence.range.start
            return String(String.UnicodeScalarView(sentence.text.unicodeScalars.dropFirst(max(0, start))))
        }
        let block = reader.map.sentenceBlock[index]
        if case .picture = reader.map.blockKind[block], index == 0 || reader.map.sentenceBlock[index - 1] != block {
            return Narration.picturePrefix(forLanguage: reader.story.language) + sentence.text
        }
        return sentence.text
    }

    /// "The end. Maya, you have read The Tiny Fox 3 times."
    mutating func announceEnd(_ storyID: String) -> [Effect] {
        let count = state.reading(storyID).readCount
        let title = catalog.entry(id: storyID)?.title ?? state.reader?.story.title ?? storyID
        let read =
            state.profileName.map {
                trn(
                    "The end. {name}, you have read {title} once.", "The end. {name}, you have read {title} {count} times.", count,
                    ["name": $0, "title": title])
            } ?? trn("The end. You have read {title} once.", "The end. You have read {title} {count} times.", count, ["title": title])
        return endOfStory([speak(read + " " + tr("Press Escape to go back."), .message)])
    }

    /// `storyreader read`: the end of the story is the end of the program, once it is said. A
    /// bedtime timer says good night after it (`Session+Bedtime.swift`).
    mutating func endOfStory(_ effects: [Effect]) -> [Effect] {
        if let goodnight = bedtimeEndsStory() { return withoutEscapeHint(effects) + goodnight }
        guard state.options.endsWithReading else { return effects }
        return withoutEscapeHint(effects) + [.exit]
    }

    /// The end's words without "Press Escape to go back." (nothing is left to go back from).
    func withoutEscapeHint(_ effects: [Effect]) -> [Effect] {
        effects.map { effect in
            if case .speak(let utterance) = effect {
                return .speak(Utterance(utterance.text.replacingOccurrences(of: " " + tr("Press Escape to go back."), with: ""), priority: utterance.priority))
            }
            return effect
        }
    }

    // MARK: - Coming back

    /// "Welcome back Mia. You were reading The Lighthouse Cat, page 2 of 5." (nil: nothing in progress).
    func welcomeBack() -> String? {
        guard let name = state.profileName, let storyID = state.snapshot.inProgress[name],
            let entry = catalog.entry(id: storyID), let sentence = state.reading(storyID).sentenceIndex
        else { return nil }
        return tr(
            "Welcome back {name}. You were reading {title}, {place}.",
            ["name": name, "title": entry.title, "place": Screens.placeText(entry: entry, sentence: sentence, messages: state.messages)])
    }
}

extension Story {
    /// The index (into `sentences`) of the sentence holding word `word`.
    func sentence(containingWord word: Int) -> Int { StoryMap(story: self).sentence(containingWord: word) }

    /// The first word (an index into `words`) of sentence `index`; past the end, the last sentence's.
    func firstWord(ofSentence index: Int) -> Int {
        let map = StoryMap(story: self)
        return map.firstWord(ofSentence: min(max(index, 0), max(map.sentenceCount - 1, 0)))
    }
}

extension String {
    var capitalizedFirst: String { prefix(1).uppercased() + dropFirst() }
}
