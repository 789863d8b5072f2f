import Foundation
import Synchronization

#if canImport(FoundationNetworking)
    import FoundationNetworking
#endif

extension SyncClient {
    /// One HTTP exchange that ends by `deadline` seconds whatever the server does.
    ///
    /// `URLRequest.timeoutInterval` is an idle timeout: a server (or a proxy in front of a stuck
    /// database) that sends a byte now and then keeps a request alive forever. The deadline here is
    /// kept from outside the request, by a timer that fails the call and cancels the task; whichever
    /// of the answer and the timer comes first wins, the other is ignored. Cancelling the Swift task
    /// (the background sync stopping) cancels the request too.
    static func exchange(_ request: URLRequest, deadline: Double) async throws -> (Data, URLResponse) {
        let once = OneAnswer<(Data, URLResponse)>()
        return try await withTaskCancellationHandler {
            try await withCheckedThrowingContinuation { (continuation: CheckedContinuation<(Data, URLResponse), any Error>) in
                let task = URLSession.shared.dataTask(with: request) { data, response, error in
                    if let error {
                        once.finish(.failure(error))
                    } else if let data, let response {
                        once.finish(.success((data, response)))
                    } else {
                        once.finish(.failure(URLError(.badServerResponse)))
                    }
                }
                once.start(continuation) { task.cancel() }
                DispatchQueue.global().asyncAfter(deadline: .now() + deadline) {
                    once.finish(.failure(SyncFailure.timedOut(seconds: deadline)))
                }
                task.resume()
            }
        } onCancel: {
            once.finish(.failure(CancellationError()))
        }
    }

    /// Runs `body`, and again after `firstWait`, twice that, … while it fails in a way that trying
    /// again can mend (`SyncFailure.isTransient`: no answer, a deadline passed, a 5xx), at most
    /// `attempts` times in all. A refusal (a revoked token, another site) is thrown at once.
    static func retrying<T>(
        attempts: Int, firstWait: Double, sleep: (Double) async -> Void,
        onRetry: (SyncFailure, Double) -> Void = { _, _ in }, body: () async throws -> T
    ) async throws -> T {
        var wait = firstWait
        var attempt = 1
        while true {
            do {
                return try await body()
            } catch let failure as SyncFailure where failure.isTransient && attempt < attempts {
                onRetry(failure, wait)
                await sleep(wait)
                wait *= 2
                attempt += 1
            }
        }
    }

    /// One round as `storyreader sync` runs it: tried up to `attempts` times with waits of
    /// `firstWait`, twice that, … between them when the server could not be reached.
    public func roundRetrying(
        _ store: StoryStore, attempts: Int = 3, firstWait: Double = 1, onRetry: (SyncFailure, Double) -> Void = { _, _ in }
    ) async throws -> SyncRound {
        try await Self.retrying(
            attempts: attempts, firstWait: firstWait, sleep: { seconds in try? await Task.sleep(nanoseconds: UInt64(seconds * 1e9)) },
            onRetry: onRetry, body: { try await round(store) }
        )
    }
}

/// The continuation of one exchange, resumed exactly once: by the answer, the deadline or a
/// cancellation, whichever comes first. A failure stops the exchange (`stop`, given with the
/// continuation): the request is cancelled, the socket shut down.
final class OneAnswer<Value: Sendable>: Sendable {
    private struct State {
        var continuation: CheckedContinuation<Value, any Error>?
        var stop: (@Sendable () -> Void)?
        /// A result that came before the continuation was set (a cancellation at once).
        var early: Result<Value, any Error>?
        var finished = false
    }
    private let state = Mutex(State())

    func start(_ continuation: CheckedContinuation<Value, any Error>, stop: @escaping @Sendable () -> Void) {
        let early = state.withLock { state -> Result<Value, any Error>? in
            if let early = state.early { return early }
            state.continuation = continuation
            state.stop = stop
            return nil
        }
        if let early {
            stop()
            continuation.resume(with: early)
        }
    }

    func finish(_ result: Result<Value, any Error>) {
        let waiting = state.withLock { state -> (CheckedContinuation<Value, any Error>, (@Sendable () -> Void)?)? in
            guard !state.finished else { return nil }
            state.finished = true
            guard let continuation = state.continuation.take() else {
                state.early = result
                return nil
            }
            return (continuation, state.stop.take())
        }
        guard let (continuation, stop) = waiting else { return }
        if case .failure = result { stop?() }
        continuation.resume(with: result)
    }
}
