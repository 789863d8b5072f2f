/// What the library knows of a story without holding its whole text: enough to list, search,
/// filter and choose it. `StoryLibrary.loadStory(_:)` reads the whole story when it is opened.
public struct StoryEntry: Sendable, Hashable, Codable, Identifiable {
    public var id: String
    public var title: String
    public var author: String?
    public var ages: AgeRange?
    public var tags: [String]
    public var language: String
    public var summary: String?
    /// The file, as found under the folder given to the library.
    public var path: String
    /// Words in headings and paragraphs.
    public var words: Int
    public var pages: Int
    public var paragraphs: Int
    public var pictures: Int

    public init(story: Story) {
        id = story.id
        title = story.title
        author = story.author
        ages = story.ages
        tags = story.tags
        language = story.language
        summary = story.summary
        path = story.path
        words = story.wordCount
        pages = story.pages.count
        paragraphs = story.paragraphs.count
        pictures = story.pictures.count
    }
}
