#if Server
    import Foundation
    import PostgresNIO
    import StoryKit

    /// Changes of a kind this server does not know, from a kiosk newer than it (a new kind such as
    /// `bookmark` reaches kiosks before their site's server is updated). They used to make the
    /// decoder refuse the whole batch, so such a kiosk uploaded nothing at all; now they are kept
    /// apart (table `set_aside`, logged), named in the answer (`UploadResponse.unknownKinds`), and
    /// the rest of the batch is stored. The kiosk keeps them and sends them again later.
    extension SyncServer {
        /// A change whose kind this server does not know, as it was sent.
        struct UnknownChange: Sendable {
            var id: UUID
            var kind: String
            var json: String

            var reason: String {
                "a change of a kind this server does not know (\(Sanitizer.sanitizeLine(String(kind.prefix(40))))): kept apart, not stored; update the site's server"
            }
        }

        /// The batch, with the changes of kinds this server does not know taken out.
        ///
        /// - Throws: the decoder's error when the request is not a batch, or a change of a known kind
        ///   (or one without an id or a body) does not read: the batch is refused whole, as before.
        static func readUpload(_ data: Data) throws -> (upload: UploadRequest, unknown: [UnknownChange]) {
            if let upload = SyncPageReader.uploadRequest(data) { return (upload, []) }
            do {
                return (try JSONDecoder.sync.decode(UploadRequest.self, from: data), [])
            } catch let error as DecodingError {
                guard let object = try? JSONSerialization.jsonObject(with: data) as? [String: Any], let list = object["changes"] as? [Any],
                    let kioskMillis = (object["kioskMillis"] as? NSNumber)?.int64Value
                else { throw error }
                var changes: [SyncChange] = []
                var unknown: [UnknownChange] = []
                for element in list {
                    let bytes = try JSONSerialization.data(withJSONObject: element)
                    if let change = try? JSONDecoder.sync.decode(SyncChange.self, from: bytes) {
                        changes.append(change)
                        continue
                    }
                    guard let fields = element as? [String: Any], let id = (fields["id"] as? String).flatMap(UUID.init(uuidString:)),
                        let body = fields["body"] as? [String: Any], body.count == 1, let kind = body.keys.first, !SyncChange.knownKinds.contains(kind)
                    else { throw error }
                    unknown.append(UnknownChange(id: id, kind: kind, json: String(decoding: bytes, as: UTF8.self)))
                }
                return (UploadRequest(changes: changes, kioskMillis: kioskMillis), unknown)
            }
        }
    }

    extension ServerDatabase {
        /// The server's fourth migration: changes of kinds it does not know, kept as they came (a
        /// later version of the server may read them), once per site and id.
        static let setAsideMigration = [
            """
            CREATE TABLE set_aside (
                site_id bigint NOT NULL REFERENCES site ON DELETE CASCADE,
                id uuid NOT NULL,
                kind text NOT NULL,
                body text NOT NULL,      -- JSON of the change, as the kiosk sent it
                received_at timestamptz NOT NULL DEFAULT now(),
                PRIMARY KEY (site_id, id)
            )
            """
        ]

        /// Keeps `changes` apart for the site (a change sent again is kept once) and logs them.
        func setAside(site: Int64, changes: [SyncServer.UnknownChange]) async throws {
            guard !changes.isEmpty else { return }
            try await withDeadline(callDeadline, "setting changes aside") { [client, logger] in
                try await client.withConnection { connection in
                    for change in changes {
                        try await connection.query(
                            """
                            INSERT INTO set_aside (site_id, id, kind, body) VALUES (\(site), \(change.id), \(change.kind), \(change.json))
                            ON CONFLICT (site_id, id) DO NOTHING
                            """, logger: logger)
                    }
                }
            }
            let kinds = Set(changes.map { Sanitizer.sanitizeLine(String($0.kind.prefix(40))) }).sorted().joined(separator: ", ")
            logger.warning("site \(site): \(changes.count) change(s) of a kind this server does not know (\(kinds)) kept apart: update the server")
        }
    }
#endif
