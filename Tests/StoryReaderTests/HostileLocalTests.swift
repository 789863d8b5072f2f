import Foundation
import StoryKitTestSupport
import Testing

@testable import StoryKit

/// The real program against a damaged database, files and folders it may not write, and a full
/// disk: every refusal names the file and the reason, read-only commands still read, and
/// nothing is lost or left behind.
@Suite struct HostileLocalTests {
    /// A data folder holding Maya with one finished read of the fixture's Tiny Fox.
    static func fixture() throws -> ReplFixture {
        let fixture = try ReplFixture(withProfiles: true)
        let store = try fixture.openStore()
        let maya = try #require(try store.profile(named: "Maya"))
        _ = try store.recordFinishedRead(profileID: maya.id ?? 0, storyID: "tiny-fox")
        return fixture
    }

    static func database(_ fixture: ReplFixture) -> String { fixture.data + "/" + StoryStore.fileName }

    /// The fixture's folders, for commands other than the REPL.
    static func options(_ fixture: ReplFixture) -> [String] { ["--stories", fixture.stories, "--data-dir", fixture.data] }

    // MARK: - Damaged databases

    /// One flipped page: `history`, `profile list` and `list --profile` read (saying the file is
    /// damaged and opened read-only); `profile add` refuses with what still reads; the file is
    /// never written.
    @Test func aDamagedDatabaseIsReadNeverWritten() throws {
        let fixture = try Self.fixture()
        defer { fixture.remove() }
        let path = Self.database(fixture)
        _ = try StoryReaderProcess.run(["profile", "list"] + Self.options(fixture), dataDirectory: fixture.data)
        try DatabaseDamage.flipRootPage(of: "syncOutbox", in: path)
        let before = try Data(contentsOf: URL(fileURLWithPath: path))

        let history = try StoryReaderProcess.run(["history"] + Self.options(fixture), dataDirectory: fixture.data)
        #expect(history.status == 0, "\(history.standardError)")
        #expect(history.standardOutput.contains("Maya  The Tiny Fox"), "\(history.standardOutput)")
        #expect(history.standardError.hasPrefix("storyreader: opened read-only, nothing can be saved: \(path) is damaged ("), "\(history.standardError)")
        let profiles = try StoryReaderProcess.run(["profile", "list"] + Self.options(fixture), dataDirectory: fixture.data)
        #expect(profiles.status == 0)
        #expect(profiles.standardOutput.contains("Maya, age 5"))
        let list = try StoryReaderProcess.run(["list", "--profile", "Maya", "--json"] + Self.options(fixture), dataDirectory: fixture.data)
        #expect(list.status == 0, "\(list.standardError)")

        let add = try StoryReaderProcess.run(["profile", "add", "--name", "Zed", "--age", "5"] + Self.options(fixture), dataDirectory: fixture.data)
        #expect(add.status == 1)
        #expect(add.standardError.contains("\(path) is damaged ("), "\(add.standardError)")
        #expect(add.standardError.contains("Still read whole: profiles, finished reads, reading positions, favourites"), "\(add.standardError)")
        #expect(!add.standardError.contains("not an SQLite file"))
        #expect(try Data(contentsOf: URL(fileURLWithPath: path)) == before, "written though the message says it was left untouched")
    }

    /// A FIFO in place of the database: every store command is refused at once (it hung).
    @Test func aFIFOInPlaceOfTheDatabaseIsRefusedAtOnce() throws {
        let data = try TemporaryFolder("fifo")
        defer { data.remove() }
        let path = data.path + "/" + StoryStore.fileName
        #expect(mkfifo(path, 0o644) == 0)
        for command in [["history"], ["profile", "list"], ["profile", "add", "--name", "Zed", "--age", "5"]] {
            let result = try StoryReaderProcess.run(command, dataDirectory: data.path, timeout: 60)
            #expect(result.status == 1, "\(command): \(result.standardError)")
            #expect(result.standardError.contains("\(path) is a FIFO (named pipe) where a file should be"), "\(result.standardError)")
        }
    }

    /// A 0-byte database is refused with its path, and stays 0 bytes (it was replaced by a new one).
    @Test func anEmptyDatabaseIsRefusedWithItsPath() throws {
        let data = try TemporaryFolder("empty-db")
        defer { data.remove() }
        let path = try data.write(StoryStore.fileName, Data()).path
        let result = try StoryReaderProcess.run(["profile", "list"], dataDirectory: data.path)
        #expect(result.status == 1)
        #expect(result.standardError.contains("\(path) is empty (0 bytes)"), "\(result.standardError)")
        #expect((try FileManager.default.attributesOfItem(atPath: path)[.size] as? Int) == 0)
    }

    // MARK: - Permissions (as a user they apply to)

    /// The database, its log or its lock that this user may not write (the folder is writable):
    /// the message names that file and `chmod u+w` on it, not the folder; `history` still reads.
    @Test(
        .enabled(if: Unprivileged.available, Comment(rawValue: Unprivileged.unavailable ?? "")),
        arguments: [StoryStore.fileName, StoryStore.fileName + "-wal", StoryStore.lockFileName])
    func aFileThatCannotBeWrittenIsNamed(_ name: String) throws {
        let fixture = try Self.fixture()
        defer { fixture.remove() }
        let file = fixture.data + "/" + name
        if !FileManager.default.fileExists(atPath: file) { #expect(FileManager.default.createFile(atPath: file, contents: nil)) }
        Unprivileged.own(fixture.folder.path)
        if name == StoryStore.lockFileName { Unprivileged.makeUnreadable(file) } else { Unprivileged.makeUnwritable(file) }
        let add = try StoryReaderProcess.run(
            ["profile", "add", "--name", "Zed", "--age", "5"] + Self.options(fixture),
            dataDirectory: fixture.data, unprivileged: true)
        #expect(add.status == 1)
        let verb = name == StoryStore.lockFileName ? "read" : "written"
        #expect(add.standardError.contains("\(file) cannot be \(verb) (Permission denied)"), "\(add.standardError)")
        #expect(add.standardError.contains("'\(file)'"))
        #expect(!add.standardError.contains("the data folder"), "\(add.standardError)")
        let history = try StoryReaderProcess.run(["history"] + Self.options(fixture), dataDirectory: fixture.data, unprivileged: true)
        #expect(history.status == 0, "\(history.standardError)")
        #expect(history.standardOutput.contains("Maya  The Tiny Fox"))
    }

    /// A data folder this user may not write: `history` and `profile list` read it (saying why
    /// nothing can be saved); `profile add` names the folder.
    @Test(.enabled(if: Unprivileged.available, Comment(rawValue: Unprivileged.unavailable ?? "")))
    func aReadOnlyDataFolderIsStillRead() throws {
        let fixture = try Self.fixture()
        defer {
            chmod(fixture.data, 0o755)
            fixture.remove()
        }
        Unprivileged.own(fixture.folder.path)
        Unprivileged.makeUnwritable(fixture.data, mode: 0o755)
        let history = try StoryReaderProcess.run(["history"] + Self.options(fixture), dataDirectory: fixture.data, unprivileged: true)
        #expect(history.status == 0, "\(history.standardError)")
        #expect(history.standardOutput.contains("Maya  The Tiny Fox"), "\(history.standardOutput)")
        #expect(
            history.standardError.contains("opened read-only, nothing can be saved: the data folder \(fixture.data) cannot be written"),
            "\(history.standardError)")
        let profiles = try StoryReaderProcess.run(["profile", "list"] + Self.options(fixture), dataDirectory: fixture.data, unprivileged: true)
        #expect(profiles.status == 0, "\(profiles.standardError)")
        #expect(profiles.standardOutput.contains("Maya, age 5"))
        let add = try StoryReaderProcess.run(
            ["profile", "add", "--name", "Zed", "--age", "5"] + Self.options(fixture),
            dataDirectory: fixture.data, unprivileged: true)
        #expect(add.status == 1)
        #expect(add.standardError.contains("the data folder \(fixture.data) cannot be written"), "\(add.standardError)")
    }

    /// A joined kiosk whose `sync.json` this user may not read: `sync --status` fails naming it
    /// (it said "not joined", exit 0), and `profile add` is refused naming it (it skipped the
    /// site's name check).
    @Test(.enabled(if: Unprivileged.available, Comment(rawValue: Unprivileged.unavailable ?? "")))
    func anUnreadableSyncSettingsFileIsAnErrorNotNotJoined() throws {
        let fixture = try Self.fixture()
        defer { fixture.remove() }
        try fixture.openStore().markJoined()
        try SyncClient.save(
            SyncSettings(url: "http://127.0.0.1:9", site: "branch1", token: "branch1.0123456789abcdef0123"),
            in: URL(fileURLWithPath: fixture.data))
        let file = fixture.data + "/" + SyncSettings.fileName
        Unprivileged.own(fixture.folder.path)
        Unprivileged.makeUnreadable(file)
        let status = try StoryReaderProcess.run(["sync", "--status"] + Self.options(fixture), dataDirectory: fixture.data, unprivileged: true)
        #expect(status.status == 1, "\(status.standardOutput)")
        #expect(status.standardError.contains("\(file) cannot be read (Permission denied)"), "\(status.standardError)")
        let add = try StoryReaderProcess.run(
            ["profile", "add", "--name", "Zed", "--age", "5"] + Self.options(fixture),
            dataDirectory: fixture.data, unprivileged: true)
        #expect(add.status == 1, "\(add.standardOutput)")
        #expect(add.standardError.contains("\(file) cannot be read (Permission denied)"), "\(add.standardError)")
        #expect(try fixture.openStore().profile(named: "Zed") == nil)
    }

    // MARK: - A full disk (a 2 MB tmpfs)

    /// A 2 MB tmpfs mounted on a fresh folder (root only), unmounted by `unmount`.
    struct SmallDisk {
        let folder: TemporaryFolder
        var path: String { folder.path + "/disk" }

        static var unavailable: String? {
            geteuid() == 0 ? nil : "mounting a tmpfs needs root (CI runs as root)"
        }

        init() throws {
            folder = try TemporaryFolder("full-disk")
            try FileManager.default.createDirectory(atPath: folder.path + "/disk", withIntermediateDirectories: true)
            let mount = try ExternalProcess.run(
                URL(fileURLWithPath: "/bin/mount"), ["-t", "tmpfs", "-o", "size=2m", "tmpfs", folder.path + "/disk"],
                environment: ["PATH": "/usr/bin:/bin:/usr/sbin:/sbin"])
            guard mount.status == 0 else { throw CocoaError(.fileWriteUnknown, userInfo: [NSLocalizedDescriptionKey: "mount failed: \(mount.standardError)"]) }
        }

        /// Fills the disk to its last byte (a file written until the system says it is full).
        func fill() {
            guard FileManager.default.createFile(atPath: path + "/filler", contents: nil), let handle = FileHandle(forWritingAtPath: path + "/filler") else {
                return
            }
            defer { try? handle.close() }
            for size in [65_536, 4096, 1] {
                let block = Data(repeating: 0x55, count: size)
                while (try? handle.write(contentsOf: block)) != nil {}
            }
        }

        func unmount() {
            _ = try? ExternalProcess.run(URL(fileURLWithPath: "/bin/umount"), [path], environment: ["PATH": "/usr/bin:/bin:/usr/sbin:/sbin"])
            folder.remove()
        }
    }

    /// With 0 bytes free the REPL starts (it stopped at "disk I/O error"), says it is read-only and
    /// why, and shows every read made before; the database is whole afterwards.
    @Test(.enabled(if: SmallDisk.unavailable == nil, Comment(rawValue: SmallDisk.unavailable ?? "")))
    func theREPLStartsReadOnlyOnAFullDisk() throws {
        let fixture = try Self.fixture()
        defer { fixture.remove() }
        let disk = try SmallDisk()
        defer { disk.unmount() }
        let data = disk.path + "/data"
        try FileManager.default.copyItem(atPath: fixture.data, toPath: data)
        let arguments = ["--no-audio", "--stories", fixture.stories, "--data-dir", data, "--profile", "Maya"]
        let script = "heading\nnext\nnext\n"
        let roomy = try StoryReaderProcess.run(arguments, input: script, dataDirectory: data)
        #expect(roomy.status == 0, "\(roomy.standardError)")
        let foxLine = try #require(roomy.standardOutput.split(separator: "\n").first { $0.contains("Story: The Tiny Fox") })
        disk.fill()
        let full = try StoryReaderProcess.run(arguments, input: script, dataDirectory: data)
        #expect(full.status == 0, "\(full.standardError)")
        #expect(!full.standardError.contains("disk I/O error"), "\(full.standardError)")
        #expect(
            full.standardOutput.contains("opened read-only: \(data)/\(StoryStore.fileName) cannot be written: the disk is full: free some space"),
            "\(full.standardOutput)\n\(full.standardError)")
        #expect(full.standardOutput.contains(foxLine), "the read made before is still shown")
        try? FileManager.default.removeItem(atPath: disk.path + "/filler")
        let history = try StoryReaderProcess.run(["history", "--data-dir", data, "--stories", fixture.stories], dataDirectory: data)
        #expect(history.status == 0, "\(history.standardError)")
        #expect(history.standardOutput.contains("Maya  The Tiny Fox"))
    }

    /// A story read to its end on a full disk is counted at once and said so; the read is kept
    /// (in a memory-backed folder), counted by a second session on the still full disk, and
    /// written by the next start with room, with the place left in The Big Owl: nothing is lost,
    /// and nothing is counted twice.
    @Test(.enabled(if: SmallDisk.unavailable == nil, Comment(rawValue: SmallDisk.unavailable ?? "")))
    func aReadOnAFullDiskIsKeptAndSavedAtTheNextStartWithRoom() throws {
        let fixture = try Self.fixture()
        defer { fixture.remove() }
        let disk = try SmallDisk()
        defer { disk.unmount() }
        let pending = try TemporaryFolder("pending")
        defer { pending.remove() }
        let data = disk.path + "/data"
        try FileManager.default.copyItem(atPath: fixture.data, toPath: data)
        let speech = try TemporaryFolder("speech")
        defer { speech.remove() }
        let log = speech.url.appendingPathComponent("speech.log").path
        let environment = ["STORYREADER_PENDING_DIR": pending.path, "STORYREADER_SPEECH_LOG": log]
        let arguments = ["--no-audio", "--stories", fixture.stories, "--data-dir", data, "--profile", "Maya"]
        disk.fill()

        let full = try StoryReaderProcess.run(
            arguments, input: "read tiny fox\nwait\nread big owl\nstop\nquit\n",
            environment: environment, dataDirectory: data)
        #expect(full.status == 0, "\(full.standardError)")
        #expect(
            full.standardOutput.contains("opened read-only: \(data)/\(StoryStore.fileName) cannot be written: the disk is full: free some space"),
            "\(full.standardOutput)")
        #expect(full.standardOutput.contains("Reads, places and favourites are kept, and saved the next time storyreader starts with room."))
        // The reason is heard once: the start's notice says it, the first read kept does not again.
        let heard = ((try? String(contentsOfFile: log, encoding: .utf8)) ?? "").split(separator: "\n").filter { $0.hasPrefix("start ") }
        #expect(heard.filter { $0.contains("the disk is full") }.count == 1, "\(heard)")
        #expect(!heard.contains { $0.contains("No space left on device") }, "the same reason in other words: \(heard)")
        #expect(heard.filter { $0.contains("Reads, places and favourites are kept") }.count == 1, "\(heard)")
        // Counted in this session already: the fixture's read and this one.
        #expect(full.standardOutput.contains("The end. Maya, you have read The Tiny Fox 2 times."), "\(full.standardOutput)")
        let kept = try FileManager.default.contentsOfDirectory(atPath: pending.path)
        #expect(kept.count == 1, "one file of kept changes: \(kept)")

        // Still full: a second session counts from what is kept, and keeps its own read too.
        let stillFull = try StoryReaderProcess.run(arguments, input: "read tiny fox\nwait\nquit\n", environment: environment, dataDirectory: data)
        #expect(stillFull.standardOutput.contains("The end. Maya, you have read The Tiny Fox 3 times."), "\(stillFull.standardOutput)")
        let notYet = try StoryReaderProcess.run(["history", "--data-dir", data, "--stories", fixture.stories], environment: environment, dataDirectory: data)
        #expect(notYet.standardOutput.components(separatedBy: "Maya  The Tiny Fox").count - 1 == 1, "not written yet: \(notYet.standardOutput)")

        try FileManager.default.removeItem(atPath: disk.path + "/filler")
        let history = try StoryReaderProcess.run(["history", "--data-dir", data, "--stories", fixture.stories], environment: environment, dataDirectory: data)
        #expect(history.status == 0, "\(history.standardError)")
        #expect(history.standardOutput.components(separatedBy: "Maya  The Tiny Fox").count - 1 == 3, "every read, once each:\n\(history.standardOutput)")
        #expect(try FileManager.default.contentsOfDirectory(atPath: pending.path).isEmpty, "the kept changes are forgotten once written")
        let again = try StoryReaderProcess.run(["history", "--data-dir", data, "--stories", fixture.stories], environment: environment, dataDirectory: data)
        #expect(again.standardOutput.components(separatedBy: "Maya  The Tiny Fox").count - 1 == 3, "written once, not at every start")
        // The place in The Big Owl, kept while full, is where the next session goes on from.
        let store = try StoryStore(dataDirectory: URL(fileURLWithPath: data), pinCost: .testing)
        let maya = try #require(try store.profile(named: "Maya"))
        #expect(try store.latestPosition(profileID: maya.id ?? 0) == "big-owl")
    }

    /// `import` on a full disk names the story it could not write and why, and leaves no
    /// `stories/.NAME.import` behind (a story file, and an EPUB's stories).
    @Test(.enabled(if: SmallDisk.unavailable == nil, Comment(rawValue: SmallDisk.unavailable ?? "")), arguments: ["big.md", "big.epub"])
    func importOnAFullDiskLeavesNothingBehind(_ name: String) throws {
        let source = try TemporaryFolder("full-import")
        defer { source.remove() }
        let words = String(repeating: "The fox ran over the hill and back again. ", count: 12_000)
        let file = source.url.appendingPathComponent(name)
        if name.hasSuffix(".md") {
            try Data("---\ntitle: Big\n---\n\n\(words)\n".utf8).write(to: file)
        } else {
            try EPUBFixtures.make(
                file, opf: EPUBFixtures.opf3(title: "Big", author: "Ann", language: "en", documents: [("c", "c.xhtml")]),
                files: [("OEBPS/c.xhtml", EPUBFixtures.xhtml("<p>\(words)</p>")), ("OEBPS/nav.xhtml", EPUBFixtures.xhtml(""))])
        }
        let disk = try SmallDisk()
        defer { disk.unmount() }
        let data = disk.path + "/data"
        try FileManager.default.createDirectory(atPath: data + "/stories", withIntermediateDirectories: true)
        disk.fill()
        let result = try StoryReaderProcess.run(["import", file.path], dataDirectory: data)
        #expect(result.status != 0)
        let target = data + "/stories/big.md"
        #expect(
            result.standardError.contains("could not write \(target): No space left on device; nothing half-written was left behind"),
            "\(result.standardError)")
        let left = try FileManager.default.contentsOfDirectory(atPath: data + "/stories")
        #expect(left.isEmpty, "left behind: \(left)")
    }
}
