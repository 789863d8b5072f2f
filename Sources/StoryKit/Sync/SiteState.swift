public import Foundation

/// The merge rules, as pure functions over a site's state. Applying the same set of changes in any
/// order, any number of times, gives the same state: that is what makes kiosks converge.
///
/// - finished reads: a set keyed by UUID (a count is the number of events), with a set of removed
///   ids beside it that a read never leaves (a read deleted by mistake stays deleted); coached
///   reads: a set keyed by UUID too;
/// - positions, favourites, the PIN hash, each profile field: last writer wins by hybrid logical clock;
/// - a removed profile's tombstone beats every later edit (no resurrection);
/// - kiosk session logs and failed PIN tries: append-only.
public struct SiteState: Sendable, Hashable {
    public struct Register<Value: Sendable & Hashable>: Sendable, Hashable {
        public var value: Value
        public var hlc: HLCTimestamp
    }

    public struct Read: Sendable, Hashable {
        public var profile: UUID
        public var story: String
        public var finishedAt: Date
    }

    /// A read aloud with the coach: what the child read, what was said for them, what was passed over.
    public struct CoachedRead: Sendable, Hashable {
        public var profile: UUID
        public var story: String
        public var finishedAt: Date
        public var read: Int
        public var helped: Int
        public var skipped: Int
    }

    public var reads: [UUID: Read] = [:]
    /// Coached reads by change id: a set of events, like finished reads, kept apart from them.
    public var coachedReads: [UUID: CoachedRead] = [:]
    public var removedReads: Set<UUID> = []
    public var positions: [String: Register<Int?>] = [:]
    public var favourites: [String: Register<Bool>] = [:]
    /// "profile/bookmark id" → the bookmark, nil once deleted (a deletion wins over older edits).
    public var bookmarks: [String: Register<Bookmark?>] = [:]
    public var profileFields: [UUID: [String: Register<String?>]] = [:]
    public var removedProfiles: Set<UUID> = []
    public var kioskSessions: [UUID: Register<String>] = [:]
    public var failedPINs: Set<UUID> = []
    public var pin: Register<String?>?

    public init() {}

    public init(changes: some Sequence<SyncChange>) {
        self.init()
        for change in changes { apply(change) }
    }

    /// Whether a register holding `current` should take a write stamped `incoming`.
    public static func wins(_ incoming: HLCTimestamp, over current: HLCTimestamp?) -> Bool {
        guard let current else { return true }
        return incoming > current
    }

    /// Folds one change in. Idempotent and commutative with every other change.
    public mutating func apply(_ change: SyncChange) {
        let hlc = change.hlc
        func lww<V>(_ registers: inout [String: Register<V>], _ key: String, _ value: V) {
            if Self.wins(hlc, over: registers[key]?.hlc) { registers[key] = Register(value: value, hlc: hlc) }
        }
        switch change.body {
        case .read(let profile, let story, let finishedAt):
            if !removedReads.contains(change.id) { reads[change.id] = Read(profile: profile, story: story, finishedAt: finishedAt) }
        case .coachedRead(let profile, let story, let finishedAt, let read, let helped, let skipped):
            coachedReads[change.id] = CoachedRead(profile: profile, story: story, finishedAt: finishedAt, read: read, helped: helped, skipped: skipped)
        case .readRemoved(_, let read):
            removedReads.insert(read)
            reads[read] = nil
        case .position(let profile, let story, let sentence):
            lww(&positions, "\(profile.uuidString)/\(story)", sentence)
        case .favourite(let profile, let story, let isFavourite):
            lww(&favourites, "\(profile.uuidString)/\(story)", isFavourite)
        case .bookmark(let profile, let bookmark, let removed):
            lww(&bookmarks, "\(profile.uuidString)/\(bookmark.id.uuidString)", removed ? nil : bookmark)
        case .profileField(let profile, let field, let value):
            var fields = profileFields[profile] ?? [:]
            lww(&fields, field, value)
            profileFields[profile] = fields
        case .profileRemoved(let profile):
            removedProfiles.insert(profile)
        case .kioskSession(let session, _, let record):
            if Self.wins(hlc, over: kioskSessions[session]?.hlc) { kioskSessions[session] = Register(value: record, hlc: hlc) }
        case .failedPIN:
            failedPINs.insert(change.id)
        case .pinHash(let record):
            if Self.wins(hlc, over: pin?.hlc) { pin = Register(value: record, hlc: hlc) }
        }
    }

    /// The state as the user sees it: removed profiles and everything of theirs are gone.
    public var visible: SiteState {
        var copy = self
        let removed = removedProfiles
        copy.reads = reads.filter { !removed.contains($0.value.profile) }
        copy.coachedReads = coachedReads.filter { !removed.contains($0.value.profile) }
        copy.profileFields = profileFields.filter { !removed.contains($0.key) }
        func alive(_ key: String) -> Bool { !removed.contains { key.hasPrefix($0.uuidString + "/") } }
        copy.positions = positions.filter { alive($0.key) && $0.value.value != nil }
        copy.favourites = favourites.filter { alive($0.key) && $0.value.value }
        copy.bookmarks = bookmarks.filter { alive($0.key) && $0.value.value != nil }
        return copy
    }

    /// Read counts per profile and story (removed profiles excluded).
    public var readCounts: [String: Int] {
        var counts: [String: Int] = [:]
        for read in visible.reads.values { counts["\(read.profile.uuidString)/\(read.story)", default: 0] += 1 }
        return counts
    }
}
