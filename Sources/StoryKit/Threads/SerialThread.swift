import Foundation

/// One thread of its own that runs jobs from any thread one at a time, in the order they were
/// queued: the thread a C library's handle lives on (`HandleOwner` puts a handle on one). GRDB's
/// `SerializedDatabase` is the model, as for the speech thread (`SpeechThread`, which also steps
/// its services between jobs): one owner, callers wait their turn, `identity` checks at run time
/// that the owned thing is touched only here, and a job that waits for a job of its own thread
/// (which could never run) stops the program with a message instead of hanging it.
public final class SerialThread: Sendable {
    private struct State: Sendable {
        var jobs: [@Sendable () -> Void] = []
        var closed = false
    }

    /// The thread's identity: `isCurrent`, `preconditionOnThread`, `enter` (re-entry).
    public let identity: ThreadIdentity
    private let state = LockedValue(State())
    private let condition = NSCondition()
    private let finished = DispatchSemaphore(value: 0)

    /// Starts the thread, named `name` (as `ps -L` and a debugger show it).
    public init(name: String) {
        identity = ThreadIdentity(name: name)
        let thread = Thread { [identity, state, condition, finished] in
            identity.claim()
            Self.loop(state: state, condition: condition)
            finished.signal()
        }
        thread.name = name
        thread.start()
    }

    public var name: String { identity.name }

    /// True on this thread.
    public var isCurrent: Bool { identity.isCurrent }

    /// Stops the program when called off this thread.
    public func preconditionOnThread(_ what: @autoclosure () -> String) {
        identity.preconditionOnThread(what())
    }

    /// Queues `job` to run on the thread after those queued before it; returns at once.
    public func enqueue(_ job: @escaping @Sendable () -> Void) {
        condition.lock()
        let closed = state.withLock { state in
            if !state.closed { state.jobs.append(job) }
            return state.closed
        }
        condition.signal()
        condition.unlock()
        precondition(!closed, "a job was queued on \(name) after it was closed (it would never run)")
    }

    /// Runs `job` on the thread when its turn comes, and returns what it returns or throws what
    /// it throws. Called from a job of this same thread, it stops the program: that job would
    /// wait for itself.
    public func run<T: Sendable>(_ job: @escaping @Sendable () throws -> T) throws -> T {
        precondition(!isCurrent, "a job on \(name) waited for another job of its own thread (a re-entrant call)")
        return try waitForJob(job, enqueue: enqueue)
    }

    /// The same for a job that throws nothing.
    public func run<T: Sendable>(_ job: @escaping @Sendable () -> T) -> T {
        // The job cannot throw, so neither can this.
        try! run { () throws -> T in job() }
    }

    /// Lets the thread end once the jobs queued so far have run and, `waiting`, waits for that
    /// (from a job of its own it cannot wait: it returns at once). Later jobs are refused.
    public func close(waiting: Bool = true) {
        condition.lock()
        let wasClosed = state.withLock { state in
            defer { state.closed = true }
            return state.closed
        }
        condition.signal()
        condition.unlock()
        guard waiting, !wasClosed, !isCurrent else { return }
        finished.wait()
    }

    private static func loop(state: LockedValue<State>, condition: NSCondition) {
        while true {
            condition.lock()
            var batch: [@Sendable () -> Void] = []
            var closed = false
            while true {
                (batch, closed) = state.withLock { state in
                    defer { state.jobs = [] }
                    return (state.jobs, state.closed)
                }
                if !batch.isEmpty || closed { break }
                condition.wait()
            }
            condition.unlock()
            for job in batch { job() }
            if closed && batch.isEmpty { return }
        }
    }
}
