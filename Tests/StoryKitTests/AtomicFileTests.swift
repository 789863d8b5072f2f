import Foundation
import StoryKitTestSupport
import Testing

@testable import StoryKit

/// The one way a file is replaced: whole or not at all, nothing left beside it, the permissions
/// asked for, and a failure that names the file and keeps the old one.
@Suite struct AtomicFileTests {
    /// Every name in `folder`, hidden ones too.
    static func names(_ folder: URL) throws -> [String] {
        try FileManager.default.contentsOfDirectory(atPath: folder.path).sorted()
    }

    @Test func aFileIsReplacedWholeAndNothingIsLeftBeside() throws {
        let folder = try TemporaryFolder("atomic")
        defer { folder.remove() }
        let target = try folder.write("settings.json", "old")
        try AtomicFile.write(Data("new and longer".utf8), to: target)
        #expect(try String(contentsOf: target, encoding: .utf8) == "new and longer")
        try AtomicFile.write(Data(), to: target)
        #expect(try Data(contentsOf: target).isEmpty)
        #expect(try Self.names(folder.url) == ["settings.json"])
    }

    /// A killed writer's temporary files go, whatever file they were for; a living writer's,
    /// and files that only look alike, stay.
    @Test func abandonedPartsOfAnyNameAreRemoved() throws {
        let folder = try TemporaryFolder("atomic-abandoned")
        defer { folder.remove() }
        // A process that has ended: its PID names no process now.
        let ended = Process()
        ended.executableURL = URL(fileURLWithPath: "/bin/true")
        try ended.run()
        ended.waitUntilExit()
        let dead = ended.processIdentifier
        let living = getpid()
        let abandoned = [".cat.opus.\(dead)-1.part", ".other.wav.\(dead)-7.part", "..book.epub.\(dead).mp3.\(dead)-2.part"]
        let kept = [".cat.opus.\(living)-3.part", "cat.opus", ".cat.opus.part", ".notes.\(dead).part", "film.\(dead)-1.part", ".x.\(dead)-1-2.part"]
        for name in abandoned + kept { _ = try folder.write(name, "x") }
        let removed = AtomicFile.removeAbandoned(in: folder.url).map { ($0 as NSString).lastPathComponent }
        #expect(removed.sorted() == abandoned.sorted())
        #expect(try Self.names(folder.url) == kept.sorted())
    }

    /// From its first byte (the file is made with the mode, not changed after), and when it
    /// replaces a file anyone could read.
    @Test func aSecretIsTheOwnersAlone() throws {
        let folder = try TemporaryFolder("atomic-mode")
        defer { folder.remove() }
        let target = try folder.write("sync.json", "old")
        try FileManager.default.setAttributes([.posixPermissions: 0o644], ofItemAtPath: target.path)
        try AtomicFile.write(Data("token".utf8), to: target, permissions: 0o600)
        let mode = try #require(try FileManager.default.attributesOfItem(atPath: target.path)[.posixPermissions] as? Int)
        #expect(mode == 0o600)
    }

    /// The target cannot be replaced (a folder with a file in it stands there): the error names it
    /// and says why, the folder is untouched, and no temporary file is left.
    @Test func aFailedReplaceKeepsTheOldAndLeavesNoTemporaryFile() throws {
        let folder = try TemporaryFolder("atomic-fail")
        defer { folder.remove() }
        try folder.write("story.md/inside.txt", "kept")
        let target = folder.url.appendingPathComponent("story.md")
        let error = try #require(throws: FileWriteError.self) { try AtomicFile.write(Data("x".utf8), to: target) }
        #expect(error.path == target.path)
        #expect(!error.reason.isEmpty)
        #expect(error.description == "cannot write \(target.path): \(error.reason)")
        #expect(try String(contentsOf: target.appendingPathComponent("inside.txt"), encoding: .utf8) == "kept")
        #expect(try Self.names(folder.url) == ["story.md"])
    }

    @Test func aMissingFolderIsNamedInTheError() throws {
        let folder = try TemporaryFolder("atomic-missing")
        defer { folder.remove() }
        let target = folder.url.appendingPathComponent("no-such-folder/file.txt")
        let error = try #require(throws: FileWriteError.self) { try AtomicFile.write(Data("x".utf8), to: target) }
        #expect(error.path == target.path)
        #expect(error.reason == String(cString: strerror(ENOENT)))
    }

    @Test func aCopyReplacesTheTargetWithTheSourcesBytes() throws {
        let folder = try TemporaryFolder("atomic-copy")
        defer { folder.remove() }
        let bytes = Data((0..<1000).map { UInt8($0 % 251) })
        let source = try folder.write("a.bin", bytes)
        let target = try folder.write("b.bin", "old")
        try AtomicFile.copy(source, to: target)
        #expect(try Data(contentsOf: target) == bytes)
        #expect(try Self.names(folder.url) == ["a.bin", "b.bin"])
    }

    /// Writers that make the file themselves (encoders, archives) commit it; a commit that fails
    /// removes their temporary file.
    @Test func aCommitPutsAWrittenFileInPlaceAndAFailedOneRemovesIt() throws {
        let folder = try TemporaryFolder("atomic-commit")
        defer { folder.remove() }
        let target = folder.url.appendingPathComponent("book.epub")
        let first = AtomicFile.temporaryPath(for: target.path)
        let second = AtomicFile.temporaryPath(for: target.path)
        #expect(first != second, "two writers of one target never share a temporary file")
        #expect(URL(fileURLWithPath: first).deletingLastPathComponent().path == folder.url.path, "in the target's folder")
        #expect(URL(fileURLWithPath: first).lastPathComponent.hasPrefix(".book.epub."), "hidden")
        try Data("whole".utf8).write(to: URL(fileURLWithPath: first))
        try AtomicFile.commit(first, to: target.path)
        #expect(try String(contentsOf: target, encoding: .utf8) == "whole")
        try folder.write("blocked/x", "x")
        try Data("part".utf8).write(to: URL(fileURLWithPath: second))
        #expect(throws: FileWriteError.self) { try AtomicFile.commit(second, to: folder.url.appendingPathComponent("blocked").path) }
        #expect(try Self.names(folder.url) == ["blocked", "book.epub"])
    }
}

/// The one percentile: nearest rank, always a value measured.
@Suite struct PercentileTests {
    static let hundred = (1...100).map(Double.init).shuffled()

    @Test func nearestRankOfOneToAHundred() {
        #expect(Percentile.of(Self.hundred, 0.99) == 99)
        #expect(Percentile.of(Self.hundred, 0.5) == 50)
        #expect(Percentile.of(Self.hundred, 0.95) == 95)
        #expect(Percentile.of(Self.hundred, 1) == 100)
        #expect(Percentile.of(Self.hundred, 0) == 1)
        #expect(Percentile.ofSorted(Self.hundred.sorted(), 0.99) == 99)
    }

    @Test func smallCountsGiveAValueMeasured() {
        #expect(Percentile.of([], 0.99) == 0)
        #expect(Percentile.of([7], 0.99) == 7)
        #expect(Percentile.median([4, 1, 3, 2]) == 2, "the lower middle one")
        #expect(Percentile.median([3, 1, 2]) == 2)
        // p99 of ten values is the largest: nine of ten (90 %) is not 99 %.
        #expect(Percentile.of((1...10).map(Double.init), 0.99) == 10)
    }
}
