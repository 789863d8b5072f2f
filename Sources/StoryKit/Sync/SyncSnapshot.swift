public import Foundation

/// What a child or a grown-up can see of a site, in a form two kiosks and the server can be compared
/// by: read event ids, positions, favourites and profile fields, keyed by sync ids.
public struct SyncSnapshot: Sendable, Hashable, Codable {
    public var reads: [UUID: String] = [:]
    public var positions: [String: Int] = [:]
    public var favourites: Set<String> = []
    public var profiles: [UUID: [String: String?]] = [:]

    public init() {}

    /// Rows present in one and not the other, counted on both sides.
    public func differences(from other: SyncSnapshot) -> Int {
        func diff<K: Hashable, V: Equatable>(_ a: [K: V], _ b: [K: V]) -> Int {
            Set(a.keys).union(b.keys).filter { a[$0] != b[$0] }.count
        }
        return diff(reads, other.reads) + diff(positions, other.positions) + favourites.symmetricDifference(other.favourites).count
            + diff(profiles, other.profiles)
    }
}

extension SiteState {
    /// The snapshot every kiosk should reach once it has every change.
    public var snapshot: SyncSnapshot {
        let state = visible
        var snapshot = SyncSnapshot()
        for (id, read) in state.reads { snapshot.reads[id] = "\(read.profile.uuidString)/\(read.story)" }
        for (key, register) in state.positions { if let sentence = register.value { snapshot.positions[key] = sentence } }
        snapshot.favourites = Set(state.favourites.filter(\.value.value).keys)
        for (profile, fields) in state.profileFields { snapshot.profiles[profile] = fields.mapValues(\.value) }
        return snapshot
    }
}
