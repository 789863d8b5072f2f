#if Server
    import Foundation
    import Synchronization
    import StoryKit

    /// Each site's state as kiosks see it (``SiteState``), kept in memory and brought up to date
    /// from the log before every page: the first page of a site folds its whole log, later ones only
    /// what came since. The log stays the one source of truth; this is a reading of it.
    final class SiteStates: Sendable {
        struct Entry: Sendable {
            var cursor: Int64
            var state: SiteState
        }

        private let entries = Mutex<[Int64: Entry]>([:])
        let database: ServerDatabase

        init(database: ServerDatabase) { self.database = database }

        /// The site's state with every change the log holds now.
        func current(site: Int64) async throws -> SiteState {
            var entry = entries.withLock { $0[site] } ?? Entry(cursor: 0, state: SiteState())
            let decoder = JSONDecoder.sync
            while true {
                let rows = try await database.pull(site: site, after: entry.cursor, limit: 5000)
                for row in rows { if let change = database.decodeStored(row, with: decoder) { entry.state.apply(change) } }
                guard let last = rows.last else { break }
                entry.cursor = last.seq
            }
            let settled = entry
            // Two pages at once may both have read on: the one further along is kept.
            entries.withLock { if ($0[site]?.cursor ?? -1) < settled.cursor { $0[site] = settled } }
            return settled.state
        }
    }

    /// A child of the site as the web page shows it.
    struct WebChild: Sendable {
        var id: UUID
        var name: String
        var fields: [String: SiteState.Register<String?>]

        /// The site's children (not removed, with a name), by name.
        static func all(in state: SiteState) -> [WebChild] {
            state.profileFields.compactMap { id, fields -> WebChild? in
                guard !state.removedProfiles.contains(id), let name = fields["name"]?.value ?? nil else { return nil }
                return WebChild(id: id, name: name, fields: fields)
            }.sorted { ($0.name.lowercased(), $0.id.uuidString) < ($1.name.lowercased(), $1.id.uuidString) }
        }
    }

    /// Makes the page's edits changes of the site's log, stamped by the server's own clock (node
    /// `web`) and checked by the rules a kiosk's change is checked by (``SyncValidation``).
    final class WebEditor: Sendable {
        static let node = "web"
        private let clock = Mutex(HybridLogicalClock(node: node))

        /// A change that wins over `current` (the register it replaces), stamped now.
        func change(_ body: SyncChange.Body, after current: HLCTimestamp?, now: Date) -> SyncChange {
            let stamp = clock.withLock { clock in
                if let current { clock.observe(current) }
                return clock.tick(now: now)
            }
            return SyncChange(hlc: stamp, body: body)
        }
    }
#endif
