import Synchronization

/// A value behind a lock that closures can capture (a `Mutex` cannot be captured: it is not
/// copyable): events handed from the speech thread to a loop, a sentence's word times.
public final class LockedValue<Value: Sendable>: Sendable {
    private let mutex: Mutex<Value>

    public init(_ value: Value) { mutex = Mutex(value) }

    public func withLock<Result: Sendable>(_ body: (inout Value) -> Result) -> Result {
        mutex.withLock { value in body(&value) }
    }

    /// The value, taken out and replaced by `empty`.
    public func take(leaving empty: Value) -> Value {
        withLock { value in
            defer { value = empty }
            return value
        }
    }
}
