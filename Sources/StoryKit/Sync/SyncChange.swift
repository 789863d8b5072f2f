public import Foundation

/// One change a kiosk uploads, or the server hands out: the unit of the outbox and of the site's log.
///
/// Each has its own UUID, so the server stores it once however often it arrives (an upload repeated
/// after a crash is harmless). Profiles are named by their sync UUID, never by a kiosk's row id.
public struct SyncChange: Sendable, Hashable, Codable {
    public var id: UUID
    public var hlc: HLCTimestamp
    public var body: Body
    /// The title of the story the body names (a read, a place or a favourite), as the sending
    /// kiosk's library has it, so that the site server's web page can show "The Little Red Hen"
    /// where the log says "the-little-red-hen". Optional and outside the body: kiosks and servers
    /// that predate it send none and pass over it (their decoders skip an unknown key), and no
    /// merge rule reads it.
    public var storyTitle: String?

    public init(id: UUID = UUID(), hlc: HLCTimestamp, body: Body, storyTitle: String? = nil) {
        self.id = id
        self.hlc = hlc
        self.body = body
        self.storyTitle = storyTitle
    }

    public enum Body: Sendable, Hashable, Codable {
        /// A finished read (the change's id is the event's id).
        case read(profile: UUID, story: String, finishedAt: Date)
        /// A read aloud with the coach (issue 45): the words the child read by themselves, those the
        /// coach said for them, and those passed over. An event with its own id, like a finished
        /// read, and kept apart from the finished reads (it is not one more read of the story).
        /// Kiosks from before it set it aside as a change they cannot read, and go on with the
        /// rest; with a server from before it, it waits in the kiosk's outbox (``laterKinds``).
        case coachedRead(profile: UUID, story: String, finishedAt: Date, read: Int, helped: Int, skipped: Int)
        /// A finished read made by mistake, deleted (by a grown-up on the site's web page): the read
        /// whose change id is `read` is gone for good, on every machine (a removed set of ids).
        case readRemoved(profile: UUID, read: UUID)
        /// Where to resume a story (nil: forget it). Last writer wins per (profile, story).
        case position(profile: UUID, story: String, sentence: Int?)
        /// Favourite or not. Last writer wins per (profile, story).
        case favourite(profile: UUID, story: String, isFavourite: Bool)
        /// A bookmark as it is now (made, its note typed) or deleted (`removed`). Last writer wins
        /// per bookmark id. Kiosks that predate it set the change aside (their decoder does not
        /// know it) and go on; with a server that predates it, it waits in the kiosk's outbox
        /// until the server is updated (``laterKinds``, `UploadResponse.unknownKinds`).
        case bookmark(profile: UUID, bookmark: Bookmark, removed: Bool)
        /// One profile field's new value, as the text SQLite stores (nil for NULL). Last writer wins per field.
        case profileField(profile: UUID, field: String, value: String?)
        /// The profile is gone for good: beats every edit, whatever its clock.
        case profileRemoved(profile: UUID)
        /// A kiosk session's log line (append-only; a later version of the same session replaces it).
        case kioskSession(session: UUID, kiosk: String, record: String)
        /// A wrong PIN try on one kiosk, uploaded for the log only (lockout stays per kiosk).
        case failedPIN(kiosk: String, at: Date)
        /// The site's parental PIN hash (set only online; nil: no PIN).
        case pinHash(record: String?)
    }

    /// The kinds of change this version knows: each is the one key of a body's JSON (`{"read": {…}}`).
    /// A change of another kind comes from a newer kiosk: the server keeps it apart instead of
    /// refusing its batch (`UploadResponse.unknownKinds`).
    public static let knownKinds: Set<String> = [
        "read", "coachedRead", "readRemoved", "position", "favourite", "bookmark", "profileField", "profileRemoved", "kioskSession",
        "failedPIN", "pinHash",
    ]

    /// The kinds added after the first sync protocol: a site's server that predates them refuses a
    /// batch holding one as not a batch at all (400, naming no change), so the kiosk sends the rest
    /// without them and keeps them for a later round.
    public static let laterKinds: Set<String> = ["coachedRead", "bookmark"]

    /// The kind of the change (its body's key in JSON, one of ``knownKinds``).
    public var kind: String {
        switch body {
        case .read: "read"
        case .coachedRead: "coachedRead"
        case .readRemoved: "readRemoved"
        case .position: "position"
        case .favourite: "favourite"
        case .bookmark: "bookmark"
        case .profileField: "profileField"
        case .profileRemoved: "profileRemoved"
        case .kioskSession: "kioskSession"
        case .failedPIN: "failedPIN"
        case .pinHash: "pinHash"
        }
    }

    /// The register a last-writer-wins change writes, or nil for append-only changes.
    public var registerKey: String? {
        switch body {
        case .position(let p, let s, _): "position/\(p.syncText)/\(s)"
        case .favourite(let p, let s, _): "favourite/\(p.syncText)/\(s)"
        case .bookmark(let p, let b, _): "bookmark/\(p.syncText)/\(b.id.syncText)"
        case .profileField(let p, let f, _): "profile/\(p.syncText)/\(f)"
        case .kioskSession(let s, _, _): "session/\(s.syncText)"
        case .pinHash: "pin"
        case .read, .coachedRead, .readRemoved, .profileRemoved, .failedPIN: nil
        }
    }

    /// The story the change names, if any.
    public var story: String? {
        switch body {
        case .read(_, let story, _), .position(_, let story, _), .favourite(_, let story, _), .coachedRead(_, let story, _, _, _, _): story
        case .bookmark(_, let bookmark, _): bookmark.story
        default: nil
        }
    }

    /// The profile the change belongs to, if any.
    public var profile: UUID? {
        switch body {
        case .read(let p, _, _), .coachedRead(let p, _, _, _, _, _), .readRemoved(let p, _), .position(let p, _, _), .favourite(let p, _, _),
            .profileField(let p, _, _), .profileRemoved(let p), .bookmark(let p, _, _):
            p
        case .kioskSession, .failedPIN, .pinHash: nil
        }
    }
}
