import Foundation
import GRDB
import StoryKitTestSupport
import Testing

@testable import StoryKit

@Suite struct PinFormatTests {
    @Test(arguments: [
        ("abcd", ParentalPIN.FormatProblem.notDigits), ("12a4", .notDigits), ("123", .tooShort(3)),
        ("123456789", .tooLong(9)), ("", .empty), ("١٢٣٤", .notDigits), ("12 34", .notDigits),
    ])
    func badPINsAreRefusedWithAReason(_ text: String, _ expected: ParentalPIN.FormatProblem) {
        #expect(throws: expected) { try ParentalPIN.validate(text) }
    }

    @Test func messagesNameThePINAndSayWhatToDo() {
        #expect(ParentalPIN.FormatProblem.tooShort(3).description == "PIN: 3 digits is too short: type 4 to 8 digits")
        #expect(ParentalPIN.FormatProblem.notDigits.description.hasPrefix("PIN: "))
    }

    @Test func fourToEightDigitsAreAccepted() throws {
        #expect(try ParentalPIN.validate("0000") == "0000")
        #expect(try ParentalPIN.validate("12345678\n") == "12345678")
    }

    @Test func theHashIsSaltedAndMatchesOnlyThePIN() throws {
        let first = try PINHash.make(pin: "4321", cost: .testing)
        let second = try PINHash.make(pin: "4321", cost: .testing)
        #expect(first.salt != second.salt)
        #expect(first.key != second.key)
        #expect(first.key.count == 32)
        #expect(try first.matches("4321"))
        #expect(try !first.matches("4322"))
        #expect(try !first.matches("43210"))
        #expect(first.cost == .testing)
        #expect(PINHashCost.standard.rounds == 1 << 15)
    }

    @Test func lockoutsGrowFromThirtySecondsByDoubling() {
        #expect((1...4).map(PINLockout.duration(afterFailures:)) == [0, 0, 0, 0])
        #expect((5...9).map(PINLockout.duration(afterFailures:)) == [30, 60, 120, 240, 480])
        #expect(PINLockout.duration(afterFailures: 1_000) == PINLockout.longestLockout)
        #expect(PINLockout.describe(30) == "30 seconds")
        #expect(PINLockout.describe(60) == "1 minute")
        #expect(PINLockout.describe(240) == "4 minutes")
    }
}

@Suite struct PinStoreTests {
    @Test func withoutAPINProfileChangesNeedNoPIN() throws {
        let database = try TemporaryDatabase()
        defer { database.remove() }
        let store = try database.open()
        #expect(try !store.isPINSet())
        _ = try store.authorize(pin: nil)
    }

    @Test func aSetPINGuardsProfileChanges() throws {
        let database = try TemporaryDatabase()
        defer { database.remove() }
        let store = try database.open()
        try store.setPIN("2468")
        #expect(throws: StoreError.pinRequired) { try store.authorize(pin: nil) }
        #expect(throws: StoreError.wrongPIN(triesLeftBeforeLockout: 4, lockedFor: nil)) { try store.authorize(pin: "1357") }
        #expect(throws: StoreError.pinFormat(.notDigits)) { try store.authorize(pin: "abcd") }
        let authorization = try store.authorize(pin: "2468")
        try store.addProfile(ChildProfile(name: "Mia", age: 7), authorization: authorization)
        #expect(try store.pinLockout() == PINLockout())
        #expect(throws: StoreError.pinAlreadySet) { try store.setPIN("1111") }
    }

    @Test func anAuthorizationFromAnotherDatabaseIsRefused() throws {
        let first = try TemporaryDatabase()
        let second = try TemporaryDatabase()
        defer {
            first.remove()
            second.remove()
        }
        let guarded = try second.open()
        try guarded.setPIN("2468")
        let foreign = try first.open().authorize(pin: nil)
        #expect(throws: StoreError.pinRequired) { try guarded.addProfile(ChildProfile(name: "Mia", age: 7), authorization: foreign) }
    }

    @Test func fiveWrongTriesLockAndTheLockoutGrowsAndSurvivesARestart() throws {
        let database = try TemporaryDatabase()
        defer { database.remove() }
        var store = try database.open()
        try store.setPIN("2468")
        for left in [4, 3, 2, 1] {
            #expect(throws: StoreError.wrongPIN(triesLeftBeforeLockout: left, lockedFor: nil)) { try store.verifyPIN("1111") }
        }
        #expect(throws: StoreError.wrongPIN(triesLeftBeforeLockout: 0, lockedFor: 30)) { try store.verifyPIN("1111") }
        // While locked even the right PIN is not compared.
        #expect(throws: StoreError.pinLocked(remaining: 30)) { try store.verifyPIN("2468") }

        store = try database.open()  // a restart
        database.clock.advance(by: 10)
        #expect(throws: StoreError.pinLocked(remaining: 20)) { try store.verifyPIN("2468") }
        database.clock.advance(by: 20)
        #expect(throws: StoreError.wrongPIN(triesLeftBeforeLockout: 0, lockedFor: 60)) { try store.verifyPIN("1111") }
        database.clock.advance(by: 60)
        #expect(throws: StoreError.wrongPIN(triesLeftBeforeLockout: 0, lockedFor: 120)) { try store.verifyPIN("1111") }
        database.clock.advance(by: 120)
        #expect(throws: StoreError.wrongPIN(triesLeftBeforeLockout: 0, lockedFor: 240)) { try store.verifyPIN("1111") }
        #expect(try store.pinLockout().failedAttempts == 8)

        database.clock.advance(by: 240)
        try store.verifyPIN("2468")
        #expect(try store.pinLockout() == PINLockout())
    }

    @Test func changeAndClearNeedTheCurrentPIN() throws {
        let database = try TemporaryDatabase()
        defer { database.remove() }
        let store = try database.open()
        #expect(throws: StoreError.noPINSet) { try store.clearPIN(current: "1234") }
        try store.setPIN("1234")
        #expect(throws: StoreError.wrongPIN(triesLeftBeforeLockout: 4, lockedFor: nil)) { try store.changePIN(current: "9999", to: "5678") }
        #expect(throws: StoreError.pinFormat(.tooLong(9))) { try store.changePIN(current: "1234", to: "123456789") }
        try store.changePIN(current: "1234", to: "5678")
        #expect(throws: StoreError.wrongPIN(triesLeftBeforeLockout: 4, lockedFor: nil)) { try store.verifyPIN("1234") }
        #expect(throws: StoreError.wrongPIN(triesLeftBeforeLockout: 3, lockedFor: nil)) { try store.clearPIN(current: "1234") }
        #expect(try store.isPINSet())
        try store.clearPIN(current: "5678")
        #expect(try !store.isPINSet())
        _ = try store.authorize(pin: nil)
    }

    /// A PIN row of the wrong types or an absurd cost (a damaged file, an edit by hand) is an
    /// error naming the database, not a crash (GRDB's subscripts stop the program) nor a check
    /// that takes hours; the lock stays shut.
    @Test(arguments: [
        "UPDATE parentalLock SET rounds = 'many'",
        "UPDATE parentalLock SET salt = NULL",
        "UPDATE parentalLock SET rounds = 1099511627776",
        "UPDATE parentalLock SET blockSize = 100000",
        "UPDATE parentalLock SET failedAttempts = 'x'",
    ])
    func aDamagedPINRowIsAnErrorNotACrash(damage: String) throws {
        let database = try TemporaryDatabase()
        defer { database.remove() }
        try database.open().setPIN("2468")
        try DatabaseQueue(path: database.databaseURL.path).write { db in try db.execute(sql: damage) }
        let store = try database.open()
        #expect {
            try store.verifyPIN("2468")
        } throws: { error in
            guard case .unreadable(let path, _)? = error as? StoreError else { return false }
            return path == database.databaseURL.path
        }
        #expect(throws: StoreError.self) { try store.authorize(pin: nil) }
    }

    @Test func thePINCannotBeFoundInTheDatabaseFile() throws {
        let database = try TemporaryDatabase()
        defer { database.remove() }
        let pin = "73914628"
        do {
            let store = try database.open()
            try store.setPIN(pin)
            try store.verifyPIN(pin)
            #expect(throws: StoreError.self) { try store.verifyPIN("73914629") }
        }
        let bytes = try database.fileBytes()
        #expect(!bytes.isEmpty)
        let forms: [Data] = [
            Data(pin.utf8), Data(pin.utf16.flatMap { [UInt8($0 & 0xFF), UInt8($0 >> 8)] }),
            withUnsafeBytes(of: Int64(pin)!.littleEndian) { Data($0) }, withUnsafeBytes(of: Int64(pin)!.bigEndian) { Data($0) },
            withUnsafeBytes(of: Int32(pin)!.littleEndian) { Data($0) }, Data(Data(pin.utf8).base64EncodedString().utf8),
            Data(pin.utf8.map { String($0, radix: 16) }.joined().utf8), Data(String(pin.reversed()).utf8),
        ]
        for form in forms { #expect(bytes.range(of: form) == nil, "found \(form as NSData) in the file") }
        // The check can fail: the same bytes are found once written in plain.
        #expect((bytes + Data(pin.utf8)).range(of: Data(pin.utf8)) != nil)
        // What is stored is the scrypt key, which matches only through the slow hash.
        let stored = try #require(try database.open().storedPIN())
        #expect(stored.key != Data(pin.utf8))
        #expect(try stored.matches(pin))
    }
}
