public import Foundation

/// Why the store could not open or could not do what was asked; each says what to do.
public enum StoreError: Error, Sendable, Hashable, CustomStringConvertible {
    /// The data folder cannot be created or written.
    case dataFolderNotWritable(path: String, reason: String)
    /// The database file exists but is not an SQLite database. It is never replaced.
    case notADatabase(path: String)
    /// The database file is another program's SQLite database (`tables`, some of its table names,
    /// quoted). It is never written.
    case foreignDatabase(path: String, tables: String)
    /// The database was written by a newer version of storyreader.
    case newerSchema(path: String, found: Int, known: Int)
    /// The database cannot be opened or read for another reason.
    case unreadable(path: String, reason: String)
    /// A file of the store (the database, its log, its lock) that this user may not write.
    case fileNotWritable(path: String, reason: String)
    /// A file of the store that this user may not read.
    case fileNotReadable(path: String, reason: String)
    /// Something that is not a regular file (`kind`, a message: a FIFO, a device) where a file of
    /// the store should be; refused before any open, which could wait forever.
    case notAFile(path: String, kind: String)
    /// The database file is empty (0 bytes): never taken for a new database.
    case emptyDatabase(path: String)
    /// An SQLite file that fails `PRAGMA quick_check` (`problem`, SQLite's words), with the parts
    /// (messages: "profiles", "finished reads") that still read whole and those that do not. Never
    /// written to.
    case damaged(path: String, problem: String, readable: [String], unreadable: [String])
    /// `sync.json` is there but is not a site's settings.
    case badSyncSettings(path: String)
    /// The disk holding the database has no space left.
    case diskFull(path: String, reason: String)
    case profileNotFound(name: String)
    case lastProfile(name: String)
    /// A parental PIN is set and the action needs it.
    case pinRequired
    case pinAlreadySet
    case noPINSet
    case wrongPIN(triesLeftBeforeLockout: Int, lockedFor: TimeInterval?)
    case pinLocked(remaining: TimeInterval)
    case pinFormat(ParentalPIN.FormatProblem)
    case invalidProfile([ProfileProblem])
    /// A joined kiosk could not reach its site's server for a change the whole site must agree on.
    case siteUnreachable(action: String, reason: String)
    /// The site's server refused such a change (a name taken on another kiosk, a profile removed).
    case siteRefused(action: String, reason: String)

    public var description: String { localized(.english) }

    /// The message in the language of `messages` (paths, names and reasons as they are).
    public func localized(_ messages: MessageCatalog) -> String {
        switch self {
        case .dataFolderNotWritable(let path, let reason):
            return messages.tr(
                "the data folder {path} cannot be written ({reason}): make it writable (chmod u+w), or choose another folder with --data-dir or STORYREADER_DATA_DIR",
                ["path": path, "reason": reason])
        case .notADatabase(let path):
            return messages.tr(
                "{path} is not a storyreader database (not an SQLite file); it was left untouched: move it aside (mv '{path}' '{path}.bak') and run again to start a new database, or choose another folder with --data-dir",
                ["path": path])
        case .foreignDatabase(let path, let tables):
            return messages.tr(
                "{path} is another program's SQLite database (its tables: {tables}), not a storyreader database; it was left untouched: choose another folder with --data-dir, or move it aside (mv '{path}' '{path}.other') and run again to start a new database",
                ["path": path, "tables": tables])
        case .newerSchema(let path, let found, let known):
            return messages.tr(
                "{path} was written by a newer version of storyreader (database version {found}, this program knows up to {known}): update storyreader, or use another folder with --data-dir; the file was left untouched",
                ["path": path, "found": String(found), "known": String(known)])
        case .unreadable(let path, let reason):
            return messages.tr("{path} cannot be opened: {reason}", ["path": path, "reason": reason])
        case .fileNotWritable(let path, let reason):
            return messages.tr(
                "{path} cannot be written ({reason}): make it writable by this user (chmod u+w '{path}', or chown it if another user owns it), or choose another folder with --data-dir",
                ["path": path, "reason": reason])
        case .fileNotReadable(let path, let reason):
            return messages.tr(
                "{path} cannot be read ({reason}): make it readable and writable by this user (chmod u+rw '{path}', or chown it if another user owns it), or choose another folder with --data-dir",
                ["path": path, "reason": reason])
        case .notAFile(let path, let kind):
            return messages.tr(
                "{path} is {kind} where a file should be: storyreader does not open it; move it away (mv '{path}' '{path}.moved') or choose another folder with --data-dir",
                ["path": path, "kind": messages.text(kind)])
        case .emptyDatabase(let path):
            return messages.tr(
                "{path} is empty (0 bytes), not a storyreader database; it was left untouched and no new database was made over it. If it was cut short (a full disk), look for a copy; to start a new database, move it aside (mv '{path}' '{path}.empty') and run again",
                ["path": path])
        case .damaged(let path, let problem, let readable, let unreadable):
            let none = messages.tr("none")
            return messages.tr(
                "{path} is damaged ({problem}); it was left untouched. Still read whole: {readable}; not: {unreadable}. Keep a copy before anything else (cp '{path}' '{path}.copy'); `storyreader history` and `storyreader profile list` show what still reads; to start a new database, move it aside (mv '{path}' '{path}.damaged') and run again",
                [
                    "path": path, "problem": Sanitizer.sanitizeLine(problem),
                    "readable": readable.isEmpty ? none : readable.map { messages.text($0) }.joined(separator: ", "),
                    "unreadable": unreadable.isEmpty ? none : unreadable.map { messages.text($0) }.joined(separator: ", "),
                ])
        case .badSyncSettings(let path):
            return messages.tr(
                "{path} is not a site's settings (damaged or edited by hand): join the site again (storyreader sync join URL --token TOKEN) to write it anew",
                ["path": path])
        case .diskFull(let path, _):
            // The reason is always ENOSPC's "No space left on device" (in English): said after
            // "the disk is full" it said the same thing twice.
            return messages.tr("{path} cannot be written: the disk is full: free some space, or choose another folder with --data-dir", ["path": path])
        case .profileNotFound(let name):
            return messages.tr("there is no profile named \"{name}\": see the names with `storyreader profile list`", ["name": name])
        case .lastProfile(let name):
            return messages.tr("\"{name}\" is the only profile and cannot be removed: add another profile first, or edit this one", ["name": name])
        case .pinRequired:
            return messages.tr("a parental PIN is set: type it to make this change")
        case .pinAlreadySet:
            return messages.tr("a parental PIN is already set: use `storyreader pin change` to change it")
        case .noPINSet:
            return messages.tr("no parental PIN is set: use `storyreader pin set` to set one")
        case .wrongPIN(let left, let lockedFor):
            if let lockedFor {
                return messages.tr(
                    "PIN: wrong PIN: too many wrong tries, the PIN is locked for {time}: try again after that",
                    ["time": PINLockout.describe(lockedFor, messages)])
            }
            return messages.trn(
                "PIN: wrong PIN: {count} try left before a lockout: type the parental PIN again",
                "PIN: wrong PIN: {count} tries left before a lockout: type the parental PIN again", left)
        case .pinLocked(let remaining):
            return messages.tr("PIN: too many wrong tries: the PIN is locked, try again in {time}", ["time": PINLockout.describe(remaining, messages)])
        case .pinFormat(let problem):
            return problem.localized(messages)
        case .invalidProfile(let problems):
            return problems.map { $0.description(in: messages) }.joined(separator: "\n")
        case .siteUnreachable(let action, let reason):
            return messages.tr(
                "this kiosk is joined to a site: {action} needs the server, which cannot be reached now ({reason}): nothing was changed; try again when it is back",
                ["action": messages.text(action), "reason": Sanitizer.sanitizeLine(reason)])
        case .siteRefused(let action, let reason):
            return messages.tr("the site's server refused {action}: {reason}", ["action": messages.text(action), "reason": Sanitizer.sanitizeLine(reason)])
        }
    }
}
