/// The one inbox of a loop (bubbletea's `Program`: one `msgs` channel, `Send`): any thread sends a
/// message; the loop's thread takes them all, in the order they were sent, woken through one
/// descriptor (`wake.read`, for `poll`).
public final class Inbox<Message: Sendable>: Sendable {
    private let messages = LockedValue<[Message]>([])
    /// Readable while something waits (and, harmlessly, once more after a take).
    public let wake = WakePipe()

    public init() {}

    /// Puts `message` last in the inbox and wakes the loop (any thread).
    public func send(_ message: Message) {
        messages.withLock { $0.append(message) }
        wake.signal()
    }

    /// Everything sent so far, oldest first (the loop's thread).
    public func take() -> [Message] {
        // Drained first: a message sent between the two is taken now and its wake-up is spare.
        wake.drain()
        return messages.take(leaving: [])
    }
}
