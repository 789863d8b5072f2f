public import Foundation

/// Tonight's bedtime timer (issue 46): reading stops at the end of the story, at the end of the
/// chapter, or after some minutes at the end of the sentence being read, never in the middle of
/// one; then a gentle good night is said and the place is kept. Set for one run (`--bedtime`, the
/// `bedtime` command) or by a parent as a profile's default, armed when reading starts. The
/// kiosk's time limit is a rule of its own (`Session+Kiosk.swift`) and is not changed by it.
public struct BedtimeTimer: Sendable, Hashable {
    public var bedtime: Bedtime
    /// When the minutes are up, on the clock of `Input.tick`: nil until the first tick while a
    /// story plays (the shell's clock is not the Session's to read).
    public var deadline: TimeInterval?
    /// The minutes are up: reading stops at the end of the sentence being read.
    public var isDue = false
    /// "Stop at the end of this story" was said (when set, or when reading started).
    var told = false

    public init(_ bedtime: Bedtime) { self.bedtime = bedtime }
}

extension Session {
    /// `--bedtime`: the timer for this run, over the profile's default; said when reading starts.
    public mutating func setBedtimeForRun(_ bedtime: Bedtime) { state.bedtime = BedtimeTimer(bedtime) }

    /// Whether the shell must tell the Session the time (`Input.tick`): a timer of minutes runs.
    public var bedtimeCounts: Bool {
        guard let timer = state.bedtime, case .minutes = timer.bedtime else { return false }
        return !timer.isDue
    }

    /// `bedtime story|chapter|MINUTES|off`, typed in the reader (or before reading); `bedtime` alone
    /// says the timer set.
    mutating func setBedtime(_ text: String) -> [Effect] {
        guard !text.trimmingCharacters(in: .whitespaces).isEmpty else {
            let bedtime = state.bedtime?.bedtime ?? state.profile.settings.bedtime
            return [speak(bedtimeText(bedtime))]
        }
        guard let bedtime = Bedtime(loose: text) else {
            return [
                speak(
                    tr(
                        "{value} is not a bedtime: use story, chapter, off or a number of minutes from 1 to 180, like bedtime 20.",
                        ["value": Sanitizer.quote(text)]), .important)
            ]
        }
        var timer = BedtimeTimer(bedtime)
        timer.told = true
        state.bedtime = timer
        return [speak(bedtimeText(bedtime), .message)] + bedtimeHolds()
    }

    /// "Bedtime: stop at the end of this chapter." (a story without chapters stops at its end, and says so).
    func bedtimeText(_ bedtime: Bedtime) -> String {
        switch bedtime {
        case .off: return tr("The bedtime timer is off.")
        case .story: return tr("Bedtime: stop at the end of this story.")
        case .chapter:
            if let map = state.reader?.map, !map.hasChapters { return tr("Bedtime: this story has no chapters, so stop at the end of this story.") }
            return tr("Bedtime: stop at the end of this chapter.")
        case .minutes(let minutes):
            return trn(
                "Bedtime: stop after {count} minute, at the end of the sentence.", "Bedtime: stop after {count} minutes, at the end of the sentence.",
                minutes)
        }
    }

    /// Reading starts: the profile's default is armed unless this run set one, and a timer not
    /// said yet is said.
    mutating func armBedtime() -> [Effect] {
        if state.bedtime == nil, state.profile.settings.bedtime != .off { state.bedtime = BedtimeTimer(state.profile.settings.bedtime) }
        guard var timer = state.bedtime, timer.bedtime != .off, !timer.told else { return [] }
        timer.told = true
        state.bedtime = timer
        return [speak(bedtimeText(timer.bedtime), .message)]
    }

    /// Time passes: a timer of minutes starts counting at the first tick while a story plays, and is
    /// due when they are up (reading then stops at the end of the sentence).
    mutating func bedtimeTick(_ now: TimeInterval) -> [Effect] {
        guard var timer = state.bedtime, case .minutes(let minutes) = timer.bedtime, !timer.isDue else { return [] }
        if let deadline = timer.deadline {
            timer.isDue = now >= deadline
        } else if state.reader?.status == .playing, state.stack.contains(.reader) {
            timer.deadline = now + TimeInterval(minutes * 60)
        }
        state.bedtime = timer
        return timer.isDue ? bedtimeHolds() : []
    }

    /// The sentence the timer stops reading after, from the place being read (the end of the
    /// chapter; the sentence being read once the minutes are up); nil: none before the story's
    /// end. The narration waits there (`Effect.holdNarration`), so that the next sentence is not
    /// begun before the good night.
    public var bedtimeLastSentence: Int? {
        guard let reader = state.reader else { return nil }
        return reader.map.spokenSentences.first { $0 >= reader.sentence && bedtimeStopsAfter($0, reading: reader.sentence) }
    }

    /// The narration told where the timer now stops it (a timer set, or its minutes up, while reading).
    func bedtimeHolds() -> [Effect] {
        guard state.reader?.status == .playing, state.stack.contains(.reader) else { return [] }
        return [.holdNarration(afterSentence: bedtimeLastSentence)]
    }

    /// Whether the timer stops reading after sentence `index` (not the story's last: its end says
    /// good night after the end's words); once the minutes are up, only after `current`, the
    /// sentence being read (nil: any, as each sentence ends).
    func bedtimeStopsAfter(_ index: Int, reading current: Int? = nil) -> Bool {
        guard let timer = state.bedtime, let map = state.reader?.map, index != map.spokenSentences.last else { return false }
        switch timer.bedtime {
        case .chapter: return map.endsChapter(index)
        case .minutes: return timer.isDue && (current == nil || index == current)
        default: return false
        }
    }

    /// A sentence was heard to its end: the good night when the timer stops here (the chapter
    /// ends, or the minutes are up); nil to read on. The story's own end is `bedtimeEndsStory`'s.
    mutating func bedtimeStops(afterSentence index: Int) -> [Effect]? {
        guard bedtimeStopsAfter(index) else { return nil }
        if case .chapter = state.bedtime?.bedtime { return goodnight(tr("We stopped at the end of the chapter; your place is kept.")) }
        return goodnight(tr("We stopped at the end of the sentence; your place is kept."))
    }

    /// The story ended with a timer set (whichever: the story's end comes before the chapter's and
    /// the minutes'): the good night, said after the end's words.
    mutating func bedtimeEndsStory() -> [Effect]? {
        guard let timer = state.bedtime, timer.bedtime != .off else { return nil }
        return goodnight(tr("We stopped at the end of the story."))
    }

    /// "Good night, Mia. …": the narration stops and the place is kept; the timer is done for the
    /// night (the profile's default does not arm again this run). `storyreader read` ends there;
    /// the REPL and the kiosk go back to the story's screen.
    private mutating func goodnight(_ why: String) -> [Effect] {
        var timer = BedtimeTimer(.off)
        timer.told = true
        state.bedtime = timer
        let text = (state.profileName.map { tr("Good night, {name}.", ["name": $0]) } ?? tr("Good night.")) + " " + why
        var effects = leaveReader(stopping: true)
        if state.options.endsWithReading {
            state.hasQuit = true
            return effects + [speak(text, .message), .exit]
        }
        if state.route == .reader { state.stack.removeLast() }
        focusGoOn()
        effects.append(speak(text, .message))
        return effects
    }
}

extension StoryMap {
    /// Whether the story has a heading after its first block: a chapter to end.
    var hasChapters: Bool {
        blockKind.indices.contains { index in
            guard index > 0, case .heading = blockKind[index] else { return false }
            return true
        }
    }

    /// Whether sentence `sentence` is the last one read before a heading (a chapter's last).
    func endsChapter(_ sentence: Int) -> Bool {
        guard hasWords(sentence) else { return false }
        if case .heading = blockKind[sentenceBlock[sentence]] { return false }
        var next = sentence + 1
        while next < sentenceCount, !hasWords(next) { next += 1 }
        guard next < sentenceCount, case .heading = blockKind[sentenceBlock[next]] else { return false }
        return true
    }
}
