public import Foundation
import StoryKit

/// A library of hundreds, as a family has once Aesop's Fables are imported: the 284 fables of the
/// real EPUB (`Tests/Fixtures/books/aesop-fables.epub`) written as story files in `folder`, beside
/// the repository's own stories.
public enum FableLibrary {
    /// Writes the fables into `folder` (one Markdown story each, as `import` writes them).
    public static func write(into folder: URL) throws {
        let book = try EPUBBook(url: TestPaths.books.appendingPathComponent("aesop-fables.epub"))
        try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
        for story in book.stories(bookID: "fables") {
            try story.markdown.write(to: folder.appendingPathComponent(story.id + ".md"), atomically: true, encoding: .utf8)
        }
    }

    /// The story folders of the whole library: the repository's stories, then the fables.
    public static func folders(_ fables: URL) -> [String] { [TestPaths.stories.path, fables.path] }
}
