import ArgumentParser
import Foundation
package import StoryKit

/// What the profile, PIN, history and log commands share: opening the store, asking for the
/// parental PIN, reporting a user error (exit 1) with a message that says what to do.
package enum StoreCommandSupport {
    /// A user error: `storyreader: message` on standard error, exit code 1.
    package static func fail(_ message: String) -> UserFailure {
        UserFailure(message: message)
    }

    /// `error` in the language of `messages`: the store's, a story lookup's and a PIN's errors are
    /// translated; any other error says its own description.
    static func describe(_ error: any Error, _ messages: MessageCatalog) -> String {
        switch error {
        case let error as StoreError: error.localized(messages)
        case let error as StoryLookupError: error.localized(messages)
        case let error as ParentalPIN.FormatProblem: error.localized(messages)
        case let error as UserFailure: error.message
        default: String(describing: error)
        }
    }

    /// A user error for `error`, in the language of `messages`.
    package static func fail(_ error: any Error, _ messages: MessageCatalog) -> UserFailure {
        if let failure = error as? UserFailure { return failure }
        return UserFailure(message: describe(error, messages))
    }

    /// The store of the data folder. `readOnly`: for a command that only reads, which still
    /// works when the database cannot be written (a read-only file or folder, a full disk, a
    /// damaged file): it is opened read-only and standard error says why.
    /// `keepingReads`: for a reading session, whose reads are kept for later (the notice says so).
    package static func openStore(_ global: GlobalOptions, readOnly: Bool = false, keepingReads: Bool = false) throws -> StoryStore {
        let store: StoryStore
        do {
            // A new database's first profile is named in the parent's language ("Lector").
            store = try StoryStore(dataDirectory: global.dataDirectory(), firstProfileName: global.messages.tr("Reader"), readOnlyFallback: readOnly)
        } catch {
            throw fail(error, global.messages)
        }
        if let reason = store.readOnlyNotice(global.messages, keepingReads: keepingReads) {
            FileHandle.standardError.write(Data("storyreader: \(Sanitizer.visibleLines(reason))\n".utf8))
        }
        // A row that cannot be read back is skipped where it is read, and said here once.
        let messages = global.messages
        store.reportDamagedRows { row in
            let line = messages.tr("warning: a damaged row was skipped ({row}); the rest reads on", ["row": safe(row.description)])
            FileHandle.standardError.write(Data("storyreader: \(line)\n".utf8))
        }
        return store
    }

    /// The parent's authorization: at once when no PIN is set; otherwise asks for the PIN (without
    /// echo on a terminal, one line from a pipe) and checks it.
    static func authorize(_ store: StoryStore, prompter: Prompter, messages: MessageCatalog) throws -> ParentalAuthorization {
        do {
            guard try store.isPINSet() else { return try store.authorize(pin: nil) }
            let lockout = try store.pinLockout()
            let remaining = lockout.remaining(at: store.now)
            if remaining > 0 { throw StoreError.pinLocked(remaining: remaining) }
            guard let pin = prompter.askSecret(messages.tr("Parental PIN:") + " ") else {
                throw fail(messages.tr("a parental PIN is set: type it to make this change (from a pipe, give it as the first line)"))
            }
            return try store.authorize(pin: pin)
        } catch let error as StoreError {
            throw fail(error, messages)
        }
    }

    static func printJSON<T: Encodable>(_ value: T) throws {
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.prettyPrinted, .sortedKeys, .withoutEscapingSlashes]
        encoder.dateEncodingStrategy = .iso8601
        print(String(decoding: try encoder.encode(value), as: UTF8.self))
    }

    /// Untrusted text made safe for the terminal.
    static func safe(_ text: String) -> String { Sanitizer.sanitizeLine(text) }
}
