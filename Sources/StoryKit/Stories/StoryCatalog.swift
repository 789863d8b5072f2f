/// The stories the session offers (their entries), and those already read in from their files.
///
/// The Session reads no file: a story it needs and does not hold is asked for with
/// `Effect.loadStory`; the shell reads it off the loop and hands it back with `Input.storyLoaded`
/// (see `Session.handle`). A catalog made from a whole library (`init(library:)`) reads every story
/// at once instead, before any loop starts: tests, benchmarks and one-shot commands.
public struct StoryCatalog: Sendable {
    public var entries: [StoryEntry]
    /// Stories read in, by id.
    private var stories: [String: Story]
    /// Stories whose file could not be read when asked for (said "could not be opened").
    private var unreadable: Set<String> = []
    /// The library is being read off the loop (`Input.libraryLoaded` brings its entries): the
    /// first screen is drawn meanwhile, and what needs the stories waits.
    public private(set) var isLoading = false

    /// No entries yet: the library is being read (an interactive start, drawn at once).
    public static var loading: StoryCatalog {
        var catalog = StoryCatalog(entries: [])
        catalog.isLoading = true
        return catalog
    }

    /// The library's entries, read off the loop.
    mutating func arrived(_ entries: [StoryEntry]) {
        self.entries = entries
        isLoading = false
    }

    /// The entries only: each story is read when the Session first needs it.
    public init(entries: [StoryEntry], stories: [Story] = []) {
        self.entries = entries
        self.stories = Dictionary(stories.map { ($0.id, $0) }, uniquingKeysWith: { first, _ in first })
    }

    /// Every story of `library`, read now.
    public init(library: StoryLibrary) {
        self.init(entries: library.entries, stories: library.entries.compactMap { try? library.loadStory($0) })
    }

    /// A catalog of stories already in memory (tests).
    public init(stories: [Story]) {
        self.init(entries: stories.map(StoryEntry.init(story:)).sorted { $0.title < $1.title }, stories: stories)
    }

    public func entry(id: String) -> StoryEntry? { entries.first { $0.id == id } }

    /// The story `id` if it is held (read in): the Session never reads one itself.
    public func story(id: String) -> Story? { stories[id] }

    /// Whether `id` is an entry whose story must still be read in (not held, not known unreadable).
    func needsLoading(_ id: String) -> Bool {
        stories[id] == nil && !unreadable.contains(id) && entry(id: id) != nil
    }

    /// Keeps a story read in by the shell (nil: its file could not be read).
    mutating func hold(_ story: Story?, id: String) {
        if let story { stories[id] = story } else { unreadable.insert(id) }
    }

    /// The stories held (the shell loads what they need before the loop: syllable patterns).
    public var heldStories: [Story] { Array(stories.values) }

    /// Resolves a typed name like the command line does.
    public func resolve(_ name: String) -> Result<StoryEntry, StoryLookupError> {
        StoryLibrary(entries: entries, problems: []).resolve(name)
    }

    /// The interests the stories offer.
    public var tags: [String] { Array(Set(entries.flatMap(\.tags))).sorted() }
}
