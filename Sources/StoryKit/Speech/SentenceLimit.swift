import Synchronization

/// Where a story read into a file ends, moved while it is read. An export says a story's first
/// sentences itself and gives the rest to its workers as soon as they are ready, which is later
/// on a busy machine than on an idle one: the cut is made then, at a sentence this process has not
/// begun (see `ExportWorkers.Team`). The service claims each sentence here before it synthesises
/// it, under the same lock as the cut, so a sentence is never both said here and given away.
public final class SentenceLimit: Sendable {
    private struct State {
        /// Sentences before this one were claimed (begun) by the reader.
        var claimed = 0
        var end: Int
    }
    private let state: Mutex<State>

    /// A story that ends before sentence `end`, unless cut sooner.
    public init(end: Int) { state = Mutex(State(end: end)) }

    /// Claims `sentence` for synthesis; false when the story ends before it.
    func claim(_ sentence: Int) -> Bool {
        state.withLock { state in
            guard sentence < state.end else { return false }
            state.claimed = max(state.claimed, sentence + 1)
            return true
        }
    }

    /// Ends the story sooner: `choose` is given the first sentence not yet claimed (at most the
    /// end) and returns where the story ends now, which is kept between that sentence and the
    /// end. Returns the new end.
    public func cut(_ choose: (Int) -> Int) -> Int {
        state.withLock { state in
            let first = min(state.claimed, state.end)
            state.end = min(max(choose(first), first), state.end)
            return state.end
        }
    }

    /// Where the story ends now.
    public var end: Int { state.withLock { $0.end } }
}
