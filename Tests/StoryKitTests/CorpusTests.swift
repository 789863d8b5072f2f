import Foundation
import StoryKitTestSupport
import Testing

@testable import StoryKit

/// The 58 public-domain stories of `Tests/Fixtures/corpus`: each loads, and its title, language and
/// paragraph count are what the file itself says (read here, without the parser).
@Suite struct CorpusTests {
    static let expectedCount = 58

    /// What a corpus file says about itself: its header, then paragraphs separated by blank lines.
    struct Expectation {
        var title: String?
        var language: String?
        var paragraphs: Int

        init(_ text: String) {
            let lines = text.components(separatedBy: "\n")
            var index = 0
            while index < lines.count, !lines[index].trimmingCharacters(in: .whitespaces).isEmpty {
                let line = lines[index]
                if line.hasPrefix("Title: ") { title = String(line.dropFirst("Title: ".count)) }
                if line.hasPrefix("Language: ") { language = String(line.dropFirst("Language: ".count)) }
                index += 1
            }
            var count = 0
            var inParagraph = false
            for line in lines[index...] {
                let blank = line.trimmingCharacters(in: .whitespaces).isEmpty
                if !blank, !inParagraph { count += 1 }
                inParagraph = !blank
            }
            paragraphs = count
        }
    }

    @Test func allStoriesLoadWithoutErrors() throws {
        #expect(TestPaths.corpusFiles.count == Self.expectedCount)
        let library = StoryLibrary.load(folders: [TestPaths.corpus.path])
        #expect(library.entries.count == Self.expectedCount)
        #expect(library.problems.filter(\.isError) == [])
        #expect(library.problems == [], "warnings: \(library.problems.map(\.description))")
        #expect(Set(library.entries.map(\.language)) == ["en", "fr", "de", "es"])
    }

    @Test(arguments: TestPaths.corpusFiles)
    func storyMatchesItsFile(_ file: URL) throws {
        let text = try String(contentsOf: file, encoding: .utf8)
        let expected = Expectation(text)
        let parsed = try StoryParser.parse(contentsOf: file, path: file.path)
        let story = parsed.story
        #expect(story.title == expected.title)
        #expect(story.language == expected.language)
        #expect(story.paragraphs.count == expected.paragraphs)
        #expect(story.blocks.count == expected.paragraphs)
        #expect(story.id == StoryParser.storyID(forPath: file.lastPathComponent))
        #expect(StoryChecks.violations(in: story) == [])
        #expect(parsed.warnings == [])
    }

    /// The parameterised test above has no cases when the corpus is gone: this one fails then.
    @Test func theCorpusIsThere() {
        #expect(TestPaths.corpusFiles.count == Self.expectedCount, "\(TestPaths.corpusFiles.count) corpus files")
    }
}
