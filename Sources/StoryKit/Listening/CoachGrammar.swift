/// The grammar the decoder follows a stretch of text with: a loop over its words in which the next
/// word in reading order is the likely one.
///
/// State `k` means "the reader has just read word `k - 1`" (state 0: nothing yet); from every state
/// any word of the stretch may come next, so a repetition, a restart, a self-correction or a skip
/// still fits it (the order is found afterwards by aligning what was heard to the text:
/// `CoachFollower`), but word `k` from state `k` is `inOrder` likely and each of the others shares
/// what is left. Every state may end the utterance.
///
/// Why not a plain loop (`( w1 | w2 | … )+` in JSGF, all words alike): its partial hypotheses
/// matched short words by sound alone ("to do for them" came as "do do how and" until the next
/// sentence began), so they were highlighted only once a longer word after them confirmed them
/// (`bench coach`, debug build: p90 232 ms, max 891 ms), and the pitched voice lost 6 of 67 words.
/// With the reading order likely: p90 75 ms, max 113–139 ms, and 67 of 67 with the pitched voice.
struct CoachGrammar: Hashable {
    struct Transition: Hashable {
        var from: Int
        var to: Int
        /// An index into `words`.
        var word: Int
        var probability: Double
    }

    /// The next word in reading order, from each state (measured: 0.7–0.99 all follow the
    /// passage; 0.9 gave the shortest latency on the human and the pitched voice).
    static let inOrder = 0.9

    let words: [String]
    let transitions: [Transition]

    /// The states: one per word read plus the start (0) and the end (`finalState`).
    var stateCount: Int { words.count + 2 }
    var startState: Int { 0 }
    var finalState: Int { words.count + 1 }

    init(_ words: [String]) {
        self.words = words
        let others = words.count > 1 ? (1 - Self.inOrder) / Double(words.count - 1) : 1 - Self.inOrder
        transitions = (0...words.count).flatMap { state in
            words.indices.map { word in
                Transition(from: state, to: word + 1, word: word, probability: word == state ? Self.inOrder : others)
            }
        }
    }
}
