import Foundation
public import StoryKit

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

/// The relay answers for the site as the server does for changes every kiosk must agree on: it
/// stores them at once, refusing a name another live child of the site has (folded as nameKey).
extension SyncRelay: SiteAuthority {
    public func agree(_ changes: [SyncChange]) throws(SiteRefusal) {
        let site = state.visible
        for change in changes {
            guard case .profileField(let profile, "name", let name?) = change.body else { continue }
            let taken = site.profileFields.contains { other, fields in
                other != profile && fields["name"]?.value.map(ChildProfile.nameKey) == ChildProfile.nameKey(name)
            }
            if taken { throw .refused("there is already a profile called \(name) on this site") }
        }
        for change in changes where seen.insert(change.id).inserted { log.append(change) }
    }
}

/// A site server that cannot be reached (the network or the server is down).
public struct UnreachableSite: SiteAuthority {
    public init() {}
    public func agree(_ changes: [SyncChange]) throws(SiteRefusal) {
        throw .unreachable("the server could not be reached: connection refused")
    }
}

/// What a child and a parent do on a kiosk, at random: finished reads, places, favourites, profile
/// edits. Returns how many reads were finished for children other than `spare` (whose reads may be
/// lost with a removal elsewhere).
public enum KioskActivity {
    public static func randomOperations(
        on store: StoryStore, count: Int, using random: inout SeededGenerator, spare: String? = nil,
        removeAt: Int? = nil, removing: String? = nil
    ) throws -> Int {
        var reads = 0
        for step in 0..<count {
            if step == removeAt, let removing, let profile = try store.profile(named: removing) {
                try store.removeProfile(profile, authorization: store.authorize(pin: nil))
                continue
            }
            let profiles = try store.profiles()
            let profile = profiles[Int.random(in: 0..<profiles.count, using: &random)]
            let id = profile.id!
            let story = "story\(Int.random(in: 0..<6, using: &random))"
            switch Int.random(in: 0..<5, using: &random) {
            case 0:
                try store.recordFinishedRead(profileID: id, storyID: story)
                if profile.name != spare { reads += 1 }
            case 1: try store.setPosition(profileID: id, storyID: story, sentenceIndex: Int.random(in: 0..<50, using: &random))
            case 2: try store.toggleFavourite(profileID: id, storyID: story)
            case 3: try store.clearPosition(profileID: id, storyID: story)
            default:
                var edited = profile
                if Bool.random(using: &random) { edited.age = Int.random(in: 3...12, using: &random) } else { edited.settings.hints.toggle() }
                try store.updateProfile(edited, authorization: store.authorize(pin: nil))
            }
        }
        return reads
    }
}
