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
            /// The ids of each child's finished reads (the log holds each read once), so that a
            /// child's page does not look through every read of the site; a read since removed is
            /// no longer in ``SiteState/reads``.
            var reads: [UUID: [UUID]] = [:]
            /// The ids of each child's reads aloud with the coach (``SiteState/coachedReads``).
            var coachedReads: [UUID: [UUID]] = [:]
            /// The children by name (``WebChild/all(in:)``), sorted again only when the log grew.
            var children: [WebChild] = []
            /// Each story's title as the latest change that carried one had it (``SyncChange/storyTitle``).
            var titles: [String: String] = [:]

            /// A story as a grown-up knows it: its title when a kiosk sent one, else its id made
            /// readable ("the-little-red-hen": "The little red hen"), since the server holds no stories.
            func title(of story: String) -> String {
                if let title = titles[story] { return title }
                let words = story.split(whereSeparator: { $0 == "-" || $0 == "_" || $0 == " " }).joined(separator: " ")
                guard let first = words.first else { return story }
                return first.uppercased() + words.dropFirst()
            }
        }

        private let entries = Mutex<[Int64: Entry]>([:])
        let database: ServerDatabase

        init(database: ServerDatabase) { self.database = database }

        /// The site's state with every change the log holds now.
        func current(site: Int64) async throws -> Entry {
            var entry = entries.withLock { $0[site] } ?? Entry(cursor: 0, state: SiteState())
            let decoder = JSONDecoder.sync
            let start = entry.cursor
            while true {
                let rows = try await database.pull(site: site, after: entry.cursor, limit: 5000)
                for row in rows {
                    guard let change = database.decodeStored(row, with: decoder) else { continue }
                    entry.state.apply(change)
                    if let title = change.storyTitle, let story = change.story { entry.titles[story] = title }
                    if case .read = change.body, let read = entry.state.reads[change.id] { entry.reads[read.profile, default: []].append(change.id) }
                    if case .coachedRead(let profile, _, _, _, _, _) = change.body, !(entry.coachedReads[profile]?.contains(change.id) ?? false) {
                        entry.coachedReads[profile, default: []].append(change.id)
                    }
                }
                guard let last = rows.last else { break }
                entry.cursor = last.seq
            }
            if entry.cursor != start || start == 0 { entry.children = WebChild.all(in: entry.state) }
            let settled = entry
            // Two pages at once may both have read on: the one further along is kept.
            entries.withLock { if ($0[site]?.cursor ?? -1) < settled.cursor { $0[site] = settled } }
            return settled
        }
    }

    /// A child of the site as the web page shows it.
    struct WebChild: Sendable {
        var id: UUID
        var name: String
        var fields: [String: SiteState.Register<String?>]

        /// The site's children (not removed, with a name), by name.
        static func all(in state: SiteState) -> [WebChild] {
            state.profileFields.keys.compactMap { one($0, in: state) }.map { (key: ChildProfile.nameKey($0.name), child: $0) }
                .sorted { ($0.key, $0.child.id.uuidString) < ($1.key, $1.child.id.uuidString) }.map(\.child)
        }

        /// The child `id` names, unless removed or nameless.
        static func one(_ id: UUID, in state: SiteState) -> WebChild? {
            guard !state.removedProfiles.contains(id), let fields = state.profileFields[id], let name = fields["name"]?.value ?? nil else { return nil }
            return WebChild(id: id, name: name, fields: fields)
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
