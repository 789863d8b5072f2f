import ArgumentParser
import Foundation
import StoryKit

/// `storyreader history [--profile NAME] [--kiosk] [--json]`: the finished reads, newest first,
/// then the reads aloud with the coach (apart: they are the child reading, not one more read of
/// the story), then the kiosk sessions (only those with `--kiosk`).
struct HistoryCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "history",
        abstract: helpMessages.tr("Show the finished reads and kiosk sessions, newest first."))
    @OptionGroup var global: GlobalOptions
    @Option(help: ArgumentHelp(helpMessages.tr("Only this child's reads.")), completion: ShellCompletion.profiles) var profile: String?
    @Option(help: ArgumentHelp(helpMessages.tr("At most this many reads."))) var limit: Int?
    @Flag(help: ArgumentHelp(helpMessages.tr("Print JSON."))) var json = false
    @Flag(help: ArgumentHelp(helpMessages.tr("Only the kiosk sessions: profile, start, end, stories read, blocked key presses."))) var kiosk = false

    struct KioskEntry: Encodable {
        var profiles: [String]
        var startedAt: Date
        /// Missing while the kiosk runs, or when it was killed.
        var endedAt: Date?
        var storiesRead: [String]
        var blockedKeyPresses: Int
        var endReason: String?
        /// The kiosk of the site it ran on; missing for this machine's own sessions.
        var kiosk: String?
    }

    struct Entry: Encodable {
        var profile: String
        /// The story id.
        var story: String
        /// The story's title, when the story is still in the library.
        var title: String?
        var finishedAt: Date
        /// Set for a read aloud with the coach: what the child read alone, was helped with, passed over.
        var coached: Coached?
    }

    struct Coached: Encodable {
        var read: Int
        var helped: Int
        var skipped: Int
    }

    func validate() throws {
        if let limit, limit < 1 { throw ValidationError(helpMessages.tr("--limit must be 1 or more")) }
    }

    func run() throws {
        let store = try StoreCommandSupport.openStore(global, readOnly: true)
        let messages = global.messages
        if kiosk { return try runKiosk(store) }
        do {
            let profileID = try profile.map { try store.requireProfile(named: $0).id ?? 0 }
            let records = try store.history(profileID: profileID, limit: limit)
            let coachedRecords = try store.coachedReads(profileID: profileID, limit: limit)
            var titles: [String: String] = [:]
            if !records.isEmpty || !coachedRecords.isEmpty {
                for entry in global.loadLibrary(reportProblems: false).entries { titles[entry.id] = entry.title }
            }
            let entries = records.map {
                Entry(
                    profile: StoreCommandSupport.safe($0.profileName), story: StoreCommandSupport.safe($0.storyID),
                    title: titles[$0.storyID].map(StoreCommandSupport.safe), finishedAt: $0.finishedAt)
            }
            let coached = coachedRecords.map {
                Entry(
                    profile: StoreCommandSupport.safe($0.profileName), story: StoreCommandSupport.safe($0.storyID),
                    title: titles[$0.storyID].map(StoreCommandSupport.safe), finishedAt: $0.finishedAt,
                    coached: Coached(read: $0.read, helped: $0.helped, skipped: $0.skipped))
            }
            if json { return try StoreCommandSupport.printJSON(entries + coached) }
            if entries.isEmpty {
                print(
                    profile == nil
                        ? messages.tr("No story has been finished yet.")
                        : messages.tr("{name} has not finished a story yet.", ["name": StoreCommandSupport.safe(profile ?? "")]))
            }
            let formatter = Self.dateFormatter(messages)
            for entry in entries {
                print("\(formatter.string(from: entry.finishedAt))  \(entry.profile)  \(entry.title ?? entry.story)")
            }
            if !coached.isEmpty {
                print("")
                print(messages.tr("Read aloud with the coach:"))
                for entry in coached {
                    let tally = entry.coached.map { Self.coachedTally($0, messages) } ?? ""
                    print("\(formatter.string(from: entry.finishedAt))  \(entry.profile)  \(entry.title ?? entry.story)  \(tally)")
                }
            }
            let sessions = try store.kioskSessions(profile: profile, limit: limit)
            if !sessions.isEmpty {
                print("")
                printKiosk(sessions)
            }
        } catch let error as StoreError {
            throw StoreCommandSupport.fail(error, messages)
        }
    }

    func runKiosk(_ store: StoryStore) throws {
        do {
            let sessions = try store.kioskSessions(profile: profile, limit: limit)
            if json {
                return try StoreCommandSupport.printJSON(
                    sessions.map {
                        KioskEntry(
                            profiles: $0.profiles.map(StoreCommandSupport.safe), startedAt: $0.startedAt, endedAt: $0.endedAt,
                            storiesRead: $0.storiesRead.map(StoreCommandSupport.safe), blockedKeyPresses: $0.blockedKeys,
                            endReason: $0.endReason, kiosk: $0.kiosk.map(StoreCommandSupport.safe))
                    })
            }
            if sessions.isEmpty {
                print(global.messages.tr("No kiosk session yet."))
                return
            }
            printKiosk(sessions)
        } catch let error as StoreError {
            throw StoreCommandSupport.fail(error, global.messages)
        }
    }

    /// "read 42 words alone, helped with 3" (words the coach heard the child read, and said for them).
    static func coachedTally(_ coached: Coached, _ messages: MessageCatalog) -> String {
        messages.trn(
            "read {count} word alone, helped with {helped}", "read {count} words alone, helped with {helped}", coached.read,
            ["helped": String(coached.helped)])
    }

    /// A date and time written the language's way: the pattern is a message of its own, so a
    /// translator writes it ("dd.MM.yyyy HH:mm" in German); English keeps the sortable ISO order.
    static func dateFormatter(_ messages: MessageCatalog) -> DateFormatter {
        let formatter = DateFormatter()
        formatter.locale = Locale(identifier: "en_US_POSIX")
        formatter.dateFormat = messages.tr("yyyy-MM-dd HH:mm")
        return formatter
    }

    /// "Kiosk sessions:" then one line each: start, end, profiles, stories, blocked key presses.
    func printKiosk(_ sessions: [KioskSessionRecord]) {
        let formatter = Self.dateFormatter(global.messages)
        let time = DateFormatter()
        time.locale = Locale(identifier: "en_US_POSIX")
        time.dateFormat = "HH:mm"
        let messages = global.messages
        print(messages.tr("Kiosk sessions:"))
        // On a joined kiosk the log holds every kiosk of the site: each line says where it ran.
        let sited = sessions.contains { $0.kiosk != nil }
        for session in sessions {
            let end = session.endedAt.map { time.string(from: $0) } ?? messages.tr("(not ended)")
            let place =
                !sited
                ? ""
                : "  "
                    + (session.kiosk.map { messages.tr("kiosk {kiosk}", ["kiosk": StoreCommandSupport.safe($0)]) }
                        ?? messages.tr("this kiosk"))
            let stories = session.storiesRead.isEmpty ? messages.tr("no stories") : session.storiesRead.map(StoreCommandSupport.safe).joined(separator: ", ")
            let blocked = messages.trn("{count} blocked key press", "{count} blocked key presses", session.blockedKeys)
            print(
                "\(formatter.string(from: session.startedAt))–\(end)\(place)  \(session.profiles.map(StoreCommandSupport.safe).joined(separator: ", "))  \(stories)  \(blocked)"
            )
        }
    }
}
