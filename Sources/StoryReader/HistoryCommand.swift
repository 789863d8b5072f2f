import ArgumentParser
import Foundation
import StoryKit

/// `storyreader history [--profile NAME] [--json]`: the finished reads, newest first.
struct HistoryCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "history",
        abstract: "Show the finished reads, newest first.")
    @OptionGroup var global: GlobalOptions
    @Option(help: "Only this child's reads.") var profile: String?
    @Option(help: "At most this many reads.") var limit: Int?
    @Flag(help: "Print JSON.") var json = false

    struct Entry: Encodable {
        var profile: String
        /// The story id.
        var story: String
        /// The story's title, when the story is still in the library.
        var title: String?
        var finishedAt: Date
    }

    func validate() throws {
        if let limit, limit < 1 { throw ValidationError("--limit must be 1 or more") }
    }

    func run() throws {
        let store = try StoreCommandSupport.openStore(global)
        do {
            let profileID = try profile.map { try store.requireProfile(named: $0).id ?? 0 }
            let records = try store.history(profileID: profileID, limit: limit)
            var titles: [String: String] = [:]
            if !records.isEmpty {
                for entry in global.loadLibrary(reportProblems: false).entries { titles[entry.id] = entry.title }
            }
            let entries = records.map {
                Entry(profile: StoreCommandSupport.safe($0.profileName), story: StoreCommandSupport.safe($0.storyID),
                      title: titles[$0.storyID].map(StoreCommandSupport.safe), finishedAt: $0.finishedAt)
            }
            if json { return try StoreCommandSupport.printJSON(entries) }
            if entries.isEmpty {
                print(profile == nil ? "No story has been finished yet." : "\(StoreCommandSupport.safe(profile ?? "")) has not finished a story yet.")
                return
            }
            let formatter = DateFormatter()
            formatter.locale = Locale(identifier: "en_US_POSIX")
            formatter.dateFormat = "yyyy-MM-dd HH:mm"
            for entry in entries {
                print("\(formatter.string(from: entry.finishedAt))  \(entry.profile)  \(entry.title ?? entry.story)")
            }
        } catch let error as StoreError {
            throw StoreCommandSupport.fail(error.description)
        }
    }
}
