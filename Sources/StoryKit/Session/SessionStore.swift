import Foundation

/// A child's profile as the session needs it. Stands in for the profile issue's `ChildProfile`
/// until the store lands: the session only reads these fields.
public struct ProfileRecord: Sendable, Hashable, Codable {
    public var name: String
    public var age: Int?
    public var interests: [String]
    public var speech: SpeechSettings
    public var textSize: TextSizePreset
    public var theme: ThemeName
    public var motion: MotionPreference
    public var hints: Bool

    public init(name: String, age: Int? = nil, interests: [String] = [], speech: SpeechSettings = .storyDefaults,
                textSize: TextSizePreset = .default, theme: ThemeName = .default, motion: MotionPreference = .auto, hints: Bool = true) {
        self.name = name
        self.age = age
        self.interests = interests
        self.speech = speech
        self.textSize = textSize
        self.theme = theme
        self.motion = motion
        self.hints = hints
    }

    /// Settings used before anyone picks a profile.
    public static let guest = ProfileRecord(name: "Guest")
}

/// What a profile has done with one story.
public struct ReadingRecord: Sendable, Hashable, Codable {
    public var readCount: Int = 0
    public var isFavourite: Bool = false
    /// The word to resume from (an index into `Story.words`), when reading stopped midway.
    public var position: Int?
    public init(readCount: Int = 0, isFavourite: Bool = false, position: Int? = nil) {
        self.readCount = readCount
        self.isFavourite = isFavourite
        self.position = position
    }
}

/// Everything the session loads at start.
public struct SessionSnapshot: Sendable, Hashable, Codable {
    public var profiles: [ProfileRecord]
    /// profile name → story id → record.
    public var readings: [String: [String: ReadingRecord]]
    public var pinIsSet: Bool

    public init(profiles: [ProfileRecord] = [], readings: [String: [String: ReadingRecord]] = [:], pinIsSet: Bool = false) {
        self.profiles = profiles
        self.readings = readings
        self.pinIsSet = pinIsSet
    }
}

/// A change the session asks the store to keep (`Effect.save`).
public enum StoreChange: Sendable, Hashable {
    /// Adds a profile, or replaces the one called `replacing`.
    case saveProfile(ProfileRecord, replacing: String?)
    /// The story was read to the end: one more read, position cleared.
    case recordFinished(profile: String, story: String)
    case savePosition(profile: String, story: String, word: Int?)
    case setFavourite(profile: String, story: String, Bool)
}

/// Where profiles and reading records live. The profile issue's GRDB store plugs in here.
public protocol SessionStore: Sendable {
    func load() throws -> SessionSnapshot
    func apply(_ change: StoreChange) throws
}

extension SessionSnapshot {
    /// Applies a change to the snapshot (what a store does, in memory).
    public mutating func apply(_ change: StoreChange) {
        switch change {
        case .saveProfile(let profile, let replacing):
            if let replacing, let index = profiles.firstIndex(where: { $0.name == replacing }) {
                profiles[index] = profile
                if replacing != profile.name, let old = readings.removeValue(forKey: replacing) { readings[profile.name] = old }
            } else if let index = profiles.firstIndex(where: { $0.name == profile.name }) {
                profiles[index] = profile
            } else {
                profiles.append(profile)
            }
        case .recordFinished(let profile, let story):
            readings[profile, default: [:]][story, default: ReadingRecord()].readCount += 1
            readings[profile, default: [:]][story]?.position = nil
        case .savePosition(let profile, let story, let word):
            readings[profile, default: [:]][story, default: ReadingRecord()].position = word
        case .setFavourite(let profile, let story, let value):
            readings[profile, default: [:]][story, default: ReadingRecord()].isFavourite = value
        }
    }
}

/// A store in one JSON file, used until the profile issue's database is wired in.
public final class JSONSessionStore: SessionStore, @unchecked Sendable {
    public let url: URL
    private let lock = NSLock()

    public init(url: URL) { self.url = url }

    public func load() throws -> SessionSnapshot {
        lock.lock(); defer { lock.unlock() }
        guard FileManager.default.fileExists(atPath: url.path) else { return SessionSnapshot() }
        return try JSONDecoder().decode(SessionSnapshot.self, from: Data(contentsOf: url))
    }

    public func apply(_ change: StoreChange) throws {
        var snapshot = try load()
        lock.lock(); defer { lock.unlock() }
        snapshot.apply(change)
        try FileManager.default.createDirectory(at: url.deletingLastPathComponent(), withIntermediateDirectories: true)
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.prettyPrinted, .sortedKeys]
        try encoder.encode(snapshot).write(to: url, options: .atomic)
    }
}

/// A store in memory (tests, guests).
public final class MemorySessionStore: SessionStore, @unchecked Sendable {
    private let lock = NSLock()
    private var snapshot: SessionSnapshot
    public init(_ snapshot: SessionSnapshot = SessionSnapshot()) { self.snapshot = snapshot }
    public func load() throws -> SessionSnapshot { lock.lock(); defer { lock.unlock() }; return snapshot }
    public func apply(_ change: StoreChange) throws { lock.lock(); defer { lock.unlock() }; snapshot.apply(change) }
}
