import Foundation
import GRDB

/// What removing a profile removes with it.
public struct ProfileRemoval: Sendable, Hashable, Codable {
    public var name: String
    public var reads: Int
    public var positions: Int
    public var favourites: Int

    /// "Mia's profile, 12 finished reads, 2 reading positions and 3 favourites".
    public var description: String { localized(.english) }

    /// The summary in the language of `messages`.
    public func localized(_ messages: MessageCatalog) -> String {
        messages.tr(
            "{name}'s profile and settings, {reads}, {positions} and {favourites}",
            [
                "name": name,
                "reads": messages.trn("{count} finished read", "{count} finished reads", reads),
                "positions": messages.trn("{count} reading position", "{count} reading positions", positions),
                "favourites": messages.trn("{count} favourite", "{count} favourites", favourites),
            ])
    }
}

extension StoryStore {
    /// Every profile, ordered by name ignoring case.
    public func profiles() throws(StoreError) -> [ChildProfile] {
        try read { db in try GRDB.Row.fetchAll(db, sql: "SELECT * FROM profile ORDER BY nameKey").compactMap(profile(from:)) }
    }

    /// The profile with this name (ignoring case), if any.
    public func profile(named name: String) throws(StoreError) -> ChildProfile? {
        let key = ChildProfile.nameKey(name.trimmingCharacters(in: .whitespaces))
        return try read { db in
            try GRDB.Row.fetchOne(db, sql: "SELECT * FROM profile WHERE nameKey = ?", arguments: [key]).flatMap(profile(from:))
        }
    }

    /// The profile with this name, or ``StoreError/profileNotFound(name:)``.
    public func requireProfile(named name: String) throws(StoreError) -> ChildProfile {
        guard let profile = try profile(named: name) else { throw .profileNotFound(name: Sanitizer.sanitizeLine(name)) }
        return profile
    }

    public func profile(id: Int64) throws(StoreError) -> ChildProfile? {
        try read { db in try GRDB.Row.fetchOne(db, sql: "SELECT * FROM profile WHERE id = ?", arguments: [id]).flatMap(profile(from:)) }
    }

    /// Adds a profile after checking every field and that its name is free.
    ///
    /// - Throws: ``StoreError/invalidProfile(_:)`` naming each bad field; nothing is saved then.
    @discardableResult
    public func addProfile(_ profile: ChildProfile, authorization: ParentalAuthorization) throws(StoreError) -> ChildProfile {
        try check(authorization)
        let now = clock.now()
        // Made once, outside the write: a joined kiosk runs it twice (a trial, then for real).
        let syncID = UUID()
        let insert = { (db: Database) throws -> Result<ChildProfile, StoreError> in
            let others = try String.fetchAll(db, sql: "SELECT name FROM profile")
            let problems = profile.problems(existingNames: others)
            if !problems.isEmpty { return .failure(.invalidProfile(problems)) }
            var saved = profile
            let id = try Self.insertProfile(profile, in: db, at: now)
            saved.id = id
            try db.execute(sql: "UPDATE profile SET syncId = ? WHERE id = ?", arguments: [syncID.uuidString, id])
            if let row = try GRDB.Row.fetchOne(db, sql: "SELECT * FROM profile WHERE id = ?", arguments: [id]) {
                try Self.enqueue(Self.fieldChanges(profile: syncID, from: nil, to: row), in: db, at: now)
            }
            return .success(saved)
        }
        return try writeAgreed(.addProfile, insert)
    }

    /// Replaces the stored profile with the same id.
    @discardableResult
    public func updateProfile(_ profile: ChildProfile, authorization: ParentalAuthorization) throws(StoreError) -> ChildProfile {
        try check(authorization)
        guard let id = profile.id else { throw .profileNotFound(name: profile.name) }
        let now = clock.now()
        // A new name (not only new case or accents) must be free on the whole site: renaming asks
        // the server on a joined kiosk; other fields are last-writer-wins and work offline.
        let oldKey = try read { db in try String.fetchOne(db, sql: "SELECT nameKey FROM profile WHERE id = ?", arguments: [id]) }
        let renaming = oldKey != nil && oldKey != ChildProfile.nameKey(profile.name)
        let update = { (db: Database) throws -> Result<ChildProfile, StoreError> in
            let others = try String.fetchAll(db, sql: "SELECT name FROM profile WHERE id <> ?", arguments: [id])
            let problems = profile.problems(existingNames: others)
            if !problems.isEmpty { return .failure(.invalidProfile(problems)) }
            let before = try GRDB.Row.fetchOne(db, sql: "SELECT * FROM profile WHERE id = ?", arguments: [id])
            var arguments = Self.arguments(of: profile)
            arguments += ["updatedAt": now, "id": id]
            try db.execute(
                sql: """
                    UPDATE profile SET name = :name, nameKey = :nameKey, age = :age, interests = :interests, voice = :voice,
                    rate = :rate, pitch = :pitch, volume = :volume, textSize = :textSize, motion = :motion, theme = :theme,
                    hints = :hints, hintVerbosity = :hintVerbosity, stepMode = :stepMode, lineFocus = :lineFocus, syllables = :syllables, spacing = :spacing,
                    interfaceLanguage = :interfaceLanguage, brailleCode = :brailleCode, narration = :narration, recordingTempo = :recordingTempo, bedtime = :bedtime, coachWait = :coachWait, siteName = CASE WHEN name = :name THEN siteName END,
                    updatedAt = :updatedAt WHERE id = :id
                    """, arguments: arguments)
            if db.changesCount == 0 { return .failure(.profileNotFound(name: profile.name)) }
            // Only the fields that changed travel: another kiosk's edit of another field survives.
            if let after = try GRDB.Row.fetchOne(db, sql: "SELECT * FROM profile WHERE id = ?", arguments: [id]),
                let syncID = UUID(uuidString: after["syncId"] ?? "")
            {
                try Self.enqueue(Self.fieldChanges(profile: syncID, from: before, to: after), in: db, at: now)
            }
            return .success(profile)
        }
        if renaming { return try writeAgreed(.renameProfile, update) }
        return try write(update).get()
    }

    /// What removing the profile would remove.
    public func removalSummary(of profile: ChildProfile) throws(StoreError) -> ProfileRemoval {
        guard let id = profile.id else { throw .profileNotFound(name: profile.name) }
        return try read { db in try Self.summary(id: id, name: profile.name, in: db) }
    }

    /// Removes a profile with every read, position and favourite it had. The last profile stays.
    @discardableResult
    public func removeProfile(_ profile: ChildProfile, authorization: ParentalAuthorization) throws(StoreError) -> ProfileRemoval {
        try check(authorization)
        guard let id = profile.id else { throw .profileNotFound(name: profile.name) }
        let now = clock.now()
        let remove = { (db: Database) throws -> Result<ProfileRemoval, StoreError> in
            guard try Bool.fetchOne(db, sql: "SELECT 1 FROM profile WHERE id = ?", arguments: [id]) != nil else {
                return .failure(.profileNotFound(name: profile.name))
            }
            if try Int.fetchOne(db, sql: "SELECT COUNT(*) FROM profile") ?? 0 <= 1 {
                return .failure(.lastProfile(name: profile.name))
            }
            let summary = try Self.summary(id: id, name: profile.name, in: db)
            // Explicit deletes (not only ON DELETE CASCADE) so nothing of the child stays behind
            // even if foreign keys were ever off for this connection.
            for table in ["readEvent", "readingPosition", "favourite", "bookmark"] {
                try db.execute(sql: "DELETE FROM \(table) WHERE profileId = ?", arguments: [id])
            }
            if let syncID = try Self.profileSyncID(id, in: db) {
                try db.execute(sql: "INSERT OR IGNORE INTO syncTombstone (profile) VALUES (?)", arguments: [syncID.uuidString])
                try Self.enqueue([.profileRemoved(profile: syncID)], in: db, at: now)
            }
            try db.execute(sql: "DELETE FROM profile WHERE id = ?", arguments: [id])
            return .success(summary)
        }
        return try writeAgreed(.removeProfile, remove)
    }

    // MARK: - Rows

    static func summary(id: Int64, name: String, in db: Database) throws -> ProfileRemoval {
        func count(_ table: String) throws -> Int {
            try Int.fetchOne(db, sql: "SELECT COUNT(*) FROM \(table) WHERE profileId = ?", arguments: [id]) ?? 0
        }
        return ProfileRemoval(name: name, reads: try count("readEvent"), positions: try count("readingPosition"), favourites: try count("favourite"))
    }

    static func arguments(of profile: ChildProfile) -> StatementArguments {
        let settings = profile.settings
        let interests = (try? String(decoding: JSONEncoder().encode(profile.interests), as: UTF8.self)) ?? "[]"
        return [
            "name": profile.name, "nameKey": ChildProfile.nameKey(profile.name), "age": profile.age, "interests": interests,
            "voice": settings.speech.voice, "rate": settings.speech.rate, "pitch": settings.speech.pitch,
            "volume": settings.speech.volume, "textSize": settings.textSize.rawValue, "motion": settings.motion.rawValue,
            "theme": settings.theme.rawValue, "hints": settings.hints, "hintVerbosity": settings.hintVerbosity.rawValue, "stepMode": settings.stepMode,
            "lineFocus": settings.aids.lineFocus.rawValue, "syllables": settings.aids.syllables, "spacing": settings.aids.spacing.rawValue,
            "interfaceLanguage": settings.interfaceLanguage, "brailleCode": settings.brailleCode.rawValue,
            "narration": settings.narration.rawValue, "recordingTempo": settings.recordingTempo, "bedtime": settings.bedtime.text,
            "coachWait": settings.coachWaitSeconds,
        ]
    }

    @discardableResult
    static func insertProfile(_ profile: ChildProfile, in db: Database, at date: Date) throws -> Int64 {
        var arguments = arguments(of: profile)
        arguments += ["createdAt": date, "updatedAt": date]
        try db.execute(
            sql: """
                INSERT INTO profile (name, nameKey, age, interests, voice, rate, pitch, volume, textSize, motion, theme,
                hints, hintVerbosity, stepMode, lineFocus, syllables, spacing, interfaceLanguage, brailleCode, narration, recordingTempo, bedtime, coachWait, createdAt, updatedAt) VALUES (:name, :nameKey, :age,
                :interests, :voice, :rate, :pitch, :volume, :textSize, :motion, :theme, :hints, :hintVerbosity, :stepMode, :lineFocus, :syllables,
                :spacing, :interfaceLanguage, :brailleCode, :narration, :recordingTempo, :bedtime, :coachWait, :createdAt, :updatedAt)
                """, arguments: arguments)
        return db.lastInsertedRowID
    }

    /// The profile a row holds, never trapping: a field that cannot be read back (a row pulled
    /// before pulled changes were checked) takes its default and is reported; a row without a
    /// readable id or name is reported and skipped. The name is sanitized: it may have come from
    /// another machine, and it is printed and spoken.
    func profile(from row: GRDB.Row) -> ChildProfile? {
        damagedRows.decoding(row, table: "profile") { row in
            let id: Int64 = try row.decode(forColumn: "id")
            let name = Sanitizer.sanitizeLine(try row.decode(String.self, forColumn: "name"))
            func field<T: DatabaseValueConvertible>(_ column: String, _ fallback: T) -> T {
                do {
                    return try row.decode(T.self, forColumn: column)
                } catch {
                    damagedRows.report(DamagedRow(table: "profile", rowID: id, reason: "\(column): \(String(describing: error).prefix(300))"))
                    return fallback
                }
            }
            let defaults = ChildProfile.defaultProfile
            let interestsText = field("interests", String?.none) ?? "[]"
            let interests = (try? JSONDecoder().decode([String].self, from: Data(interestsText.utf8))) ?? []
            // Values are checked on the way in; unknown names (from a hand-edited file) fall back to defaults.
            let speech = SpeechSettings(
                rate: field("rate", defaults.speech.rate), pitch: field("pitch", defaults.speech.pitch),
                volume: field("volume", defaults.speech.volume), voice: field("voice", String?.none))
            let settings = ReadingSettings(
                speech: speech.clamped().settings,
                textSize: TextSizePreset(rawValue: field("textSize", String?.none) ?? "") ?? .default,
                motion: MotionPreference(rawValue: field("motion", String?.none) ?? "") ?? .auto,
                theme: ThemeName(rawValue: field("theme", String?.none) ?? "") ?? .default,
                hints: field("hints", defaults.settings.hints), stepMode: field("stepMode", defaults.settings.stepMode),
                aids: ReadingAids(
                    lineFocus: LineFocus(rawValue: field("lineFocus", String?.none) ?? "") ?? .off,
                    syllables: field("syllables", Bool?.none) ?? false,
                    spacing: TextSpacing(rawValue: field("spacing", String?.none) ?? "") ?? .normal),
                // `hints` says on or off (a kiosk not yet updated syncs only it), this column how many.
                hintVerbosity: HintVerbosity(rawValue: field("hintVerbosity", String?.none) ?? "").flatMap { $0 == .off ? nil : $0 })
            var withLanguage = settings
            // A language no catalog knows (a hand-edited file) is no choice: the default applies.
            withLanguage.interfaceLanguage = field("interfaceLanguage", String?.none).flatMap(InterfaceLanguage.code(of:))
            withLanguage.brailleCode = BrailleCode(rawValue: field("brailleCode", String?.none) ?? "") ?? .standard
            withLanguage.narration = NarrationSource(rawValue: field("narration", String?.none) ?? "") ?? .recording
            // A tempo out of range (a hand-edited file) is no tempo: the recording's own pace.
            withLanguage.recordingTempo = field("recordingTempo", Double?.none).flatMap { RecordingTempo.range.contains($0) ? $0 : nil } ?? 1
            // A bedtime no one could type (a hand-edited file) is no timer.
            withLanguage.bedtime = Bedtime(loose: field("bedtime", String?.none) ?? "") ?? .off
            // So is a wait out of the coach's range.
            withLanguage.coachWaitSeconds = field("coachWait", Int?.none).flatMap { CoachWait.range.contains($0) ? $0 : nil } ?? CoachWait.standard
            return ChildProfile(id: id, name: name, age: field("age", defaults.age), interests: interests, settings: withLanguage)
        }
    }
}
