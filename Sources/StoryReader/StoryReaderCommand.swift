import ArgumentParser
import StoryKit

@main
struct StoryReaderCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "storyreader",
        abstract: "Reads children's stories aloud.",
        version: StoryKitInfo.version
    )
    func run() throws {}
}
