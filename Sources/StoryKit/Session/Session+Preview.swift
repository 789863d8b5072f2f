/// The REPL's own screens in a sample state, for `storyreader preview` and layout snapshots: what
/// a child would see, without running a session.
public enum SessionPreview {
    public enum Kind: String, Sendable, CaseIterable {
        case library, story, reader, help
    }

    /// The screen and where focus would be.
    ///
    /// - Parameters:
    ///   - kind: which screen.
    ///   - catalog: the stories.
    ///   - story: the story (story and reader screens); the first one when nil.
    ///   - page: the reader's page, 0-based.
    ///   - word: the word being heard on that page, 0-based; the page's middle word when nil.
    ///   - language: the interface's language (from `languages`; English without a catalog).
    public static func screen(
        _ kind: Kind, catalog: StoryCatalog, story: Story? = nil, page: Int = 0, word: Int? = nil,
        columns: Int = 80, rows: Int = 24, language: String = "en",
        languages: InterfaceLanguages = .englishOnly
    ) -> (screen: Screen, focus: String?) {
        var options = SessionOptions(columns: columns, rows: rows)
        options.interfaceLanguage = language
        var session = Session(
            catalog: catalog, snapshot: sampleSnapshot(catalog), options: options,
            profile: sampleProfile.name, languages: languages)
        let chosen = story ?? catalog.entries.first.flatMap { catalog.story(id: $0.id) }
        switch kind {
        case .library:
            session.state.stack = [.library]
        case .help:
            session.state.stack = [.library, .help]
        case .story:
            if let chosen { session.state.stack = [.library, .story(chosen.id)] }
        case .reader:
            if let chosen {
                session.state.stack = [.library, .story(chosen.id), .reader]
                session.state.reader = ReaderState(story: chosen, wordIndex: wordIndex(in: chosen, page: page, word: word), status: .playing)
            }
        }
        let screen = session.screen
        let focus = session.state.focusedID ?? FocusEngine(screen: screen).firstMeaningful?.id
        return (screen, focus)
    }

    /// The index in `story.words` of word `word` among the heading and paragraph words of page
    /// `page` (pictures' descriptions are spoken too, so they count in `story.words`).
    static func wordIndex(in story: Story, page: Int, word: Int?) -> Int {
        var index = 0
        var candidates: [Int] = []
        let chosenPage = min(max(page, 0), story.pages.count - 1)
        for (pageIndex, storyPage) in story.pages.enumerated() {
            for block in storyPage.blocks {
                let count = block.sentences.reduce(0) { $0 + $1.words.count }
                var isPicture = false
                if case .picture = block.kind { isPicture = true }
                if pageIndex == chosenPage, !isPicture { candidates += Array(index..<(index + count)) }
                index += count
            }
        }
        guard !candidates.isEmpty else { return 0 }
        return candidates[min(word ?? candidates.count / 2, candidates.count - 1)]
    }

    static let sampleProfile = ChildProfile(id: 1, name: "Reader", age: 6, interests: ["animals", "space"])

    /// Some progress, so that the states show: the first story read once and a favourite, the
    /// second read three times, the third started.
    static func sampleSnapshot(_ catalog: StoryCatalog) -> SessionSnapshot {
        var readings: [String: ReadingRecord] = [:]
        // Stories the sample child (age 6) sees, in the library's order.
        let ids = catalog.entries.filter { $0.ages?.contains(sampleProfile.age) ?? true }.map(\.id)
        if ids.count > 0 { readings[ids[0]] = ReadingRecord(readCount: 1, isFavourite: true) }
        if ids.count > 1 { readings[ids[1]] = ReadingRecord(readCount: 3) }
        if ids.count > 2 { readings[ids[2]] = ReadingRecord(readCount: 0, sentenceIndex: 2) }
        return SessionSnapshot(profiles: [sampleProfile], readings: [sampleProfile.name: readings])
    }
}
