import ArgumentParser
import Foundation
import StoryKit
import StoryReader

/// `storyreader-bench log …` (`storyreader bench log …`): hidden maintenance commands for the
/// reading log, used by the reliability tests (two processes recording at once, a process killed
/// while writing). Not for children or parents: not in the program they run; not shown in help.
struct LogCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "log",
        abstract: helpMessages.tr("Maintenance: write to the reading log directly (for tests)."),
        shouldDisplay: false,
        subcommands: [RecordRead.self, Favourite.self]
    )

    struct RecordRead: ParsableCommand {
        static let configuration = CommandConfiguration(
            commandName: "record-read",
            abstract: helpMessages.tr("Record finished reads, one transaction each."))
        @OptionGroup var global: GlobalOptions
        @Option(help: ArgumentHelp(helpMessages.tr("The profile's name.")), completion: ShellCompletion.profiles) var profile: String
        @Option(help: ArgumentHelp(helpMessages.tr("The story id.")), completion: ShellCompletion.stories) var story: String
        @Option(help: ArgumentHelp(helpMessages.tr("How many reads to record."))) var count: Int = 1
        @Flag(help: ArgumentHelp(helpMessages.tr("Print the running total after each committed read."))) var progress = false

        func validate() throws {
            if count < 1 { throw ValidationError(helpMessages.tr("--count must be 1 or more")) }
        }

        func run() throws {
            let store = try StoreCommandSupport.openStore(global)
            do {
                let id = try store.requireProfile(named: profile).id ?? 0
                var total = 0
                for _ in 0..<count {
                    total = try store.recordFinishedRead(profileID: id, storyID: story)
                    // Unbuffered: a test that kills this process knows every read reported was committed.
                    if progress { FileHandle.standardOutput.write(Data("committed \(total)\n".utf8)) }
                }
                if !progress { print("\(story): \(total) reads") }
            } catch {
                throw StoreCommandSupport.fail(error, global.messages)
            }
        }
    }

    struct Favourite: ParsableCommand {
        static let configuration = CommandConfiguration(abstract: helpMessages.tr("Toggle a story as a favourite of a profile."))
        @OptionGroup var global: GlobalOptions
        @Option(help: ArgumentHelp(helpMessages.tr("The profile's name.")), completion: ShellCompletion.profiles) var profile: String
        @Option(help: ArgumentHelp(helpMessages.tr("The story id.")), completion: ShellCompletion.stories) var story: String

        func run() throws {
            let store = try StoreCommandSupport.openStore(global)
            do {
                let id = try store.requireProfile(named: profile).id ?? 0
                let isFavourite = try store.toggleFavourite(profileID: id, storyID: story)
                print("\(story): \(isFavourite ? "a favourite" : "not a favourite")")
            } catch {
                throw StoreCommandSupport.fail(error, global.messages)
            }
        }
    }
}
