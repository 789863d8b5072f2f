/// The grammar the decoder follows a stretch of text with: a loop over its words in which the next
/// word in reading order is the likely one.
///
/// Reading state `k` means "the reader has just read word `k - 1`" (state 0: nothing yet). From it,
/// word `k` leads to state `k + 1` with probability `inOrder`; the rest goes, without a word, to
/// one `jump` state from which any word of the stretch may come (each alike) and leads to the state
/// after it. So a repetition, a restart, a self-correction or a skip still fits (the order is found
/// afterwards by aligning what was heard to the text: `CoachFollower`), and the grammar grows with
/// the words, not with their square (a decoder's search tree per state and its words). Every
/// reading state may end the utterance.
///
/// Why not a plain loop (`( w1 | w2 | … )+` in JSGF, all words alike): its partial hypotheses
/// matched short words by sound alone ("to do for them" came as "do do how and" until the next
/// sentence began), so they were highlighted only once a longer word after them confirmed them
/// (`bench coach`, debug build: p90 232 ms, max 891 ms), and the pitched voice lost 6 of 67 words.
/// With the reading order likely: p90 73–77 ms, max 113–115 ms, and 67 of 67 with the pitched voice.
struct CoachGrammar: Hashable {
    struct Transition: Hashable {
        var from: Int
        var to: Int
        /// An index into `words`, or nil: a move without a word.
        var word: Int?
        var probability: Double
    }

    /// The next word in reading order, from each reading state (measured: 0.7–0.99 all follow
    /// the passage; 0.9 gave the shortest latency on the human and the pitched voice).
    static let inOrder = 0.9

    let words: [String]
    let transitions: [Transition]

    /// The states: the reading states `0...words.count`, then `jumpState` and `finalState`.
    var stateCount: Int { words.count + 3 }
    var startState: Int { 0 }
    var jumpState: Int { words.count + 1 }
    var finalState: Int { words.count + 2 }

    init(_ words: [String]) {
        self.words = words
        let count = words.count
        let jump = count + 1
        let inOrder = words.indices.map { Transition(from: $0, to: $0 + 1, word: $0, probability: Self.inOrder) }
        // After the last word every word is a repetition: all of it goes to the jump state.
        let away = (0...count).map { Transition(from: $0, to: jump, word: nil, probability: $0 < count ? 1 - Self.inOrder : 1) }
        let anyWord = words.indices.map { Transition(from: jump, to: $0 + 1, word: $0, probability: 1 / Double(count)) }
        let end = (0...count).map { Transition(from: $0, to: count + 2, word: nil, probability: 1) }
        transitions = inOrder + away + anyWord + end
    }
}
