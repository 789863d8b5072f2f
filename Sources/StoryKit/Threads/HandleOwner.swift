import Dispatch

/// A C library's handle (or a value holding one: an encoder, a decoder, loaded dictionaries) and
/// the one thread that touches it: the project's one idiom for owning a C library (docs/architecture.md,
/// "Owning a C library"). The handle is made on the thread, every use of it runs there as a job
/// (in order, callers waiting their turn or, with `submit`, not waiting), and it is freed there.
///
/// The handle is reachable only inside a job (`withHandle`, `submit`), and every reach checks that
/// it runs on the owner's thread; a job that calls its own owner again stops the program with a
/// message (as GRDB refuses a re-entrant database access) instead of hanging it. What a job throws
/// comes back to its caller; what a submitted job throws comes back from every call after it.
public final class HandleOwner<Handle>: Sendable {
    /// Where the handle lives: only the owner's thread reads or writes it (checked on each reach).
    private final class Slot: @unchecked Sendable {
        let identity: ThreadIdentity
        private var value: Handle?
        init(identity: ThreadIdentity) { self.identity = identity }

        var handle: Handle? {
            get {
                identity.preconditionOnThread("A use of the handle owned by \(identity.name)")
                return value
            }
            set {
                identity.preconditionOnThread("A use of the handle owned by \(identity.name)")
                value = newValue
            }
        }
    }

    /// Why a job could not run.
    public struct Closed: Error, CustomStringConvertible {
        public var name: String
        public var description: String { "\(name) was already shut down" }
    }

    private struct Failure: Sendable {
        var failure: (any Error)?
        var shutDown = false
    }

    private let thread: SerialThread
    private let slot: Slot
    private let free: @Sendable (Handle) -> Void
    /// Room for submitted jobs not yet run (nil: no bound).
    private let room: DispatchSemaphore?
    /// The first error of a submitted job, thrown by the next call; and whether the owner is shut down.
    private let state = LockedValue<Failure>(Failure())

    /// Starts a thread named `name` and makes the handle on it with `open`; what `open` throws is
    /// thrown here (and the thread ends).
    /// - Parameters:
    ///   - backlog: how many `submit`ted jobs may wait before `submit` waits too (nil: any number).
    ///   - free: frees the handle, on the thread, at `shutDown` (a Swift value that frees its C
    ///     handle in `deinit` needs none: it is dropped on the thread).
    public init(
        name: String, backlog: Int? = nil, open: @escaping @Sendable () throws -> Handle,
        free: @escaping @Sendable (Handle) -> Void = { _ in }
    ) throws {
        thread = SerialThread(name: name)
        let slot = Slot(identity: thread.identity)
        self.slot = slot
        self.free = free
        room = backlog.map { DispatchSemaphore(value: max(1, $0)) }
        do {
            try thread.run { slot.handle = try open() }
        } catch {
            state.withLock { $0.shutDown = true }
            thread.close()
            throw error
        }
    }

    /// The same for a handle whose making cannot fail.
    public convenience init(
        name: String, backlog: Int? = nil, open: @escaping @Sendable () -> Handle,
        free: @escaping @Sendable (Handle) -> Void = { _ in }
    ) {
        // `open` cannot throw, so neither can this.
        try! self.init(name: name, backlog: backlog, open: { () throws -> Handle in open() }, free: free)
    }

    deinit { shutDown() }

    /// The owner's thread's name.
    public var name: String { thread.name }

    /// True on the owner's thread (inside one of its jobs).
    public var isCurrent: Bool { thread.isCurrent }

    /// Runs `body` with the handle on the owner's thread when its turn comes; returns what it
    /// returns, throws what it throws (or the error of an earlier submitted job, or `Closed`).
    public func withHandle<T: Sendable>(_ body: @escaping @Sendable (Handle) throws -> T) throws -> T {
        try takeFailure()
        let slot = self.slot
        let name = self.name
        return try thread.run { () throws -> T in
            guard let handle = slot.handle else { throw Closed(name: name) }
            return try body(handle)
        }
    }

    /// Queues `body` for the handle and returns at once (waiting only while `backlog` jobs
    /// wait). The first error of a submitted job is thrown by every `submit`, `withHandle` and
    /// `drain` after it (the work it belonged to is spoiled).
    public func submit(_ body: @escaping @Sendable (Handle) throws -> Void) throws {
        try takeFailure()
        room?.wait()
        let (slot, room, state, name) = (self.slot, self.room, self.state, self.name)
        thread.enqueue {
            defer { room?.signal() }
            do {
                guard let handle = slot.handle else { throw Closed(name: name) }
                try body(handle)
            } catch {
                state.withLock { $0.failure = $0.failure ?? error }
            }
        }
    }

    /// Waits until every submitted job has run; throws the first error among them.
    public func drain() throws {
        try withHandle { _ in }
        try takeFailure()
    }

    /// Frees the handle on its thread (after the jobs queued before) and ends the thread; later
    /// calls throw `Closed`. From a job of its own it frees the handle after that job.
    public func shutDown() {
        let first = state.withLock { state in
            defer { state.shutDown = true }
            return !state.shutDown
        }
        guard first else { return }
        let (slot, free) = (self.slot, self.free)
        thread.enqueue {
            if let handle = slot.handle { free(handle) }
            slot.handle = nil
        }
        thread.close()
    }

    private func takeFailure() throws {
        let (failure, shutDown) = state.withLock { state in
            (state.failure, state.shutDown)
        }
        if shutDown { throw Closed(name: name) }
        if let failure { throw failure }
    }
}
