import Foundation

/// What a profile has done with one story, as the session shows it.
public struct ReadingRecord: Sendable, Hashable, Codable {
    public var readCount: Int = 0
    public var isFavourite: Bool = false
    /// The sentence to resume from (an index into `Story.sentences`), when reading stopped midway.
    /// The session turns it into the first word of that sentence when it resumes.
    public var sentenceIndex: Int?
    /// The word (an index into `Story.words`) where reading stopped in this run: going on starts
    /// there, not at the sentence's start. Kept in memory only; the store keeps the sentence.
    public var wordIndex: Int?
    /// Reads aloud with the coach, counted apart from the finished reads (`readCount`).
    public var coachedCount: Int = 0
    public init(readCount: Int = 0, isFavourite: Bool = false, sentenceIndex: Int? = nil, coachedCount: Int = 0) {
        self.readCount = readCount
        self.isFavourite = isFavourite
        self.sentenceIndex = sentenceIndex
        self.coachedCount = coachedCount
    }
}

/// Everything the session loads at start (from ``StoryStore/sessionSnapshot()``).
public struct SessionSnapshot: Sendable, Hashable {
    public var profiles: [ChildProfile]
    /// profile name → story id → record.
    public var readings: [String: [String: ReadingRecord]]
    public var pinIsSet: Bool
    /// profile name → the story left midway most recently (what "welcome back" offers).
    public var inProgress: [String: String]
    /// profile name → the child's bookmarks, by story and word.
    public var bookmarks: [String: [Bookmark]]

    public init(
        profiles: [ChildProfile] = [], readings: [String: [String: ReadingRecord]] = [:], pinIsSet: Bool = false,
        inProgress: [String: String] = [:], bookmarks: [String: [Bookmark]] = [:]
    ) {
        self.profiles = profiles
        self.readings = readings
        self.pinIsSet = pinIsSet
        self.inProgress = inProgress
        self.bookmarks = bookmarks
    }
}

/// What the store answered to a change, fed back to the session as `Input.stored`.
public enum StoreReply: Sendable, Hashable {
    /// The profile as stored (with its id).
    case profileSaved(ChildProfile)
    /// The read was recorded: the profile's read count of the story, this read included.
    case readRecorded(story: String, count: Int)
    /// Nothing was saved: the store's message, which says what to do.
    case failed(StoreChange, message: String)
    /// The database cannot be written now (the store's message says why), but the change is kept
    /// and the next start that can write it will (see `PendingChanges`).
    case kept(StoreChange, message: String)
}

extension SessionSnapshot {
    /// The name readings are kept under for the profile with this id.
    func name(ofProfile id: Int64) -> String? { profiles.first { $0.id == id }?.name }

    /// Applies a change to the snapshot (what the store does, in memory, so the screen shows it at
    /// once). A saved profile without an id is matched by name.
    public mutating func apply(_ change: StoreChange) {
        switch change {
        case .saveProfile(let profile), .saveSettings(let profile):
            replace(profile)
        case .recordFinished(let id, let story):
            guard let name = name(ofProfile: id) else { return }
            readings[name, default: [:]][story, default: ReadingRecord()].readCount += 1
            readings[name, default: [:]][story]?.sentenceIndex = nil
            if inProgress[name] == story { inProgress[name] = nil }
        case .savePosition(let id, let story, let sentence):
            guard let name = name(ofProfile: id) else { return }
            readings[name, default: [:]][story, default: ReadingRecord()].sentenceIndex = sentence
            inProgress[name] = story
        case .setFavourite(let id, let story, let value):
            guard let name = name(ofProfile: id) else { return }
            readings[name, default: [:]][story, default: ReadingRecord()].isFavourite = value
        case .saveBookmark(let id, let bookmark):
            guard let name = name(ofProfile: id) else { return }
            Bookmark.put(bookmark, into: &bookmarks[name, default: []])
        case .removeBookmark(let id, let bookmark):
            guard let name = name(ofProfile: id) else { return }
            bookmarks[name]?.removeAll { $0.id == bookmark }
        case .recordCoachedRead(let id, let story, _):
            // Counted apart from the finished reads (the library's card shows both).
            guard let name = name(ofProfile: id) else { return }
            readings[name, default: [:]][story, default: ReadingRecord()].coachedCount += 1
        }
    }

    /// Puts `profile` in place of the one with its id (or, without an id, its name), moving its
    /// readings when it was renamed; adds it when it is new. Returns the old name.
    @discardableResult
    public mutating func replace(_ profile: ChildProfile) -> String? {
        let key = ChildProfile.nameKey(profile.name)
        let index =
            profile.id.flatMap { id in profiles.firstIndex { $0.id == id } }
            ?? profiles.firstIndex { ChildProfile.nameKey($0.name) == key }
        guard let index else {
            profiles.append(profile)
            profiles.sort { ChildProfile.nameKey($0.name) < ChildProfile.nameKey($1.name) }
            return nil
        }
        let old = profiles[index].name
        profiles[index] = profile
        if old != profile.name, let moved = readings.removeValue(forKey: old) { readings[profile.name] = moved }
        if old != profile.name, let story = inProgress.removeValue(forKey: old) { inProgress[profile.name] = story }
        if old != profile.name, let marks = bookmarks.removeValue(forKey: old) { bookmarks[profile.name] = marks }
        return old
    }
}

// MARK: - The store behind the session

extension StoryStore {
    /// Every profile, the PIN state, and each profile's read counts, favourites and positions.
    public func sessionSnapshot() throws(StoreError) -> SessionSnapshot {
        let profiles = try profiles()
        var readings: [String: [String: ReadingRecord]] = [:]
        var inProgress: [String: String] = [:]
        var bookmarks: [String: [Bookmark]] = [:]
        for profile in profiles {
            guard let id = profile.id else { continue }
            inProgress[profile.name] = try latestPosition(profileID: id)
            let marks = try self.bookmarks(profileID: id)
            if !marks.isEmpty { bookmarks[profile.name] = marks }
            let progress = try progress(profileID: id)
            if progress.isEmpty { continue }
            readings[profile.name] = progress.mapValues {
                ReadingRecord(readCount: $0.readCount, isFavourite: $0.isFavourite, sentenceIndex: $0.sentenceIndex, coachedCount: $0.coachedCount)
            }
        }
        var snapshot = SessionSnapshot(
            profiles: profiles, readings: readings, pinIsSet: try isPINSet(), inProgress: inProgress, bookmarks: bookmarks)
        // What is kept for a later start counts already (a second session on a full disk).
        for (change, _) in pending.load() { snapshot.apply(change) }
        return snapshot
    }

    /// Keeps a change the session asked for.
    ///
    /// - Parameter authorization: the parent's, for profile and settings changes (obtained when
    ///   the PIN was typed for this visit); without one they succeed only while no PIN is set.
    /// - Returns: what to tell the session, or `nil` when there is nothing to tell.
    public func apply(_ change: StoreChange, authorization: ParentalAuthorization?) -> StoreReply? {
        do {
            switch change {
            case .saveProfile(let profile), .saveSettings(let profile):
                let authorization = try authorization ?? authorize(pin: nil)
                let saved =
                    profile.id == nil
                    ? try addProfile(profile, authorization: authorization)
                    : try updateProfile(profile, authorization: authorization)
                if case .saveSettings = change { return nil }
                return .profileSaved(saved)
            case .recordFinished(let id, let story):
                return .readRecorded(story: story, count: try recordFinishedRead(profileID: id, storyID: story))
            case .savePosition(let id, let story, let sentence):
                try setPosition(profileID: id, storyID: story, sentenceIndex: sentence)
            case .setFavourite(let id, let story, let value):
                if try isFavourite(profileID: id, storyID: story) != value { try toggleFavourite(profileID: id, storyID: story) }
            case .saveBookmark(let id, let bookmark):
                try saveBookmark(bookmark, profileID: id)
            case .removeBookmark(let id, let bookmark):
                try removeBookmark(id: bookmark, profileID: id)
            case .recordCoachedRead(let id, let story, let tally):
                try recordCoachedRead(profileID: id, storyID: story, tally: tally)
            }
            return nil
        } catch {
            let message = (error as? StoreError)?.description ?? "\(error)"
            if let error = error as? StoreError, Self.cannotWrite(error), pending.keep(change, at: clock.now()) {
                return .kept(change, message: message)
            }
            return .failed(change, message: message)
        }
    }
}

/// Direct access to a profile's reading settings (they live in `settings`).
extension ChildProfile {
    public var speech: SpeechSettings {
        get { settings.speech }
        set { settings.speech = newValue }
    }
    public var textSize: TextSizePreset {
        get { settings.textSize }
        set { settings.textSize = newValue }
    }
    public var theme: ThemeName {
        get { settings.theme }
        set { settings.theme = newValue }
    }
    public var motion: MotionPreference {
        get { settings.motion }
        set { settings.motion = newValue }
    }
    public var hints: Bool {
        get { settings.hints }
        set { settings.hints = newValue }
    }

    /// Settings used before anyone picks a profile ("Read without a profile"): never saved.
    public static let guest = ChildProfile(name: "Guest", age: ChildProfile.defaultProfile.age)
}
