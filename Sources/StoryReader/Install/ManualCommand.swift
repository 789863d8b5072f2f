import ArgumentParser
import Foundation
import StoryKit

/// `storyreader generate-manual`: the manual page, for `make install` (hidden from --help).
struct ManualCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "generate-manual",
        abstract: helpMessages.tr("Print the manual page storyreader.1 (roff), made from the command definitions."),
        shouldDisplay: false
    )

    func run() throws {
        print(ManualPage.render(CommandInfo.root()), terminator: "")
    }
}
