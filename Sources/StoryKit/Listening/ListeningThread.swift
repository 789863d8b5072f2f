import Foundation
import Synchronization

#if canImport(Glibc)
    import Glibc
#endif

/// The thread a coach's decoder lives on: jobs from any thread run here, one at a time, in order.
final class ListeningThread: Sendable {
    private struct State: Sendable {
        var jobs: [@Sendable () -> Void] = []
        var closed = false
    }

    private let state = Mutex(State())
    private let condition = NSCondition()
    private let threadID = Atomic<UInt>(0)

    init() {
        let thread = Thread { [self] in
            threadID.store(UInt(pthread_self()), ordering: .releasing)
            loop()
        }
        thread.name = "storyreader.listening"
        thread.start()
    }

    /// Stops the program when called off this thread: the decoder is touched only here.
    func precondition() {
        Swift.precondition(threadID.load(ordering: .acquiring) == UInt(pthread_self()), "the decoder must run on its listening thread")
    }

    func enqueue(_ job: @escaping @Sendable () -> Void) {
        condition.lock()
        state.withLock { $0.jobs.append(job) }
        condition.signal()
        condition.unlock()
    }

    /// Runs `job` here and returns its result.
    func run<T: Sendable>(_ job: @escaping @Sendable () -> T) -> T {
        let box = Mutex<T?>(nil)
        let done = DispatchSemaphore(value: 0)
        enqueue {
            let result = job()
            box.withLock { $0 = result }
            done.signal()
        }
        done.wait()
        return box.withLock { $0! }
    }

    /// Lets the thread end once the jobs queued so far have run.
    func close() {
        condition.lock()
        state.withLock { $0.closed = true }
        condition.signal()
        condition.unlock()
    }

    private func loop() {
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
