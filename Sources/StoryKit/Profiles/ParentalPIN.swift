import Crypto
public import Foundation
import _CryptoExtras

/// The parental PIN: 4–8 digits, kept only as a salted scrypt hash, compared in constant time.
public enum ParentalPIN {
    public static let lengthRange = 4...8

    /// Why a typed PIN is refused before it is even compared.
    public enum FormatProblem: Error, Sendable, Hashable, CustomStringConvertible {
        case empty, notDigits
        case tooShort(Int)
        case tooLong(Int)
        public var description: String { localized(.english) }

        /// The message in the language of `messages`.
        public func localized(_ messages: MessageCatalog) -> String {
            let rule = messages.tr(
                "type {min} to {max} digits",
                [
                    "min": String(ParentalPIN.lengthRange.lowerBound),
                    "max": String(ParentalPIN.lengthRange.upperBound),
                ])
            switch self {
            case .empty: return messages.tr("PIN: the PIN is empty: {rule}", ["rule": rule])
            case .notDigits: return messages.tr("PIN: a PIN has only the digits 0 to 9: {rule}", ["rule": rule])
            case .tooShort(let count): return messages.tr("PIN: {count} digits is too short: {rule}", ["count": String(count), "rule": rule])
            case .tooLong(let count): return messages.tr("PIN: {count} digits is too long: {rule}", ["count": String(count), "rule": rule])
            }
        }
    }

    /// Checks the shape of a typed PIN (surrounding spaces and a line end are ignored).
    public static func validate(_ text: String) throws(FormatProblem) -> String {
        let pin = text.trimmingCharacters(in: .whitespacesAndNewlines)
        if pin.isEmpty { throw .empty }
        guard pin.unicodeScalars.allSatisfy({ ("0"..."9").contains($0) }) else { throw .notDigits }
        if pin.count < lengthRange.lowerBound { throw .tooShort(pin.count) }
        if pin.count > lengthRange.upperBound { throw .tooLong(pin.count) }
        return pin
    }
}

/// scrypt cost parameters; stored with each hash so a later change of cost still verifies old PINs.
public struct PINHashCost: Sendable, Hashable, Codable {
    /// scrypt N (a power of two).
    public var rounds: Int
    public var blockSize: Int
    public var parallelism: Int

    public init(rounds: Int, blockSize: Int = 8, parallelism: Int = 1) {
        self.rounds = rounds
        self.blockSize = blockSize
        self.parallelism = parallelism
    }

    /// N = 2^15, r = 8, p = 1: 32 MiB and about a tenth of a second per try (OWASP's scrypt minimum
    /// is 2^17 for passwords; a 4–8 digit PIN is protected mostly by the lockout, the hash keeps it
    /// out of sight in the file).
    public static let standard = PINHashCost(rounds: 1 << 15)
    /// For tests only: fast.
    public static let testing = PINHashCost(rounds: 16, blockSize: 1)

    /// A cost a stored hash may ask for: scrypt's own rules (N a power of two above 1), and at
    /// most 2^20 × 32 × 16, so a damaged or edited row cannot make a PIN check take gigabytes or
    /// hours (N × r × 128 bytes: 2^20 × 32 is 4 GiB, already far past any cost this program writes).
    public var isSane: Bool {
        (2...(1 << 20)).contains(rounds) && rounds & (rounds - 1) == 0 && (1...32).contains(blockSize) && (1...16).contains(parallelism)
    }
}

/// A salted slow hash of a PIN.
public struct PINHash: Sendable, Hashable {
    public static let algorithm = "scrypt"
    public var salt: Data
    public var key: Data
    public var cost: PINHashCost

    public init(salt: Data, key: Data, cost: PINHashCost) {
        self.salt = salt
        self.key = key
        self.cost = cost
    }

    /// Hashes `pin` with a fresh random 16-byte salt.
    public static func make(pin: String, cost: PINHashCost) throws -> PINHash {
        var generator = SystemRandomNumberGenerator()
        let salt = Data((0..<16).map { _ in UInt8.random(in: .min ... .max, using: &generator) })
        return PINHash(salt: salt, key: try derive(pin: pin, salt: salt, cost: cost), cost: cost)
    }

    /// Whether `pin` hashes to this key; the comparison takes the same time wherever the bytes differ.
    public func matches(_ pin: String) throws -> Bool {
        let candidate = try Self.derive(pin: pin, salt: salt, cost: cost)
        guard candidate.count == key.count else { return false }
        var difference: UInt8 = 0
        for (left, right) in zip(candidate, key) { difference |= left ^ right }
        return difference == 0
    }

    static func derive(pin: String, salt: Data, cost: PINHashCost) throws -> Data {
        let key = try KDF.Scrypt.deriveKey(
            from: Data(pin.utf8), salt: salt, outputByteCount: 32, rounds: cost.rounds, blockSize: cost.blockSize,
            parallelism: cost.parallelism)
        return key.withUnsafeBytes { Data($0) }
    }
}

/// The wrong-PIN lockout: after 5 wrong tries the PIN is locked for 30 s, and each further wrong
/// try locks it twice as long (1 min, 2 min, 4 min …, at most a day). A right PIN resets it.
public struct PINLockout: Sendable, Hashable, Codable {
    public static let freeTries = 5
    public static let firstLockout: TimeInterval = 30
    public static let longestLockout: TimeInterval = 24 * 60 * 60

    /// Wrong tries since the last right one.
    public var failedAttempts: Int
    /// When the PIN may be tried again, if it is locked.
    public var lockedUntil: Date?

    public init(failedAttempts: Int = 0, lockedUntil: Date? = nil) {
        self.failedAttempts = failedAttempts
        self.lockedUntil = lockedUntil
    }

    /// How long the lockout after the `failures`-th wrong try lasts (0 before the 5th).
    public static func duration(afterFailures failures: Int) -> TimeInterval {
        guard failures >= freeTries else { return 0 }
        let doublings = min(failures - freeTries, 20)
        return min(firstLockout * Double(1 << doublings), longestLockout)
    }

    /// Seconds left to wait at `now` (0 when not locked).
    public func remaining(at now: Date) -> TimeInterval {
        guard let lockedUntil else { return 0 }
        return max(0, lockedUntil.timeIntervalSince(now))
    }

    /// The state after one more wrong try at `now`.
    public func recordingFailure(at now: Date) -> PINLockout {
        let failures = failedAttempts + 1
        let duration = Self.duration(afterFailures: failures)
        return PINLockout(failedAttempts: failures, lockedUntil: duration > 0 ? now.addingTimeInterval(duration) : nil)
    }

    /// "30 seconds", "1 minute", "4 minutes", "1 hour 4 minutes".
    public static func describe(_ seconds: TimeInterval, _ messages: MessageCatalog = .english) -> String {
        let total = Int(seconds.rounded(.up))
        if total < 60 { return messages.trn("{count} second", "{count} seconds", total) }
        let minutes = (total + 59) / 60
        if minutes < 60 { return messages.trn("{count} minute", "{count} minutes", minutes) }
        let hours = minutes / 60
        let rest = minutes % 60
        let hourText = messages.trn("{count} hour", "{count} hours", hours)
        return rest == 0 ? hourText : hourText + " " + messages.trn("{count} minute", "{count} minutes", rest)
    }
}
