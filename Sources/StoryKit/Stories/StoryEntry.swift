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
    /// The book the story belongs to and its place in it (see `Story.book`).
    public var book: String?
    public var part: Int?
    /// The file, as found under the folder given to the library.
    public var path: String
    /// Words in headings and paragraphs.
    public var words: Int
    public var pages: Int
    public var paragraphs: Int
    public var pictures: Int
    /// The first sentence (an index into `Story.sentences`) of each page: the page of a saved
    /// place is told without reading the story's file again.
    public var pageStarts: [Int]
    /// Sentences in the story (a one-page story's place is told by sentence).
    public var sentences: Int
    /// Each picture's description, in order (the story card lists them).
    public var pictureDescriptions: [String]
    /// The story's clip list (`recording:`), when it has a recorded narration.
    public var recording: String?

    public init(story: Story) {
        id = story.id
        title = story.title
        author = story.author
        ages = story.ages
        tags = story.tags
        language = story.language
        summary = story.summary
        book = story.book
        part = story.part
        path = story.path
        words = story.wordCount
        pages = story.pages.count
        paragraphs = story.paragraphs.count
        pictures = story.pictures.count
        var starts: [Int] = []
        var sentence = 0
        for page in story.pages {
            starts.append(sentence)
            sentence += page.blocks.reduce(0) { $0 + $1.sentences.count }
        }
        pageStarts = starts
        sentences = sentence
        pictureDescriptions = story.pictures.map(\.text)
        recording = story.recording
    }

    /// The page (0-based) holding story sentence `sentence`.
    public func page(ofSentence sentence: Int) -> Int {
        max(0, (pageStarts.lastIndex { $0 <= sentence } ?? 0))
    }

}
