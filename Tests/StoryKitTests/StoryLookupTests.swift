import Testing

@testable import StoryKit

/// Finding a story by what a person types: the shown title, the title in the file, a beginning.
@Suite struct StoryLookupTests {
    func entry(_ id: String, _ title: String, author: String? = nil) throws -> StoryEntry {
        let header = "---\ntitle: \(title)\n" + (author.map { "author: \($0)\n" } ?? "") + "---\n\nOnce upon a time.\n"
        var story = try StoryParser.parse(text: header, path: "\(id).md").story
        story.id = id
        return StoryEntry(story: story)
    }

    @Test func twoStoriesOfTheSameTitleAreAmbiguousWithAuthorAndID() throws {
        let library = StoryLibrary(
            entries: [
                try entry("les-fees-perrault", "Les Fées", author: "Charles Perrault"),
                try entry("les-fees-aulnoy", "Les Fées", author: "Madame d'Aulnoy"),
            ], problems: [])
        guard case .failure(let error) = library.resolve("Les Fées") else {
            Issue.record("one of two stories of the same title was picked")
            return
        }
        #expect(error.description.contains("Les Fées by Charles Perrault (les-fees-perrault)"))
        #expect(error.description.contains("Les Fées by Madame d'Aulnoy (les-fees-aulnoy)"))
        #expect(try library.resolve("les-fees-aulnoy").get().id == "les-fees-aulnoy", "the id still picks one")
    }

    @Test(arguments: ["The Tale of Mr.\u{00A0}Tod", "The Tale of Mr. Tod", "the tale of mr.  tod", "THE TALE OF MR.\u{202F}TOD"])
    func noBreakSpacesAreSpacesOnBothSides(typed: String) throws {
        let library = StoryLibrary(entries: [try entry("mr-tod", "The Tale of Mr.\u{00A0}Tod"), try entry("other", "The Tale of Two Bad Mice")], problems: [])
        #expect(try library.resolve(typed).get().id == "mr-tod")
    }

    @Test(arguments: ["Qui est là ?", "Qui est la\u{00A0}?", "It’s Time", "It's Time", "“Hello”", "\"Hello\""])
    func quotesAndApostrophesFoldTheSameWay(typed: String) throws {
        let library = StoryLibrary(
            entries: [
                try entry("qui", "Qui est là\u{00A0}?"), try entry("time", "It's Time"),
                try entry("hello", "\u{201C}Hello\u{201D}"),
            ], problems: [])
        #expect((try? library.resolve(typed).get()) != nil, "\(typed)")
    }
}
