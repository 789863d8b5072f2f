import Foundation
import Synchronization

/// How the server stamps changes from kiosks whose clocks are not trusted (more than five minutes
/// ahead, see ``ClockSkew``): the server's time, with a counter that only rises. The counter
/// matters: two edits of one register in one batch re-stamped alike would tie, and since last
/// writer wins only with a strictly newer stamp, every machine but the author would keep the older
/// edit while the author kept the newer one.
///
/// It lives beside the merge rules (not in the server target) so that it is tested without a network.
public final class RestampClock: Sendable {
    private let last = Mutex<(millis: Int64, counter: Int)>((0, 0))

    public init() {}

    /// The batch with each untrusted change re-stamped in the order of its own stamps (the order its
    /// kiosk made them), each later than every stamp this clock gave before; trusted ones unchanged.
    public func restamped(_ changes: [SyncChange], serverMillis now: Int64) -> [SyncChange] {
        var result = changes
        let untrusted = changes.indices.filter { !ClockSkew.isTrusted(changes[$0].hlc, serverMillis: now) }
            .sorted { changes[$0].hlc < changes[$1].hlc }
        last.withLock { last in
            for index in untrusted {
                if now > last.millis { last = (now, 0) } else { last.counter += 1 }
                result[index].hlc = HLCTimestamp(millis: last.millis, counter: last.counter, node: changes[index].hlc.node)
            }
        }
        return result
    }
}
