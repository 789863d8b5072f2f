import Foundation
import StoryKitTestSupport
import Testing

@testable import StoryKit

/// `storyreader pin …` from a pipe, and the PIN guarding profile changes.
@Suite struct PinCommandTests {
    func run(_ arguments: [String], input: String? = nil, in folder: TemporaryFolder) throws -> ProcessResult {
        try StoryReaderProcess.run(arguments, input: input, dataDirectory: folder.path)
    }

    @Test func setChangeAndClearFromAPipe() throws {
        let folder = try TemporaryFolder("pin-cli")
        defer { folder.remove() }
        let set = try run(["pin", "set"], input: "2468\n", in: folder)
        #expect(set.status == 0, "\(set.standardError)")
        #expect(try run(["pin", "set"], input: "1111\n", in: folder).standardError.contains("a parental PIN is already set"))

        let wrong = try run(["pin", "change"], input: "1111\n5678\n", in: folder)
        #expect(wrong.status == 1)
        #expect(wrong.standardError.contains("wrong PIN: 4 tries left"))
        let changed = try run(["pin", "change"], input: "2468\n5678\n", in: folder)
        #expect(changed.status == 0, "\(changed.standardError)")

        let guarded = try run(["profile", "add", "--name", "Mia", "--age", "7"], input: "2468\n", in: folder)
        #expect(guarded.status == 1)
        #expect(guarded.standardError.contains("wrong PIN"))
        let noPIN = try run(["profile", "add", "--name", "Mia", "--age", "7"], in: folder)
        #expect(noPIN.standardError.contains("a parental PIN is set"))
        let allowed = try run(["profile", "add", "--name", "Mia", "--age", "7"], input: "5678\n", in: folder)
        #expect(allowed.status == 0, "\(allowed.standardError)")
        #expect(try run(["profile", "edit", "Mia", "--age", "8"], in: folder).status == 1)
        #expect(try run(["profile", "remove", "Mia", "--yes"], in: folder).status == 1)
        // The form from a pipe: the PIN first, then the answers.
        let piped = try run(["profile", "add"], input: "5678\nLeo\n5\n", in: folder)
        #expect(piped.status == 0, "\(piped.standardError)")

        #expect(try run(["pin", "clear"], input: "2468\n", in: folder).status == 1)
        let cleared = try run(["pin", "clear"], input: "5678\n", in: folder)
        #expect(cleared.status == 0)
        #expect(try run(["profile", "edit", "Mia", "--age", "9"], in: folder).status == 0)
    }

    @Test(arguments: [
        ("abcd", "PIN: a PIN has only the digits 0 to 9: type 4 to 8 digits"),
        ("123", "PIN: 3 digits is too short: type 4 to 8 digits"),
        ("123456789", "PIN: 9 digits is too long: type 4 to 8 digits"),
    ])
    func badNewPINsAreExplained(_ pin: String, _ message: String) throws {
        let folder = try TemporaryFolder("pin-cli")
        defer { folder.remove() }
        let result = try run(["pin", "set"], input: pin + "\n", in: folder)
        #expect(result.status == 1)
        #expect(result.standardError == "storyreader: \(message)\n")
        #expect(try run(["pin", "clear"], input: "1234\n", in: folder).standardError.contains("no parental PIN is set"))
    }

    @Test func fiveWrongPINsLockAcrossProcesses() throws {
        let folder = try TemporaryFolder("pin-cli")
        defer { folder.remove() }
        _ = try run(["pin", "set"], input: "2468\n", in: folder)
        for _ in 0..<4 { _ = try run(["pin", "clear"], input: "0000\n", in: folder) }
        let fifth = try run(["pin", "clear"], input: "0000\n", in: folder)
        #expect(fifth.standardError.contains("the PIN is locked for 30 seconds"))
        let locked = try run(["pin", "clear"], input: "2468\n", in: folder)
        #expect(locked.status == 1)
        #expect(locked.standardError.contains("the PIN is locked, try again in"))
    }

    @Test func thePINIsNotInTheDatabaseFiles() throws {
        let folder = try TemporaryFolder("pin-cli")
        defer { folder.remove() }
        let pin = "86429731"
        #expect(try run(["pin", "set"], input: pin + "\n", in: folder).status == 0)
        #expect(try run(["profile", "add", "--name", "Mia", "--age", "7"], input: pin + "\n", in: folder).status == 0)
        var bytes = Data()
        for name in try FileManager.default.contentsOfDirectory(atPath: folder.path) {
            bytes.append(try Data(contentsOf: folder.url.appendingPathComponent(name)))
        }
        #expect(bytes.count > 4096)
        #expect(bytes.range(of: Data(pin.utf8)) == nil)
        #expect(bytes.range(of: withUnsafeBytes(of: Int64(pin)!.littleEndian) { Data($0) }) == nil)
        #expect(bytes.range(of: Data("scrypt".utf8)) != nil)  // the hash is there, the PIN is not
    }
}
