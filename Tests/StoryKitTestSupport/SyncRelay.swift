import Foundation
import StoryKit

/// The site's change log kept in memory, standing in for `serve` where a test is about the kiosk's
/// merge rules, not the network: stores each change once by UUID, numbers them in arrival order,
/// and hands out what came after a kiosk's cursor. (The server tests use the real one.)
public final class SyncRelay: @unchecked Sendable {
    public private(set) var log: [SyncChange] = []
    private var seen: Set<UUID> = []

    public init() {}

    /// Uploads a kiosk's outbox (in batches) and confirms it; returns how many were new here.
    /// `confirm: false` plays a crash after the server committed, before the kiosk forgot its outbox.
    @discardableResult
    public func upload(_ store: StoryStore, batch: Int = 100, confirm: Bool = true) throws -> Int {
        var added = 0
        var offset = 0
        while true {
            let pending = try store.pendingChanges(limit: batch + offset).dropFirst(offset)
            guard let last = pending.last else { return added }
            for (_, change) in pending where seen.insert(change.id).inserted {
                log.append(change)
                added += 1
            }
            if confirm { try store.confirmUploaded(through: last.seq) } else { offset += pending.count }
        }
    }

    /// Hands the kiosk everything after its cursor.
    public func pull(_ store: StoryStore) throws {
        let cursor = Int(try store.syncCursor())
        try store.applyPulled(Array(log.dropFirst(cursor)), cursor: Int64(log.count))
    }

    /// One full round for a kiosk: upload, then pull.
    public func round(_ store: StoryStore) throws {
        try upload(store)
        try pull(store)
    }

    public var state: SiteState { SiteState(changes: log) }
}
