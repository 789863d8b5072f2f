import Foundation
import StoryKitTestSupport
import Testing

@testable import StoryKit

/// A small library on disk: five good stories with different titles, authors, ages and tags.
struct LibraryFixture {
    let folder: TemporaryFolder

    init() throws {
        folder = try TemporaryFolder("library")
        try folder.write(
            "the-lighthouse-cat.md",
            """
            ---
            title: The Lighthouse Cat
            author: Ann Example
            ages: 4-7
            tags: animals, sea
            summary: A grey cat keeps the lamp company on stormy nights.
            ---

            Wick climbed the steps.
            """)
        try folder.write(
            "francais/la-petite-etoile.md",
            """
            ---
            title: La petite étoile timide
            author: Élodie Durand
            ages: 4-7
            tags: space, friendship
            language: fr
            ---

            Nina était une toute petite étoile.
            """)
        try folder.write("the-comet.md", "---\ntitle: The Comet\nages: 7-10\ntags: [space, adventure]\n---\n\nIt came closer.\n")
        try folder.write("the-cat-who-sang.md", "---\ntitle: The Cat Who Sang\nages: 3-5\ntags: animals, music\n---\n\nLa la la.\n")
        try folder.write("the-cattle-drive.md", "---\ntitle: The Cattle Drive\nages: 8-10\n---\n\nMoo.\n")
        try folder.write("grandmas-umbrella-boat.md", "---\ntitle: Grandma’s Umbrella Boat\n---\n\nIt rained.\n")
        try folder.write("pip.txt", "Title: Pip and the Puddle\nAuthor: Magical Stories\n\nPip jumped.\n")
    }

    var path: String { folder.path }
    func load(cache: StoryCache? = nil) -> StoryLibrary { StoryLibrary.load(folders: [path], cache: cache) }
}

@Suite struct StoryLibraryTests {
    @Test func loadsEveryStoryRecursivelySortedByTitle() throws {
        let fixture = try LibraryFixture()
        defer { fixture.folder.remove() }
        let library = fixture.load()
        #expect(library.problems == [])
        #expect(
            library.entries.map(\.title) == [
                "Grandma’s Umbrella Boat", "La petite étoile timide", "Pip and the Puddle", "The Cat Who Sang",
                "The Cattle Drive", "The Comet", "The Lighthouse Cat",
            ])
        let etoile = try #require(library.entry(id: "la-petite-etoile"))
        #expect(etoile.path == fixture.path + "/francais/la-petite-etoile.md")
        #expect(etoile.language == "fr")
        #expect(etoile.words == 6)
        #expect(etoile.paragraphs == 1)
    }

    // MARK: - Search and filters

    @Test(arguments: [
        ("lighthouse", ["the-lighthouse-cat"]),
        ("LIGHTHOUSE Cat", ["the-lighthouse-cat"]),
        ("etoile", ["la-petite-etoile"]),
        ("ÉTOILE", ["la-petite-etoile"]),
        ("elodie", ["la-petite-etoile"]),
        ("ann example", ["the-lighthouse-cat"]),
        ("lamp stormy", ["the-lighthouse-cat"]),
        ("grandma's", ["grandmas-umbrella-boat"]),
        ("cat", ["the-cat-who-sang", "the-cattle-drive", "the-lighthouse-cat"]),
        ("cat comet", []),
        ("", ["grandmas-umbrella-boat", "la-petite-etoile", "pip", "the-cat-who-sang", "the-cattle-drive", "the-comet", "the-lighthouse-cat"]),
    ])
    func searchByWords(_ words: String, _ expected: [String]) throws {
        let fixture = try LibraryFixture()
        defer { fixture.folder.remove() }
        #expect(fixture.load().search(words: words).map(\.id) == expected)
    }

    @Test func filtersByAgeAndTag() throws {
        let fixture = try LibraryFixture()
        defer { fixture.folder.remove() }
        let library = fixture.load()
        // Stories without ages suit every age.
        #expect(library.search(age: 4).map(\.id) == ["grandmas-umbrella-boat", "la-petite-etoile", "pip", "the-cat-who-sang", "the-lighthouse-cat"])
        #expect(library.search(age: 10).map(\.id) == ["grandmas-umbrella-boat", "pip", "the-cattle-drive", "the-comet"])
        #expect(library.search(tag: "SPACE").map(\.id) == ["la-petite-etoile", "the-comet"])
        #expect(library.search(tag: "dinosaurs").isEmpty)
        #expect(library.search(words: "the", age: 5, tag: "animals").map(\.id) == ["the-cat-who-sang", "the-lighthouse-cat"])
        #expect(library.tags == ["adventure", "animals", "friendship", "music", "sea", "space"])
    }

    // MARK: - Resolving a name

    @Test(arguments: [
        ("the-lighthouse-cat", "the-lighthouse-cat"),
        ("The Lighthouse Cat", "the-lighthouse-cat"),
        ("  the lighthouse CAT ", "the-lighthouse-cat"),
        ("the-light", "the-lighthouse-cat"),
        ("The Light", "the-lighthouse-cat"),
        ("lighthouse", "the-lighthouse-cat"),
        ("pip", "pip"),
        ("la petite etoile", "la-petite-etoile"),
        ("étoile", "la-petite-etoile"),
        ("grandma's umbrella boat", "grandmas-umbrella-boat"),
        ("umbrella boat", "grandmas-umbrella-boat"),
        ("the cat who", "the-cat-who-sang"),
        ("the comet", "the-comet"),
    ])
    func resolvesAName(_ name: String, _ id: String) throws {
        let fixture = try LibraryFixture()
        defer { fixture.folder.remove() }
        let resolved = fixture.load().resolve(name)
        #expect((try? resolved.get())?.id == id, "\(resolved)")
    }

    @Test(arguments: [
        ("the cat", ["the-cat-who-sang", "the-cattle-drive"]),
        ("cat", ["the-cat-who-sang", "the-cattle-drive", "the-lighthouse-cat"]),
        ("the", ["the-cat-who-sang", "the-cattle-drive", "the-comet", "the-lighthouse-cat"]),
    ])
    func anAmbiguousNameListsTheMatches(_ name: String, _ ids: [String]) throws {
        let fixture = try LibraryFixture()
        defer { fixture.folder.remove() }
        guard case .failure(let error) = fixture.load().resolve(name), case .ambiguous(_, let matches) = error else {
            Issue.record("'\(name)' should be ambiguous")
            return
        }
        #expect(Set(matches.map(\.id)) == Set(ids))
        #expect(error.description.contains("matches \(ids.count) stories"))
        #expect(error.description.contains("Type more of the name or use the id"))
    }

    @Test func anUnknownNameSuggestsTheClosest() throws {
        let fixture = try LibraryFixture()
        defer { fixture.folder.remove() }
        let library = fixture.load()
        guard case .failure(let error) = library.resolve("the lighthose cat"), case .notFound(_, let suggestions) = error else {
            Issue.record("should not be found")
            return
        }
        #expect(suggestions.first?.id == "the-lighthouse-cat")
        #expect(error.description.contains("Did you mean: The Lighthouse Cat (the-lighthouse-cat)"))

        guard case .failure(let nothing) = library.resolve("xylophone zebra quartet"), case .notFound(_, let none) = nothing else {
            Issue.record("should not be found")
            return
        }
        #expect(none.isEmpty)
        #expect(nothing.description.contains("storyreader list"))
        guard case .failure(.notFound) = library.resolve("   ") else {
            Issue.record("a blank name should not be found")
            return
        }
    }

    // MARK: - Bad files and folders

    @Test func oneBadFileNeverHidesTheOthers() throws {
        let folder = try TemporaryFolder("mixed")
        defer { folder.remove() }
        try folder.write("good.md", "---\ntitle: Good\n---\n\nA good story.\n")
        try folder.write("also-good.txt", "Title: Also Good\n\nAnother.\n")
        try folder.write("empty.md", "")
        try folder.write("binary.txt", Data([0x7F, 0x45, 0x4C, 0x46, 0, 0, 0, 1]))
        try folder.write("no-title.md", "---\nauthor: X\n---\n\nText.\n")
        try folder.write("bad-ages.md", "---\ntitle: T\nages: 7-4\n---\n\nText.\n")
        try folder.write("warned.md", "---\ntitle: Warned\ncolour: red\n---\n\nText.\n")
        try folder.write("picture.art", "not a story")
        try folder.write(".hidden.md", "")
        let library = StoryLibrary.load(folders: [folder.path])
        #expect(library.entries.map(\.id) == ["also-good", "good", "warned"])
        let errors = library.problems.filter(\.isError)
        #expect(errors.map { ($0.path as NSString).lastPathComponent } == ["bad-ages.md", "binary.txt", "empty.md", "no-title.md"])
        #expect(errors.map(\.kind) == [.badAges, .binary, .empty, .missingTitle])
        #expect(library.problems.filter { !$0.isError }.map(\.kind) == [.unknownKey])
        for problem in library.problems {
            #expect(problem.description.hasPrefix(folder.path + "/"))
        }
    }

    /// Files are parsed on every core: the library must come out as one thread would make it —
    /// the same stories in the same order, the same problems for the same files in the same order.
    @Test func aParallelLoadEqualsASerialOne() throws {
        let folder = try TemporaryFolder("parallel")
        defer { folder.remove() }
        var generator = SeededGenerator(seed: 32)
        let words = ["fox", "moon", "Pip’s", "café", "star-shaped", "3,000", "“Hello,”", "owl", "said", "the"]
        for index in 0..<300 {
            let shelf = "shelf-\(index % 7)/"
            switch index % 10 {
            case 3: try folder.write(shelf + "empty-\(index).md", "")
            case 5: try folder.write(shelf + "binary-\(index).txt", Data([0x7F, 0x45, 0x4C, 0x46, 0, 0, UInt8(index % 256)]))
            case 7: try folder.write(shelf + "no-title-\(index).md", "---\nauthor: X\n---\n\nText \(index).\n")
            case 8: try folder.write(shelf + "warned-\(index).md", "---\ntitle: Warned \(index)\ncolour: red\nages: 9-4\n---\n\nText.\n")
            case 9: try folder.write(shelf + "dup.md", "---\ntitle: Same Id \(index)\n---\n\nOne of many.\n")
            default:
                var body = ""
                for word in 0..<(20 + index % 50) {
                    body += words[Int(generator.next() % UInt64(words.count))] + (word % 9 == 8 ? ". " : " ")
                }
                // Titles that sort apart from the file order, some equal but for case.
                let title = index % 4 == 0 ? "the \(index % 13) tale" : "The \(index % 13) Tale"
                try folder.write(shelf + "story-\(index).md", "---\ntitle: \(title)\ntags: t\(index % 3)\n---\n\n\(body)\n\n![A picture \(index).](nope.art)\n")
            }
        }
        let parallel = StoryLibrary.load(folders: [folder.path], cache: nil, missingFoldersAreProblems: true, parallel: true)
        let serial = StoryLibrary.load(folders: [folder.path], cache: nil, missingFoldersAreProblems: true, parallel: false)
        #expect(parallel.entries.count == 151)  // 150 good stories and one of the seven dup.md
        #expect(parallel.entries == serial.entries)
        #expect(parallel.problems == serial.problems)
        #expect(Set(parallel.problems.map(\.kind)) == [.empty, .binary, .missingTitle, .badAges, .duplicateID, .pictureFileMissing])
        // And through the cache: written by a parallel load, read back the same.
        let cache = StoryCache(url: folder.url.appendingPathComponent("cache/story-cache.v1"))
        let cold = StoryLibrary.load(folders: [folder.path], cache: cache)
        let warm = StoryLibrary.load(folders: [folder.path], cache: cache)
        #expect(cold.entries == serial.entries && warm.entries == serial.entries)
        #expect(cold.problems == serial.problems && warm.problems == serial.problems)
    }

    @Test func aFolderOfHundredsIsReadInNameOrderWithEveryProblemNamed() throws {
        // More entries than one thread looks up (the walker shares a big folder's `stat`s between
        // cores): the order, the files passed over and the problems must not depend on which
        // core looked a name up.
        let folder = try TemporaryFolder("big-folder")
        defer { folder.remove() }
        let fm = FileManager.default
        var expectedIDs: [String] = []
        var expectedProblems: [(String, StoryProblem.Kind)] = []
        for index in 0..<400 {
            let name = String(format: "%03d", index)
            switch index % 8 {
            case 1: try folder.write("\(name)-picture.art", "not a story")
            case 2:
                // Named like a folder document only after a prefix: still a story.
                try folder.write("\(name)-README.md", "---\ntitle: Read me \(name)\n---\n\nA story.\n")
                expectedIDs.append("\(name)-readme")
            case 3:
                try fm.createSymbolicLink(atPath: folder.path + "/\(name)-gone.md", withDestinationPath: "nowhere.md")
                expectedProblems.append(("\(name)-gone.md", .notFound))
            case 4:
                try fm.createSymbolicLink(atPath: folder.path + "/\(name)-self.md", withDestinationPath: "\(name)-self.md")
                expectedProblems.append(("\(name)-self.md", .symlinkLoop))
            case 5:
                try folder.write("\(name)-shelf/inner-\(name).md", "---\ntitle: Inner \(name)\n---\n\nInside.\n")
                try folder.write("\(name)-shelf/README.md", "---\ntitle: About this shelf\n---\n\nNot a story.\n")
                expectedIDs.append("inner-\(name)")
            default:
                try folder.write("\(name)-Story.MD", "---\ntitle: Story \(name)\n---\n\nOnce.\n")
                expectedIDs.append("\(name)-story")
            }
        }
        let library = StoryLibrary.load(folders: [folder.path])
        #expect(library.entries.map(\.id).sorted() == expectedIDs.sorted())
        // Problems come in the walk's order: by name, a subfolder's after its name.
        #expect(library.problems.map(\.path) == expectedProblems.map { folder.path + "/" + $0.0 })
        #expect(library.problems.map(\.kind) == expectedProblems.map(\.1))
        #expect(!library.entries.contains { $0.title == "About this shelf" })
    }

    @Test func aCacheWithBytesThatAreNotUTF8IsIgnoredAndRewritten() throws {
        let fixture = try LibraryFixture()
        defer { fixture.folder.remove() }
        let cache = StoryCache(url: fixture.folder.url.appendingPathComponent("story-cache.v1"))
        let expected = fixture.load(cache: cache).entries
        var bytes = [UInt8](try Data(contentsOf: cache.url))
        // One title byte of the file's last record made invalid: the whole cache goes.
        let title = Array("Pip and the Puddle".utf8)
        let at = try #require(bytes.indices.last { bytes[$0...].starts(with: title) })
        bytes[at] = 0xFF
        try Data(bytes).write(to: cache.url)
        #expect(fixture.load(cache: cache).entries == expected)
        #expect(try String(contentsOf: cache.url, encoding: .utf8).contains("Pip and the Puddle"))
    }

    @Test func duplicateIDsAreReportedAndTheFirstWins() throws {
        let first = try TemporaryFolder("first")
        let second = try TemporaryFolder("second")
        defer {
            first.remove()
            second.remove()
        }
        try first.write("fox.md", "---\ntitle: First Fox\n---\n\nOne.\n")
        try second.write("Fox.txt", "Title: Second Fox\n\nTwo.\n")
        try second.write("shelf/fox.md", "---\ntitle: Third Fox\n---\n\nThree.\n")
        let library = StoryLibrary.load(folders: [first.path, second.path])
        #expect(library.entries.map(\.title) == ["First Fox"])
        #expect(library.problems.map(\.kind) == [.duplicateID, .duplicateID])
        #expect(library.problems.map(\.path) == [second.path + "/Fox.txt", second.path + "/shelf/fox.md"])
        let message = try #require(library.problems.first?.description)
        #expect(message.contains("same id 'fox' as \(first.path)/fox.md"))
        #expect(message.contains("rename one of the files"))
        // Which copy the library shows is said (issue 43).
        #expect(message.contains("the library shows \(first.path)/fox.md, not this file"), "\(message)")
    }

    @Test func aFolderThatDoesNotExist() throws {
        let fixture = try LibraryFixture()
        defer { fixture.folder.remove() }
        let missing = fixture.path + "/no-such-folder"
        let library = StoryLibrary.load(folders: [missing, fixture.path])
        #expect(library.entries.count == 7)
        #expect(library.problems.map(\.kind) == [.notFound])
        #expect(library.problems.first?.description == "\(missing): this folder does not exist: check the path given to --stories, or create the folder")
        // A default folder that has not been made yet is not a problem.
        #expect(StoryLibrary.load(folders: [missing], missingFoldersAreProblems: false).problems.isEmpty)
    }

    @Test func symlinkLoopsAreReportedAndTheOtherStoriesLoad() throws {
        let folder = try TemporaryFolder("loops")
        defer { folder.remove() }
        try folder.write("good.md", "---\ntitle: Good\n---\n\nA good story.\n")
        try folder.write("shelf/inner.md", "---\ntitle: Inner\n---\n\nInside.\n")
        let fm = FileManager.default
        try fm.createSymbolicLink(atPath: folder.path + "/shelf/back-up", withDestinationPath: "..")
        try fm.createSymbolicLink(atPath: folder.path + "/self.md", withDestinationPath: "self.md")
        try fm.createSymbolicLink(atPath: folder.path + "/ping", withDestinationPath: "pong")
        try fm.createSymbolicLink(atPath: folder.path + "/pong", withDestinationPath: "ping")
        let library = StoryLibrary.load(folders: [folder.path])
        #expect(library.entries.map(\.id) == ["good", "inner"])
        let loops = library.problems.filter { $0.kind == .symlinkLoop }
        #expect(loops.map(\.path) == [folder.path + "/ping", folder.path + "/pong", folder.path + "/self.md", folder.path + "/shelf/back-up"])
        #expect(loops.allSatisfy { $0.message.contains("skipped") })
        #expect(library.problems.count == loops.count)

        // A loop named as the folder itself.
        let root = StoryLibrary.load(folders: [folder.path + "/ping"])
        #expect(root.problems.map(\.kind) == [.symlinkLoop])
        #expect(root.problems.first?.message.contains("fix or remove the link") == true)
    }

    @Test func anUnreadableFileIsReportedWithTheReason() throws {
        // The tests run as root, whom chmod 000 does not stop; reading /proc/self/mem from its
        // start fails with EIO for everyone.
        let folder = try TemporaryFolder("unreadable")
        defer { folder.remove() }
        try folder.write("good.md", "---\ntitle: Good\n---\n\nA good story.\n")
        try FileManager.default.createSymbolicLink(atPath: folder.path + "/x.txt", withDestinationPath: "/proc/self/mem")
        let library = StoryLibrary.load(folders: [folder.path])
        #expect(library.entries.map(\.id) == ["good"])
        let problem = try #require(library.problems.first)
        #expect(library.problems.count == 1)
        #expect(problem.kind == .unreadable)
        #expect(
            problem.description == "\(folder.path)/x.txt: cannot be read (Input/output error): check that the file exists and its permissions allow reading")
    }

    @Test func aFIFONamedLikeAStoryDoesNotHang() throws {
        let folder = try TemporaryFolder("fifo")
        defer { folder.remove() }
        try folder.write("good.md", "---\ntitle: Good\n---\n\nA good story.\n")
        let fifo = folder.path + "/x.md"
        #expect(mkfifo(fifo, 0o644) == 0)
        // Should the parser open the pipe, it would wait for a writer for ever: this writer comes
        // after a few seconds, so a wrong parser fails the test instead of hanging it.
        let writer = Thread {
            Thread.sleep(forTimeInterval: 5)
            let descriptor = open(fifo, O_WRONLY | O_NONBLOCK)
            if descriptor >= 0 { close(descriptor) }
        }
        writer.start()
        let library = StoryLibrary.load(folders: [folder.path])
        #expect(library.entries.map(\.id) == ["good"])
        #expect(library.problems.map(\.kind) == [.unreadable])
        #expect(library.problems.first?.description.contains("not a regular file") == true)
        // Named directly, as `import x.md` does.
        let direct = try #require(problem { try StoryParser.parse(contentsOf: URL(fileURLWithPath: fifo), path: fifo) })
        #expect(direct.kind == .unreadable)
        #expect(direct.description.hasPrefix(fifo + ": "))
        #expect(direct.message.contains("not a regular file"))
        let named = StoryLibrary.load(folders: [fifo])
        #expect(named.problems.map(\.kind) == [.notAFolder])
    }

    // MARK: - Cache

    @Test func aSecondLoadFromTheCacheEqualsTheFirst() throws {
        let fixture = try LibraryFixture()
        defer { fixture.folder.remove() }
        try fixture.folder.write("warned.md", "---\ntitle: Warned\ncolour: red\n---\n\n![A missing picture.](nope.art)\n\nText.\n")
        try fixture.folder.write("broken.md", "---\ntitle: T\nages: abc\n---\n\nText.\n")
        let cache = StoryCache(url: fixture.folder.url.appendingPathComponent("cache/story-cache.v1"))
        let first = fixture.load(cache: cache)
        #expect(FileManager.default.fileExists(atPath: cache.url.path))
        let second = fixture.load(cache: cache)
        #expect(second.entries == first.entries)
        #expect(second.problems == first.problems)
        #expect(first.problems.map(\.kind) == [.badAges, .unknownKey, .pictureFileMissing])
        #expect(first.entries == fixture.load().entries)
    }

    @Test func theCacheIsUsedWhileSizeAndModificationTimeStayTheSame() throws {
        let fixture = try LibraryFixture()
        defer { fixture.folder.remove() }
        let cache = StoryCache(url: fixture.folder.url.appendingPathComponent("story-cache.v1"))
        let file = fixture.folder.url.appendingPathComponent("the-comet.md")
        // A whole second, so that setting it again gives the very same nanoseconds.
        let modified = Date(timeIntervalSince1970: 1_700_000_000)
        try FileManager.default.setAttributes([.modificationDate: modified], ofItemAtPath: file.path)
        #expect(fixture.load(cache: cache).entry(id: "the-comet")?.title == "The Comet")

        // Same size, same time: the cached entry is used (the proof that there is a cache).
        try fixture.folder.write("the-comet.md", "---\ntitle: The Cosme\nages: 7-10\ntags: [space, adventure]\n---\n\nIt came closer.\n")
        try FileManager.default.setAttributes([.modificationDate: modified], ofItemAtPath: file.path)
        #expect(fixture.load(cache: cache).entry(id: "the-comet")?.title == "The Comet")

        // Same size, another time: parsed again.
        try FileManager.default.setAttributes([.modificationDate: modified.addingTimeInterval(-60)], ofItemAtPath: file.path)
        #expect(fixture.load(cache: cache).entry(id: "the-comet")?.title == "The Cosme")

        // Another size, same time: parsed again.
        try fixture.folder.write("the-comet.md", "---\ntitle: The Big Comet\nages: 7-10\n---\n\nIt came closer.\n")
        try FileManager.default.setAttributes([.modificationDate: modified.addingTimeInterval(-60)], ofItemAtPath: file.path)
        let reloaded = fixture.load(cache: cache)
        #expect(reloaded.entry(id: "the-comet")?.title == "The Big Comet")
        #expect(reloaded.entry(id: "the-comet")?.tags == [])

        // A deleted file is gone, not served from the cache.
        try FileManager.default.removeItem(at: file)
        #expect(fixture.load(cache: cache).entry(id: "the-comet") == nil)
    }

    @Test(arguments: [
        Data(),
        Data("storyreader story cache 2\n".utf8),
        Data("storyreader story cache 2\ngarbage\u{1F}more\u{1D}".utf8),
        Data("storyreader story cache 2\n/x\u{1F}1\u{1F}2\u{1F}id\u{1F}t\u{1F}\u{1F}4-\u{1F}\u{1F}en\u{1F}\u{1F}1\u{1F}1\u{1F}1\u{1F}0\u{1F}\u{1D}".utf8),
        Data("storyreader story cache 2\n/x\u{1F}1\u{1F}2\u{1F}id\u{1F}t\u{1F}\u{1F}9-4\u{1F}\u{1F}en\u{1F}\u{1F}1\u{1F}1\u{1F}1\u{1F}0\u{1F}\u{1D}".utf8),
        Data([0xFF, 0xFE, 0, 0x41]),
        Data("SQLite format 3\0".utf8),
    ])
    func aCorruptCacheIsIgnored(_ corrupt: Data) throws {
        let fixture = try LibraryFixture()
        defer { fixture.folder.remove() }
        let cache = StoryCache(url: fixture.folder.url.appendingPathComponent("story-cache.v1"))
        let expected = fixture.load().entries
        try corrupt.write(to: cache.url)
        #expect(fixture.load(cache: cache).entries == expected)
        // … and rewritten in good order.
        #expect(fixture.load(cache: cache).entries == expected)
        let rewritten = try String(contentsOf: cache.url, encoding: .utf8)
        #expect(rewritten.hasPrefix("storyreader story cache 6\n"))
    }

    @Test func aCacheRecordWithTheRightSizeButDamagedFieldsIsNotTrusted() throws {
        // A record for a real file, with the file's own size and time but ages backwards:
        // AgeRange would be built with lower > upper.
        let folder = try TemporaryFolder("cache-ages")
        defer { folder.remove() }
        let file = try folder.write("a.md", "---\ntitle: A\nages: 4-7\n---\n\nText.\n")
        let cache = StoryCache(url: folder.url.appendingPathComponent("story-cache.v1"))
        _ = StoryLibrary.load(folders: [folder.path], cache: cache)
        var text = try String(contentsOf: cache.url, encoding: .utf8)
        text = text.replacingOccurrences(of: "\u{1F}4-7\u{1F}", with: "\u{1F}7-4\u{1F}")
        try Data(text.utf8).write(to: cache.url)
        let library = StoryLibrary.load(folders: [folder.path], cache: cache)
        #expect(library.entries.first?.ages == AgeRange(lower: 4, upper: 7))
        #expect(library.entries.first?.path == file.path)
    }
}
