/// What the coach says about the reading, one message at a time (sent from the listening thread;
/// the reader's loop takes it through its inbox).
public enum CoachEvent: Sendable, Hashable {
    /// The child read `word`, from `ms` to `endMs` by the audio's own clock.
    case heard(CoachWord, ms: Int, endMs: Int)
    /// The child moved on without reading `word` (noted at the sentence's end, never as "wrong").
    case skipped(CoachWord, ms: Int)
    /// The child was silent for the wait: `word` is the next one, to be said for them.
    case help(CoachWord, ms: Int)
    /// The reading ended (its last word, or the end of the audio).
    case finished(CoachTally)
}

extension CoachEvent {
    /// The text order of the word an event is about (events of one hypothesis are sent in it).
    var order: Int {
        switch self {
        case .heard(let word, _, _), .skipped(let word, _), .help(let word, _): word.sentence << 20 | word.index
        case .finished: Int.max
        }
    }
}

/// "You read N words by yourself, and I helped with K."
public struct CoachTally: Sendable, Hashable {
    public var read: Int
    public var helped: Int
    public var skipped: Int

    public init(read: Int, helped: Int, skipped: Int) {
        self.read = read
        self.helped = helped
        self.skipped = skipped
    }
}

/// Follows the text through the decoder's hypotheses: no audio, no decoder, only the alignment of
/// heard words to the text, the skipped words and the help after a silence (tested on its own).
///
/// The decoder's grammar loops over the words of the current sentence and the next (any word,
/// any order, the next in reading order the likely one: `CoachGrammar`), so repetitions,
/// restarts and self-corrections are simply heard again; each
/// hypothesis is then aligned to the text from the sentence's start (`alignment`), where a
/// repeated word costs one insertion and moves nothing. A word once heard stays heard; words are
/// noted as skipped only when the child has moved into the next sentence (or the audio ends),
/// never while they may still come back to them.
struct CoachFollower {
    enum Status: Hashable { case pending, heard, helped, skipped }

    let words: [CoachWord]
    /// Each sentence's words in `words`, in reading order.
    let sentences: [Range<Int>]
    let waitMilliseconds: Int
    private(set) var status: [Status]
    /// The sentence being read (an index into `sentences`).
    private(set) var sentence = 0
    /// One past the last word heard or helped: where help would start.
    private(set) var frontier = 0
    /// When the child last made progress (a word's end, or help given), by the audio's clock.
    private(set) var lastProgressMilliseconds = 0
    /// Each heard word's end by the latest hypothesis (for the latency benchmark).
    private(set) var ends: [Int: Int] = [:]

    init(words: [CoachWord], waitMilliseconds: Int) {
        self.words = words
        self.waitMilliseconds = waitMilliseconds
        status = Array(repeating: .pending, count: words.count)
        var ranges: [Range<Int>] = []
        var start = 0
        for index in words.indices where index + 1 == words.count || words[index + 1].sentence != words[index].sentence {
            ranges.append(start..<(index + 1))
            start = index + 1
        }
        sentences = ranges
    }

    /// The words the decoder listens for now: the current sentence's and the next one's.
    var window: Range<Int> {
        guard !sentences.isEmpty else { return 0..<0 }
        return sentences[sentence].lowerBound..<sentences[nextSentence].upperBound
    }

    /// The next sentence with a word to judge (or the last): one with none ("Zzzz.", a name
    /// alone) is read past, and a window that ended on it would never hear the child move on.
    private var nextSentence: Int {
        var next = min(sentence + 1, sentences.count - 1)
        while next < sentences.count - 1, !sentences[next].contains(where: { words[$0].spoken != nil }) { next += 1 }
        return next
    }

    /// True once no judged word is left after the last one heard or helped.
    var isDone: Bool { !words[frontier...].contains { $0.spoken != nil } }

    var tally: CoachTally {
        CoachTally(
            read: status.count { $0 == .heard }, helped: status.count { $0 == .helped }, skipped: status.count { $0 == .skipped })
    }

    /// Aligns the decoder's hypothesis for the utterance that started at `offset` ms (words of
    /// `window`): the words newly heard, and the frame where the first word of the next sentence
    /// starts when the child has reached it (the caller then moves on: `advance`).
    ///
    /// The alignment is the cheapest edit of the hypothesis into a prefix of the window's judged
    /// words (a repeated or stray word: one insertion; a word not read: one deletion; a word heard
    /// as another, as short words often are: one substitution). An exact match is heard at once; a
    /// substitution (a short word only, `shortWord`) once an exact match follows it (the last word
    /// of a hypothesis that is still growing may be a guess).
    mutating func align(_ segments: [SphinxDecoder.Segment], offset: Int) -> (events: [CoachEvent], nextSentenceFrame: Int?) {
        let frameMs = 1000 / SphinxDecoder.framesPerSecond
        let text = window.filter { words[$0].spoken != nil }
        let pairs = Self.alignment(segments.map(\.word), text.map { words[$0].spoken! })
        var events: [CoachEvent] = []
        var nextSentenceFrame: Int?
        var confirmed = false
        var newFrontier = frontier
        for (segmentIndex, textIndex, exact) in pairs.reversed() {
            confirmed = confirmed || exact
            let index = text[textIndex]
            guard confirmed, exact || words[index].text.count <= Self.shortWord else { continue }
            let segment = segments[segmentIndex]
            let start = offset + segment.startFrame * frameMs
            let end = offset + (segment.endFrame + 1) * frameMs
            if status[index] == .pending {
                status[index] = .heard
                events.append(.heard(words[index], ms: start, endMs: end))
                // Only a word at or past the place the child had reached is progress: a word
                // filled in behind it (the decoder's guess in a silence, aligned to a word passed
                // over) does not put off the help.
                if index >= frontier { lastProgressMilliseconds = max(lastProgressMilliseconds, end) }
            }
            if status[index] == .heard { ends[index] = end }
            newFrontier = max(newFrontier, index + 1)
            if exact, index >= sentences[sentence].upperBound, status[index] == .heard {
                nextSentenceFrame = min(nextSentenceFrame ?? segment.startFrame, segment.startFrame)
            }
        }
        frontier = newFrontier
        events.sort { $0.order < $1.order }
        return (events, nextSentenceFrame)
    }

    /// The longest word (in letters) that a substitution may stand for: short words ("had", "his",
    /// "for") are the ones the decoder mishears as another short word; a longer word that was said
    /// is heard as itself, so one heard as something else was not read (a word added to the
    /// passage that the reader never said came back as "he" in place of "quite").
    static let shortWord = 4

    /// The (hypothesis index, text index, exact) pairs of the cheapest alignment of `heard` with a
    /// prefix of `text` (Levenshtein, the text's unread end free), in order.
    static func alignment(_ heard: [String], _ text: [String]) -> [(Int, Int, Bool)] {
        let rows = heard.count
        let columns = text.count
        guard rows > 0, columns > 0 else { return [] }
        var cost = Array(repeating: Array(repeating: 0, count: columns + 1), count: rows + 1)
        for i in 0...rows { cost[i][0] = i }
        for j in 0...columns { cost[0][j] = j }
        for i in 1...rows {
            for j in 1...columns {
                let diagonal = cost[i - 1][j - 1] + (heard[i - 1] == text[j - 1] ? 0 : 1)
                cost[i][j] = min(diagonal, cost[i - 1][j] + 1, cost[i][j - 1] + 1)
            }
        }
        var j = (0...columns).min { cost[rows][$0] < cost[rows][$1] } ?? 0
        var i = rows
        var pairs: [(Int, Int, Bool)] = []
        while i > 0, j > 0 {
            let same = heard[i - 1] == text[j - 1]
            if cost[i][j] == cost[i - 1][j - 1] + (same ? 0 : 1) {
                pairs.append((i - 1, j - 1, same))
                i -= 1
                j -= 1
            } else if cost[i][j] == cost[i - 1][j] + 1 {
                i -= 1
            } else {
                j -= 1
            }
        }
        return pairs.reversed()
    }

    /// Help for the next word when the child has been silent for the wait (`now`: the audio's clock).
    mutating func tick(now: Int) -> CoachEvent? {
        guard now - lastProgressMilliseconds >= waitMilliseconds,
            let index = words.indices[frontier...].first(where: { words[$0].spoken != nil && status[$0] == .pending })
        else { return nil }
        status[index] = .helped
        frontier = index + 1
        lastProgressMilliseconds = now
        return .help(words[index], ms: now)
    }

    /// Moves to the next sentence (with a word to judge): the current one's words not heard or
    /// helped are skipped.
    mutating func advance(now: Int) -> [CoachEvent] {
        let skipped = skip(sentences[sentence], now: now)
        sentence = nextSentence
        frontier = max(frontier, sentences[sentence].lowerBound)
        return skipped
    }

    /// The end of the reading: the words passed over in the sentence being read are skipped
    /// (those after the last word heard were not reached, and are not counted).
    mutating func finish(now: Int) -> [CoachEvent] {
        guard !sentences.isEmpty else { return [.finished(tally)] }
        let passed = sentences[sentence].lowerBound..<max(sentences[sentence].lowerBound, min(frontier, sentences[sentence].upperBound))
        return skip(passed, now: now) + [.finished(tally)]
    }

    private mutating func skip(_ range: Range<Int>, now: Int) -> [CoachEvent] {
        var events: [CoachEvent] = []
        for index in range where words[index].spoken != nil && status[index] == .pending {
            status[index] = .skipped
            events.append(.skipped(words[index], ms: now))
        }
        return events
    }
}
