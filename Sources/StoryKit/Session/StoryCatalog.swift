/// The stories the session offers, and a way to read a whole one.
public struct StoryCatalog: Sendable {
    public var entries: [StoryEntry]
    private let load: @Sendable (StoryEntry) -> Story?

    public init(entries: [StoryEntry], load: @escaping @Sendable (StoryEntry) -> Story?) {
        self.entries = entries
        self.load = load
    }

    /// A catalog over a loaded library.
    public init(library: StoryLibrary) {
        self.init(entries: library.entries) { entry in try? library.loadStory(entry) }
    }

    /// A catalog of stories already in memory (tests).
    public init(stories: [Story]) {
        let byID = Dictionary(stories.map { ($0.id, $0) }, uniquingKeysWith: { first, _ in first })
        self.init(entries: stories.map(StoryEntry.init(story:)).sorted { $0.title < $1.title }) { byID[$0.id] }
    }

    public func entry(id: String) -> StoryEntry? { entries.first { $0.id == id } }
    public func story(id: String) -> Story? { entry(id: id).flatMap(load) }

    /// Resolves a typed name like the command line does.
    public func resolve(_ name: String) -> Result<StoryEntry, StoryLookupError> {
        StoryLibrary(entries: entries, problems: []).resolve(name)
    }

    /// The interests the stories offer.
    public var tags: [String] { Array(Set(entries.flatMap(\.tags))).sorted() }
}
