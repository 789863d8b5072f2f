import Foundation
import StoryKit
import StoryKitTestSupport
import Testing

/// The import rules, in StoryKit since the program is lean: what is copied, what is refused and
/// why, what a dry run writes (nothing), and a folder that cannot be written, as a failure that
/// names the file and the folder.
@Suite struct StoryImporterTests {
    static let story = "---\ntitle: The Owl\nages: 4-7\n---\n\nThe owl said hoo. Then she slept.\n"

    /// An importer into `destination` with an empty library, its problems kept off standard error.
    static func importer(_ destination: URL, dryRun: Bool = false) -> StoryImporter {
        var importer = StoryImporter(destination: destination, existing: StoryLibrary.load(folders: []), replace: false, dryRun: dryRun, split: nil)
        importer.reportsProblems = false
        return importer
    }

    @Test func aStoryFileIsCheckedAndCopiedAndASecondWithItsIdIsRefused() throws {
        let folder = try TemporaryFolder("importer")
        defer { folder.remove() }
        let source = try folder.write("mine/owl.md", Self.story)
        let destination = folder.url.appendingPathComponent("stories")
        var importer = Self.importer(destination)
        try importer.importFile(source.path)
        #expect(importer.results.map(\.status) == [.imported])
        #expect(importer.results.first?.title == "The Owl")
        #expect(try String(contentsOf: destination.appendingPathComponent("owl.md"), encoding: .utf8) == Self.story)

        // Again, without --replace: refused, the file kept as it was, and the reason given.
        try importer.importFile(source.path)
        #expect(importer.results.map(\.status) == [.imported, .refused])
        let message = try #require(importer.results.last?.message)
        #expect(message.contains("already exists") && message.contains("--replace"), "\(message)")
    }

    @Test func aDryRunWritesNothingAndSaysWhatItWouldDo() throws {
        let folder = try TemporaryFolder("importer-dry")
        defer { folder.remove() }
        let source = try folder.write("owl.md", Self.story)
        let destination = folder.url.appendingPathComponent("stories")
        var importer = Self.importer(destination, dryRun: true)
        try importer.importFile(source.path)
        try importer.importFile(folder.url.appendingPathComponent("story.pdf").path)
        #expect(importer.results.map(\.status) == [.wouldImport, .refused])
        #expect(!FileManager.default.fileExists(atPath: destination.path))
        let lines = ImportResult.summary(importer.results, dryRun: true, destination: destination.path)
        #expect(lines.first == "Would import “The Owl” (owl), en, 7 words", "\(lines)")
    }

    @Test func aFolderThatCannotBeWrittenIsAFailureNamingTheFileAndTheFolder() throws {
        let folder = try TemporaryFolder("importer-blocked")
        defer { folder.remove() }
        let source = try folder.write("owl.md", Self.story)
        // A file where the stories folder should be: no folder can be made there (even as root).
        let blocker = try folder.write("data", "not a folder")
        let destination = blocker.appendingPathComponent("stories")
        var importer = Self.importer(destination)
        let failure = try #require(throws: ImportFailure.self) { try importer.importFile(source.path) }
        #expect(failure.message.hasPrefix("could not copy \(source.path) into \(destination.path): "), "\(failure.message)")
        #expect(importer.results.isEmpty)
    }
}
