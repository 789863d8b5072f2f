import Foundation
import Synchronization

/// The process's one speech thread: every eSpeak NG call and every write to an audio sink runs here.
///
/// eSpeak NG 1.51 is one global, non-thread-safe instance (SPEECH.md), and a sink is written by one
/// thread. So, as GRDB's `SerializedDatabase` owns its connection, this thread owns both: jobs from
/// other threads (`run`) wait their turn, and the speech services attached to it (`attach`) are
/// stepped between jobs. A step never blocks in a sink (it writes only what the sink has room
/// for), so a job waits at most for one sentence's synthesis. `preconditionOnThread()` and
/// `enterEngine()` are the runtime checks that nothing calls eSpeak from elsewhere or re-entrantly
/// (from inside its own callback): `ThreadIdentity`'s, as for every other C library's owner
/// (`SerialThread`, `HandleOwner`), which is this thread without the stepping.
public final class SpeechThread: Sendable {
    /// The process's speech thread (eSpeak can be initialised only once per process).
    public static let shared = SpeechThread(name: "storyreader.speech")

    /// Something stepped on the thread between jobs (a `SpeechService`).
    protocol Worker: AnyObject, Sendable {
        /// Does what is due now; returns when it next needs the thread (nil: only on a request).
        func step(now: ContinuousClock.Instant) -> ContinuousClock.Instant?
    }

    private struct WeakWorker: Sendable {
        weak var worker: (any Worker)?
    }

    private struct State: Sendable {
        var jobs: [@Sendable () -> Void] = []
        var workers: [ObjectIdentifier: WeakWorker] = [:]
        /// Workers that asked for a step (a request arrived) or whose time came.
        var due: Set<ObjectIdentifier> = []
        var deadlines: [ObjectIdentifier: ContinuousClock.Instant] = [:]
    }

    private let state = Mutex(State())
    private let condition = NSCondition()
    private let clock = ContinuousClock()
    /// The thread's identity, claimed once it runs: `isCurrent`, and eSpeak's re-entry check.
    private let identity: ThreadIdentity

    private init(name: String) {
        identity = ThreadIdentity(name: name)
        let thread = Thread { [self] in
            identity.claim()
            self.run()
        }
        thread.name = name
        thread.stackSize = 8 << 20
        thread.start()
    }

    /// True on the speech thread.
    public var isCurrent: Bool { identity.isCurrent }

    /// Stops the program when called off the speech thread: eSpeak and the sinks are touched only here.
    func preconditionOnThread(_ what: @autoclosure () -> String) {
        identity.preconditionOnThread(what())
    }

    /// Marks eSpeak as busy for `body`; a call from inside (the synthesis callback calling the
    /// engine again) stops the program with a message instead of corrupting eSpeak's state.
    func enterEngine<T>(_ body: () throws -> T) rethrows -> T {
        try identity.enter("An eSpeak NG call", body)
    }

    /// Runs `job` on the speech thread and returns its result; on the speech thread itself it runs at once.
    public func run<T: Sendable>(_ job: @escaping @Sendable () throws -> T) throws -> T {
        if isCurrent { return try job() }
        return try waitForJob(job, enqueue: enqueue)
    }

    /// Queues `job` to run on the speech thread, in order.
    public func enqueue(_ job: @escaping @Sendable () -> Void) {
        condition.lock()
        state.withLock { $0.jobs.append(job) }
        condition.signal()
        condition.unlock()
    }

    /// Steps `worker` whenever it is woken or its deadline comes, until it is released.
    func attach(_ worker: any Worker) {
        let key = ObjectIdentifier(worker)
        condition.lock()
        state.withLock {
            $0.workers[key] = WeakWorker(worker: worker)
            $0.due.insert(key)
        }
        condition.signal()
        condition.unlock()
    }

    func detach(_ worker: any Worker) {
        let key = ObjectIdentifier(worker)
        state.withLock {
            $0.workers[key] = nil
            $0.due.remove(key)
            $0.deadlines[key] = nil
        }
    }

    /// Asks for a step of `worker` as soon as the thread is free (any thread).
    func wake(_ worker: any Worker) {
        let key = ObjectIdentifier(worker)
        condition.lock()
        _ = state.withLock { $0.due.insert(key) }
        condition.signal()
        condition.unlock()
    }

    /// Sets when `worker` is next stepped (after a step run as a job, `SpeechService.flush`).
    func schedule(_ worker: any Worker, at deadline: ContinuousClock.Instant?) {
        let key = ObjectIdentifier(worker)
        state.withLock { state in
            guard state.workers[key] != nil else { return }
            state.deadlines[key] = deadline
        }
    }

    private func run() {
        while true {
            condition.lock()
            var next: (job: (@Sendable () -> Void)?, workers: [any Worker])
            while true {
                let now = clock.now
                next = state.withLock { state in
                    if !state.jobs.isEmpty { return (state.jobs.removeFirst(), []) }
                    for (key, deadline) in state.deadlines where deadline <= now {
                        state.due.insert(key)
                        state.deadlines[key] = nil
                    }
                    let due = state.due.compactMap { state.workers[$0]?.worker }
                    state.due.removeAll()
                    return (nil, due)
                }
                if next.job != nil || !next.workers.isEmpty { break }
                if let soonest = state.withLock({ $0.deadlines.values.min() }) {
                    let wait = now.duration(to: soonest)
                    let seconds = Double(wait.components.seconds) + Double(wait.components.attoseconds) * 1e-18
                    _ = condition.wait(until: Date(timeIntervalSinceNow: max(0, seconds)))
                } else {
                    condition.wait()
                }
            }
            condition.unlock()
            if let job = next.job {
                job()
                continue
            }
            for worker in next.workers {
                let deadline = worker.step(now: clock.now)
                let key = ObjectIdentifier(worker)
                state.withLock { state in
                    guard state.workers[key] != nil else { return }
                    state.deadlines[key] = deadline
                }
            }
        }
    }
}
