import Dispatch
import Synchronization

#if canImport(Glibc)
    import Glibc
#endif

/// The thread that owns something no other thread may touch, checked at run time: the speech
/// thread (`SpeechThread`: eSpeak NG and the sinks) and every `SerialThread` (liblouis,
/// libhyphen, the encoders, BrlAPI, the recogniser). The owning thread claims it once, first thing.
public final class ThreadIdentity: Sendable {
    /// The owner's name, in the messages of the checks (the thread's name too).
    public let name: String
    private let owner = Atomic<UInt>(0)
    /// True while a body runs inside `enter`: a second entry is a re-entrant call.
    private let inside = Atomic<Bool>(false)

    public init(name: String) { self.name = name }

    /// Makes the calling thread the owner (the owning thread, once, before any job).
    func claim() { owner.store(UInt(pthread_self()), ordering: .releasing) }

    /// True on the owning thread.
    public var isCurrent: Bool { owner.load(ordering: .acquiring) == UInt(pthread_self()) }

    /// Stops the program when called off the owning thread: what it owns is touched only there.
    public func preconditionOnThread(_ what: @autoclosure () -> String) {
        precondition(isCurrent, "\(what()) must run on its thread (\(name))")
    }

    /// Runs `body` on the owning thread, marked as inside; a call from inside (a library's
    /// callback calling the library again) stops the program with a message instead of
    /// corrupting the library's state.
    public func enter<T>(_ what: @autoclosure () -> String, _ body: () throws -> T) rethrows -> T {
        preconditionOnThread(what())
        let wasInside = inside.exchange(true, ordering: .acquiringAndReleasing)
        precondition(!wasInside, "\(what()) was made re-entrantly on \(name) (from inside a call of its own)")
        defer { inside.store(false, ordering: .releasing) }
        return try body()
    }
}

/// Queues `job` with `enqueue` (onto an owning thread), waits for it and returns what it
/// returned or throws what it threw: the one way a caller waits for its turn on such a thread.
func waitForJob<T: Sendable>(
    _ job: @escaping @Sendable () throws -> T, enqueue: (@escaping @Sendable () -> Void) -> Void
) throws -> T {
    let box = Mutex<Result<T, any Error>?>(nil)
    let done = DispatchSemaphore(value: 0)
    enqueue {
        box.withLock { $0 = Result { try job() } }
        done.signal()
    }
    done.wait()
    return try box.withLock { $0! }.get()
}
