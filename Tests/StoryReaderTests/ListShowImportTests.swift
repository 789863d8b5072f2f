import Foundation
import StoryKitTestSupport
import Testing

/// `storyreader list`, `show` and `import`, run as a user runs them: the built binary, no TTY.
///
/// Golden files live in `Tests/StoryReaderTests/Golden/`. The repository's path is written there
/// as `<repo>`. To rewrite them after a deliberate change, run
///
///     UPDATE_SNAPSHOTS=1 swift test --filter ListShowImportTests
///
/// and review the difference with `git diff` before committing: never update goldens blindly.
@Suite(.serialized) struct ListShowImportTests {
    static let goldenFolder = TestPaths.repository.appendingPathComponent("Tests/StoryReaderTests/Golden")

    /// `text` with the repository's path (as written and with links resolved) replaced by `<repo>`.
    static func normalised(_ text: String) -> String {
        var result = text
        let paths = [TestPaths.repository.resolvingSymlinksInPath().path, TestPaths.repository.path]
        for path in Set(paths).sorted(by: { $0.count > $1.count }) {
            result = result.replacingOccurrences(of: path, with: "<repo>")
        }
        return result
    }

    /// Compares `output`, with the repository's path as `<repo>`, with the golden file `name`.
    static func expectGolden(_ output: String, _ name: String, sourceLocation: SourceLocation = #_sourceLocation) throws {
        Snapshot.assertMatches(normalised(output), named: name, in: goldenFolder, sourceLocation: sourceLocation)
    }

    func run(_ arguments: [String], dataDirectory: String? = nil) throws -> ProcessResult {
        try StoryReaderProcess.run(arguments, dataDirectory: dataDirectory)
    }

    // MARK: - Golden output

    @Test func listGolden() throws {
        let result = try run(["list"])
        #expect(result.status == 0)
        #expect(result.standardError == "")
        #expect(result.standardOutput.split(separator: "\n").count == 12)
        // One story a line, seven tab-separated fields.
        #expect(result.standardOutput.split(separator: "\n").allSatisfy { $0.split(separator: "\t", omittingEmptySubsequences: false).count == 7 })
        try Self.expectGolden(result.standardOutput, "list.txt")
    }

    @Test func listJSONGolden() throws {
        let result = try run(["list", "--json"])
        #expect(result.status == 0)
        #expect(result.standardError == "")
        let stories = try #require(try JSONSerialization.jsonObject(with: Data(result.standardOutput.utf8)) as? [[String: Any]])
        #expect(stories.count == 12)
        for story in stories {
            for key in ["id", "title", "author", "language", "ages", "tags", "words"] {
                #expect(story[key] != nil, "\(story["id"] ?? "?") has no \(key)")
            }
        }
        try Self.expectGolden(result.standardOutput, "list.json")
    }

    @Test func showGolden() throws {
        let result = try run(["show", "the-lighthouse-cat"])
        #expect(result.status == 0)
        #expect(result.standardError == "")
        #expect(result.standardOutput.hasPrefix("The Lighthouse Cat\n"))
        try Self.expectGolden(result.standardOutput, "show-the-lighthouse-cat.txt")
    }

    @Test func showTextGolden() throws {
        let result = try run(["show", "pip", "--text"])
        #expect(result.status == 0)
        #expect(result.standardError == "")
        #expect(result.standardOutput.hasPrefix("The rain stopped."))
        #expect(!result.standardOutput.contains("!["))
        #expect(!result.standardOutput.contains("*SPLOOSH!*"))
        try Self.expectGolden(result.standardOutput, "show-pip-text.txt")
    }

    // MARK: - Corpus

    @Test func listTheCorpusAsJSON() throws {
        // Relative to the repository (where the program runs), as a person types it.
        let result = try run(["list", "--stories", "Tests/Fixtures/corpus", "--json"])
        #expect(result.status == 0)
        #expect(result.standardError == "")
        let stories = try #require(try JSONSerialization.jsonObject(with: Data(result.standardOutput.utf8)) as? [[String: Any]])
        #expect(stories.count == 58)
        // Each title and language as the file's header gives them.
        var expected: [String: (String, String)] = [:]
        for file in TestPaths.corpusFiles {
            let header = try String(contentsOf: file, encoding: .utf8).components(separatedBy: "\n").prefix(6)
            let title = header.first { $0.hasPrefix("Title: ") }.map { String($0.dropFirst(7)) } ?? ""
            let language = header.first { $0.hasPrefix("Language: ") }.map { String($0.dropFirst(10)) } ?? ""
            expected[file.deletingPathExtension().lastPathComponent] = (title, language)
        }
        for story in stories {
            let id = story["id"] as? String ?? ""
            let wanted = try #require(expected[id], "unexpected story \(id)")
            #expect(story["title"] as? String == wanted.0)
            #expect(story["language"] as? String == wanted.1)
        }
    }

    // MARK: - Bad files

    @Test func aFolderOfGoodAndBrokenFilesListsTheGoodOnesAndExplainsTheOthers() throws {
        let folder = try TemporaryFolder("e2e-mixed")
        defer { folder.remove() }
        try folder.write("good.md", "---\ntitle: A Good Story\nages: 4-6\n---\n\nOnce.\n")
        try folder.write("good-too.txt", "Title: Another Good One\n\nTwice.\n")
        try folder.write("empty.md", "")
        try folder.write("no-title.md", "---\nauthor: Nobody\n---\n\nText.\n")
        try folder.write("backwards.md", "---\ntitle: T\nages: 7-4\n---\n\nText.\n")
        try folder.write("binary.txt", Data([0, 1, 2, 3, 0xFF]))
        try FileManager.default.createSymbolicLink(atPath: folder.path + "/loop.md", withDestinationPath: "loop.md")
        let result = try run(["list", "--stories", folder.path])
        #expect(result.status == 0)
        #expect(result.standardOutput == "good\tA Good Story\t\ten\t4-6\t1\t\ngood-too\tAnother Good One\t\ten\t\t1\t\n")
        let errors = result.standardError.split(separator: "\n").map(String.init)
        #expect(
            errors == [
                "storyreader: \(folder.path)/loop.md: warning: is a link that leads back to itself: skipped",
                "storyreader: \(folder.path)/backwards.md, line 3: ages '7-4' goes backwards: write the younger age first, like 4-7",
                "storyreader: \(folder.path)/binary.txt: is not a text file (it contains binary data): a story is a .md or .txt text file",
                "storyreader: \(folder.path)/empty.md: is empty: write a story in it (see docs/story-format.md) or remove it",
                "storyreader: \(folder.path)/no-title.md, line 1: a story needs a title: add a 'title:' line to the front matter",
            ])
    }

    @Test func aFolderWithNoGoodStoryExitsOne() throws {
        let folder = try TemporaryFolder("e2e-bad")
        defer { folder.remove() }
        try folder.write("empty.md", "")
        let result = try run(["list", "--stories", folder.path])
        #expect(result.status == 1)
        #expect(result.standardOutput == "")
        #expect(result.standardError.contains("\(folder.path)/empty.md: is empty"))
        #expect(result.standardError.contains("no stories were found"))
    }

    // MARK: - show

    @Test func showUnknownSuggests() throws {
        let result = try run(["show", "the lighthose cat"])
        #expect(result.status == 1)
        #expect(result.standardOutput == "")
        #expect(result.standardError.hasPrefix("storyreader: no story is called 'the lighthose cat'. Did you mean: The Lighthouse Cat (the-lighthouse-cat)"))
    }

    @Test func showAmbiguousListsMatches() throws {
        let result = try run(["show", "the"])
        #expect(result.status == 1)
        #expect(result.standardOutput == "")
        #expect(result.standardError.hasPrefix("storyreader: 'the' matches "))
        #expect(result.standardError.contains("The Lighthouse Cat (the-lighthouse-cat)"))
        #expect(result.standardError.contains("Type more of the name or use the id"))
    }

    @Test func showAcceptsAWordOfTheTitle() throws {
        let result = try run(["show", "lighthouse", "--json"])
        #expect(result.status == 0)
        let details = try #require(try JSONSerialization.jsonObject(with: Data(result.standardOutput.utf8)) as? [String: Any])
        #expect(details["id"] as? String == "the-lighthouse-cat")
        #expect((details["pages"] as? [Any])?.isEmpty == false)
    }

    // MARK: - Invocation errors

    @Test(arguments: [["list", "--age", "99"], ["list", "--age=-1"]])
    func ageOutOfRangeIsABadInvocation(_ arguments: [String]) throws {
        let result = try run(arguments)
        #expect(result.status == 2)
        #expect(result.standardOutput == "")
        #expect(result.standardError.contains("is out of range: use an age from 0 to 18"))
    }

    @Test func anUnknownOptionIsABadInvocation() throws {
        let result = try run(["list", "--colour"])
        #expect(result.status == 2)
        #expect(result.standardError.contains("--colour"))
    }

    // MARK: - import

    @Test func importGoodAndBadFiles() throws {
        let source = try TemporaryFolder("e2e-import-source")
        let data = try TemporaryFolder("e2e-import-data")
        defer {
            source.remove()
            data.remove()
        }
        try source.write("pictures/owl.art", "(o,o)\n")
        let good = try source.write("the-owl.md", "---\ntitle: The Owl Who Hooted\nages: 3-6\n---\n\nHoo.\n\n![A round owl on a branch.](pictures/owl.art)\n")
        let bad = try source.write("bad.md", "---\ntitle: Bad\nages: abc\n---\n\nText.\n")
        let result = try run(["import", good.path, bad.path], dataDirectory: data.path)
        #expect(result.status == 1)
        let stories = data.url.appendingPathComponent("stories")
        #expect(result.standardOutput == "Imported “The Owl Who Hooted” (the-owl) into \(stories.path)\n")
        #expect(result.standardError.contains("\(bad.path), line 3: ages 'abc' is not an age range: write two ages like 4-7 (not imported)"))
        #expect(result.standardError.contains("1 imported, 1 refused"))
        #expect(FileManager.default.contentsEqual(atPath: good.path, andPath: stories.path + "/the-owl.md"))
        #expect(FileManager.default.contentsEqual(atPath: source.path + "/pictures/owl.art", andPath: stories.path + "/pictures/owl.art"))
        #expect(!FileManager.default.fileExists(atPath: stories.path + "/bad.md"))

        // The imported story is listed with the bundled ones.
        let list = try run(["list"], dataDirectory: data.path)
        #expect(list.status == 0)
        #expect(list.standardError == "")
        #expect(list.standardOutput.contains("the-owl\tThe Owl Who Hooted\t\ten\t3-6\t1\t\n"))
        #expect(list.standardOutput.split(separator: "\n").count == 13)

        // Importing it again is refused without --replace …
        let again = try run(["import", good.path], dataDirectory: data.path)
        #expect(again.status == 1)
        #expect(again.standardError.contains("already exists: pass --replace to replace it"))
        // … and done with it.
        try source.write("the-owl.md", "---\ntitle: The Owl Who Hooted Twice\n---\n\nHoo hoo.\n")
        let replaced = try run(["import", "--replace", good.path], dataDirectory: data.path)
        #expect(replaced.status == 0)
        #expect(replaced.standardError == "")
        let relisted = try run(["list", "--json", "--search", "owl"], dataDirectory: data.path)
        let listed = try #require(try JSONSerialization.jsonObject(with: Data(relisted.standardOutput.utf8)) as? [[String: Any]])
        #expect(listed.map { $0["title"] as? String } == ["The Owl Who Hooted Twice"])
    }

    @Test func importRefusesWhatIsNotAStory() throws {
        let source = try TemporaryFolder("e2e-import-odd")
        let data = try TemporaryFolder("e2e-import-odd-data")
        defer {
            source.remove()
            data.remove()
        }
        let picture = try source.write("owl.art", "(o,o)\n")
        let fifo = source.path + "/pipe.md"
        #expect(mkfifo(fifo, 0o644) == 0)
        let result = try run(["import", picture.path, fifo, source.path + "/missing.md"], dataDirectory: data.path)
        #expect(result.status == 1)
        #expect(result.standardOutput == "")
        #expect(result.standardError.contains("\(picture.path): not imported: a story file ends in .md, .markdown or .txt"))
        #expect(result.standardError.contains("\(fifo): is not a regular file"))
        #expect(result.standardError.contains("\(source.path)/missing.md: cannot be read"))
        #expect(result.standardError.contains("0 imported, 3 refused"))
    }

    /// A story whose id is already a bundled story's would be hidden behind it: refused.
    @Test func importRefusesAnIDTheLibraryAlreadyShows() throws {
        let folder = try TemporaryFolder("import-clash")
        defer { folder.remove() }
        let file = try folder.write("src/the-lighthouse-cat.md", "---\ntitle: Another Cat\n---\n\nA different cat.\n")
        let data = folder.url.appendingPathComponent("data").path
        let result = try run(["import", file.path], dataDirectory: data)
        #expect(result.status == 1)
        #expect(result.standardError.contains("has the same id 'the-lighthouse-cat': rename the file"))
        #expect(!FileManager.default.fileExists(atPath: data + "/stories/the-lighthouse-cat.md"))
    }
}
