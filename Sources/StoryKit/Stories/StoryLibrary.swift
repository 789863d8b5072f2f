import Foundation

/// The stories found in one or more folders, and a problem for every file that could not be used.
///
/// One bad file never hides the others: each is parsed on its own and reported on its own.
/// Folders are read recursively (links followed, loops detected); `.md`, `.markdown` and `.txt`
/// files are stories, everything else (such as `.art` pictures) is left alone.
public struct StoryLibrary: Sendable {
    /// The stories, sorted by title (then id).
    public private(set) var entries: [StoryEntry]
    /// Errors (file not loaded) and warnings (loaded, something ignored), in path order.
    public private(set) var problems: [StoryProblem]

    public init(entries: [StoryEntry], problems: [StoryProblem]) {
        self.entries = entries
        self.problems = problems
    }

    /// Loads every story below `folders`. A path that is a story file is loaded as one story.
    ///
    /// - Parameters:
    ///   - folders: folders (or files) in priority order: when two stories have the same id, the
    ///     first one found wins and the other is reported.
    ///   - cache: where to keep parsed stories between runs (invalidated by file size and
    ///     modification time); `nil` parses everything each time.
    ///   - missingFoldersAreProblems: report folders that do not exist (true for folders the user
    ///     named; false for default folders that may not have been made yet).
    public static func load(folders: [String], cache: StoryCache? = nil, missingFoldersAreProblems: Bool = true) -> StoryLibrary {
        load(folders: folders, cache: cache, missingFoldersAreProblems: missingFoldersAreProblems, parallel: true)
    }

    /// `parallel: false` parses on the calling thread alone (the tests compare the two).
    static func load(folders: [String], cache: StoryCache?, missingFoldersAreProblems: Bool, parallel: Bool) -> StoryLibrary {
        var problems: [StoryProblem] = []
        var files: [FoundFile] = []
        var visited: Set<FileIdentity> = []
        for folder in folders {
            FolderWalker.collect(folder, reportMissing: missingFoldersAreProblems, files: &files, visited: &visited, problems: &problems)
        }
        let cached = cache?.read() ?? [:]
        let results = ParallelParser.parse(files, cached: cached, parallel: parallel)

        var entries: [StoryEntry] = []
        entries.reserveCapacity(files.count)
        var seenIDs: [String: String] = [:]
        seenIDs.reserveCapacity(files.count)
        // A file parsed again (new, or changed since the cache was written) means the cache is
        // out of date; so does a cached file no longer found (counted below).
        var parsedAgain = false
        var loaded = 0
        for (file, result) in zip(files, results) {
            switch result {
            case .success(let parsed):
                let record = parsed.record
                parsedAgain = parsedAgain || !parsed.fromCache
                loaded += 1
                problems.append(contentsOf: record.warnings)
                if let first = seenIDs[record.entry.id] {
                    problems.append(
                        StoryProblem(
                            .warning, .duplicateID, path: file.path,
                            N_("has the same id '{id}' as {other}: the library shows {other}, not this file; rename one of the files"),
                            ["id": record.entry.id, "other": first]))
                    continue
                }
                seenIDs[record.entry.id] = file.path
                entries.append(record.entry)
            case .failure(let problem):
                problems.append(problem)
            }
        }
        // The records to keep are gathered only when the cache is written: on a warm start, every
        // file came from the cache and as many were loaded as it holds. (A story file named twice
        // on the command line is counted twice; at worst the cache is written again, or keeps the
        // record of a removed file, which is used only if that very file comes back unchanged.)
        if let cache, parsedAgain || loaded != cached.count {
            var fresh: [String: StoryCache.Record] = [:]
            for (file, result) in zip(files, results) {
                if case .success(let parsed) = result { fresh[file.path] = parsed.record }
            }
            cache.write(fresh)
        }
        // Each title lowered once, not once a comparison (10,000 stories: 280,000 times).
        let keys = entries.map { $0.title.lowercased() }
        let order = entries.indices.sorted { (keys[$0], entries[$0].id) < (keys[$1], entries[$1].id) }
        return StoryLibrary(entries: order.map { entries[$0] }, problems: problems)
    }

    /// Reads the whole story of an entry (sentences, words, ranges).
    public func loadStory(_ entry: StoryEntry) throws(StoryProblem) -> Story {
        try StoryParser.parse(contentsOf: URL(fileURLWithPath: entry.path), path: entry.path).story
    }

    /// The entry with this id.
    public func entry(id: String) -> StoryEntry? { entries.first { $0.id == id } }

    // MARK: - Search and filters

    /// Stories whose title, author or summary contain every word of `words` (ignoring case and
    /// accents), for a child of `age`, with the interest `tag`. A story without ages suits every age.
    public func search(words: String? = nil, age: Int? = nil, tag: String? = nil) -> [StoryEntry] {
        let queryWords = (words ?? "").split(whereSeparator: { $0.isWhitespace || $0.isPunctuation }).map { Self.fold(String($0)) }
        let foldedTag = tag.map(Self.fold)
        return entries.filter { entry in
            if let age, let ages = entry.ages, !ages.contains(age) { return false }
            if let foldedTag, !entry.tags.contains(where: { Self.fold($0) == foldedTag }) { return false }
            if !queryWords.isEmpty {
                let haystack = Self.fold([entry.title, entry.author ?? "", entry.summary ?? ""].joined(separator: " "))
                return queryWords.allSatisfy { haystack.contains($0) }
            }
            return true
        }
    }

    /// Every tag used by the stories, sorted.
    public var tags: [String] { Array(Set(entries.flatMap(\.tags))).sorted() }

    /// How names are compared, the same on both sides: case, accents and width ignored; every
    /// kind of space (a no-break space in "Qui est là ?", a thin one) one plain space; curly
    /// quotes and apostrophes straight.
    static func fold(_ text: String) -> String {
        let folded = text.folding(options: [.caseInsensitive, .diacriticInsensitive, .widthInsensitive], locale: nil)
        var out = ""
        var lastWasSpace = false
        for scalar in folded.unicodeScalars {
            if scalar.properties.isWhitespace {
                if !lastWasSpace, !out.isEmpty { out.append(" ") }
                lastWasSpace = true
                continue
            }
            lastWasSpace = false
            switch scalar {
            case "\u{2018}", "\u{2019}", "\u{201A}", "\u{2032}", "\u{02BC}": out.append("'")
            case "\u{201C}", "\u{201D}", "\u{201E}", "\u{00AB}", "\u{00BB}": out.append("\"")
            default: out.unicodeScalars.append(scalar)
            }
        }
        return lastWasSpace && out.hasSuffix(" ") ? String(out.dropLast()) : out
    }

    /// The books the stories come from (imported collections), each named once, sorted.
    public var books: [String] {
        var seen = Set<String>()
        return entries.compactMap(\.book).filter { seen.insert(Self.fold($0)).inserted }.sorted()
    }

    /// Every story of the book named `name` (folded as titles are; a unique beginning is
    /// enough), in the book's order; the error says which books there are.
    public func stories(ofBook name: String) -> Result<[StoryEntry], StoryLookupError> {
        let wanted = Self.fold(name)
        var matching = books.filter { Self.fold($0) == wanted }
        if matching.isEmpty { matching = books.filter { Self.fold($0).hasPrefix(wanted) && !wanted.isEmpty } }
        guard matching.count == 1, let book = matching.first else {
            return .failure(.noSuchBook(name: name, books: matching.isEmpty ? books : matching))
        }
        let folded = Self.fold(book)
        let stories = entries.filter { $0.book.map(Self.fold) == folded }
            .sorted { ($0.part ?? Int.max, $0.title) < ($1.part ?? Int.max, $1.title) }
        return .success(stories)
    }

    // MARK: - Choosing a story by name

    /// Finds a story by id, title, or a unique prefix of either, or else a unique beginning of a
    /// later word of the title (ignoring case and accents).
    public func resolve(_ name: String) -> Result<StoryEntry, StoryLookupError> {
        let query = Self.fold(name.trimmedWhitespace())
        guard !query.isEmpty else { return .failure(.notFound(name: name, suggestions: [])) }
        if let byID = entries.first(where: { $0.id == query }) { return .success(byID) }
        // Two stories of the very same title ("Les Fées" by two authors) are not guessed between.
        let exact = entries.filter { Self.fold($0.title) == query }
        if exact.count == 1 { return .success(exact[0]) }
        if exact.count > 1 { return .failure(.ambiguous(name: name, matches: exact)) }
        // The rule completion and type-ahead use (`NameMatch`): a beginning of the title or id,
        // else a beginning of a later word ('lighthouse' for 'The Lighthouse Cat', 'comet' for 'the-comet').
        let kinds = entries.map { NameMatch.best(query, in: [$0.title, $0.id]) }
        let prefixed = entries.indices.filter { kinds[$0].map { $0 <= .beginning } ?? false }.map { entries[$0] }
        if prefixed.count == 1 { return .success(prefixed[0]) }
        if prefixed.count > 1 { return .failure(.ambiguous(name: name, matches: prefixed)) }
        let wordPrefixed = entries.indices.filter { kinds[$0] == .word }.map { entries[$0] }
        if wordPrefixed.count == 1 { return .success(wordPrefixed[0]) }
        if wordPrefixed.count > 1 { return .failure(.ambiguous(name: name, matches: wordPrefixed)) }
        let scored = entries.map { entry -> (StoryEntry, Int) in
            let distance = Swift.min(EditDistance.between(query, entry.id), EditDistance.between(query, Self.fold(entry.title)))
            let contains = Self.fold(entry.title).contains(query) || entry.id.contains(query)
            return (entry, contains ? 0 : distance)
        }
        let limit = Swift.max(3, query.count / 2)
        let suggestions = scored.filter { $0.1 <= limit }.sorted { ($0.1, $0.0.title) < ($1.1, $1.0.title) }.prefix(3).map(\.0)
        return .failure(.notFound(name: name, suggestions: Array(suggestions)))
    }
}

/// Why a story name did not pick one story.
public enum StoryLookupError: Error, Sendable, CustomStringConvertible {
    case notFound(name: String, suggestions: [StoryEntry])
    case ambiguous(name: String, matches: [StoryEntry])
    /// No book, or more than one, is called `name`; `books` are the ones it could be, else all.
    case noSuchBook(name: String, books: [String])

    public var description: String { localized(.english) }

    /// The message in the language of `messages` (titles and ids as they are).
    public func localized(_ messages: MessageCatalog) -> String {
        switch self {
        case .notFound(let name, let suggestions):
            if suggestions.isEmpty {
                return messages.tr("no story is called '{name}': see the stories with 'storyreader list'", ["name": Sanitizer.quote(name)])
            }
            return messages.tr(
                "no story is called '{name}'. Did you mean: {stories}?",
                [
                    "name": Sanitizer.quote(name), "stories": suggestions.map { "\($0.title) (\($0.id))" }.joined(separator: ", "),
                ])
        case .ambiguous(let name, let matches):
            // The author only tells apart stories of the same title.
            let titles = matches.map { StoryLibrary.fold($0.title) }
            var shown = matches.prefix(5).map { (match: StoryEntry) -> String in
                let twin = titles.filter { $0 == StoryLibrary.fold(match.title) }.count > 1
                var text: String = match.title
                if twin, let author = match.author { text = messages.tr("{title} by {author}", ["title": text, "author": author]) }
                return text + " (" + match.id + ")"
            }.joined(separator: ", ")
            if matches.count > 5 { shown = messages.trn("{list} and {count} more", "{list} and {count} more", matches.count - 5, ["list": shown]) }
            return messages.tr(
                "'{name}' matches {count} stories: {stories}. Type more of the name or use the id",
                [
                    "name": Sanitizer.quote(name), "count": String(matches.count), "stories": shown,
                ])
        case .noSuchBook(let name, let books):
            if books.isEmpty {
                return messages.tr(
                    "no book is called '{name}': no story comes from a book yet (import one with 'storyreader import BOOK.epub')",
                    ["name": Sanitizer.quote(name)])
            }
            var shown = books.prefix(5).map { "‘\($0)’" }.joined(separator: ", ")
            if books.count > 5 { shown = messages.trn("{list} and {count} more", "{list} and {count} more", books.count - 5, ["list": shown]) }
            return messages.tr("no one book is called '{name}': the books are {books}", ["name": Sanitizer.quote(name), "books": shown])
        }
    }
}

/// Levenshtein distance, for "did you mean" suggestions.
public enum EditDistance {
    public static func between(_ a: String, _ b: String) -> Int {
        let a = Array(a.prefix(64))
        let b = Array(b.prefix(64))
        if a.isEmpty { return b.count }
        if b.isEmpty { return a.count }
        var previous = Array(0...b.count)
        var current = [Int](repeating: 0, count: b.count + 1)
        for i in 1...a.count {
            current[0] = i
            for j in 1...b.count {
                current[j] = Swift.min(previous[j] + 1, current[j - 1] + 1, previous[j - 1] + (a[i - 1] == b[j - 1] ? 0 : 1))
            }
            swap(&previous, &current)
        }
        return previous[b.count]
    }
}
