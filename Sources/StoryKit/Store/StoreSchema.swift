import Foundation
import GRDB

/// The versioned schema. Append migrations; never edit a shipped one. Each sets `user_version` to
/// its number so that an older program can tell it faces a newer database.
enum StoreSchema {
    /// The first migration's name: a file whose migration log holds it is storyreader's.
    static let firstMigration = "v1: profiles, PIN, reading log"

    /// - Parameter firstProfileName: the name of the profile a new database starts with ("Reader",
    ///   or the word for it in the language of whoever created it: "Lector").
    /// - Parameter clock: the store's clock, which dates that first profile.
    static func migrator(firstProfileName: String = ChildProfile.defaultProfile.name, clock: WallClock = .system) -> DatabaseMigrator {
        var migrator = DatabaseMigrator()
        migrator.registerMigration(firstMigration) { db in
            try db.create(table: "profile") { t in
                t.autoIncrementedPrimaryKey("id")
                t.column("name", .text).notNull()
                t.column("nameKey", .text).notNull().unique()
                t.column("age", .integer).notNull()
                t.column("interests", .text).notNull()  // JSON array of words
                t.column("voice", .text)
                t.column("rate", .integer).notNull()
                t.column("pitch", .integer).notNull()
                t.column("volume", .integer).notNull()
                t.column("textSize", .text).notNull()
                t.column("motion", .text).notNull()
                t.column("theme", .text).notNull()
                t.column("hints", .boolean).notNull()
                t.column("stepMode", .boolean).notNull()
                t.column("createdAt", .datetime).notNull()
                t.column("updatedAt", .datetime).notNull()
            }
            try db.create(table: "readEvent") { t in
                t.autoIncrementedPrimaryKey("id")
                t.belongsTo("profile", onDelete: .cascade).notNull()
                t.column("storyId", .text).notNull()
                t.column("finishedAt", .datetime).notNull()
            }
            // Covers "read count per story for a profile" without touching the table.
            try db.create(index: "readEvent_profile_story", on: "readEvent", columns: ["profileId", "storyId"])
            try db.create(index: "readEvent_profile_time", on: "readEvent", columns: ["profileId", "finishedAt"])
            try db.create(table: "readingPosition") { t in
                t.belongsTo("profile", onDelete: .cascade).notNull()
                t.column("storyId", .text).notNull()
                t.column("sentenceIndex", .integer).notNull()
                t.column("updatedAt", .datetime).notNull()
                t.primaryKey(["profileId", "storyId"])
            }
            try db.create(table: "favourite") { t in
                t.belongsTo("profile", onDelete: .cascade).notNull()
                t.column("storyId", .text).notNull()
                t.column("createdAt", .datetime).notNull()
                t.primaryKey(["profileId", "storyId"])
            }
            // One row at most: the PIN hash and the wrong-try lockout.
            try db.create(table: "parentalLock") { t in
                t.primaryKey("id", .integer).check { $0 == 1 }
                t.column("algorithm", .text)
                t.column("salt", .blob)
                t.column("hash", .blob)
                t.column("rounds", .integer)
                t.column("blockSize", .integer)
                t.column("parallelism", .integer)
                t.column("failedAttempts", .integer).notNull().defaults(to: 0)
                t.column("lockedUntil", .datetime)
            }
            // The first profile, written with v1's own columns: a migration must not change
            // with the code's later schema (columns added by later migrations get their defaults).
            var first = ChildProfile.defaultProfile
            first.name = firstProfileName
            let now = clock.now()
            try db.execute(
                sql: """
                    INSERT INTO profile (name, nameKey, age, interests, voice, rate, pitch, volume, textSize, motion, theme,
                    hints, stepMode, createdAt, updatedAt) VALUES (?, ?, ?, '[]', ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)
                    """,
                arguments: [
                    first.name, ChildProfile.nameKey(first.name), first.age, first.speech.voice, first.speech.rate,
                    first.speech.pitch, first.speech.volume, first.textSize.rawValue, first.motion.rawValue,
                    first.theme.rawValue, first.hints, first.settings.stepMode, now, now,
                ])
            try db.execute(sql: "PRAGMA user_version = 1")
        }
        migrator.registerMigration("v2: kiosk sessions") { db in
            try StoreSchema.createKioskSessions(db)
            try db.execute(sql: "PRAGMA user_version = 2")
        }
        migrator.registerMigration("v3: reading aids") { db in
            // Reading comfort per child; existing profiles get none of them, as before.
            try db.alter(table: "profile") { t in
                t.add(column: "lineFocus", .text).notNull().defaults(to: LineFocus.off.rawValue)
                t.add(column: "syllables", .boolean).notNull().defaults(to: false)
                t.add(column: "spacing", .text).notNull().defaults(to: TextSpacing.normal.rawValue)
            }
            try db.execute(sql: "PRAGMA user_version = 3")
        }
        migrator.registerMigration("v4: sync outbox") { db in
            try StoreSchema.createSyncTables(db)
            try db.execute(sql: "PRAGMA user_version = 4")
        }
        migrator.registerMigration("v5: site names, the site's PIN log, clock warnings") { db in
            try StoreSchema.createSiteTables(db)
            try db.execute(sql: "PRAGMA user_version = 5")
        }
        migrator.registerMigration("v6: interface language") { db in
            // The language the interface speaks to each child; none (NULL) for existing profiles:
            // they follow their voice's language, else the system's, as before they had a choice.
            try db.alter(table: "profile") { t in
                t.add(column: "interfaceLanguage", .text)
            }
            try db.execute(sql: "PRAGMA user_version = 6")
        }
        migrator.registerMigration("v7: sync changes set aside") { db in
            try StoreSchema.createSetAsideTable(db)
            try db.execute(sql: "PRAGMA user_version = 7")
        }
        migrator.registerMigration("v8: braille code per child") { db in
            // Existing profiles read uncontracted braille, the code children learn first.
            try db.alter(table: "profile") { t in
                t.add(column: "brailleCode", .text).notNull().defaults(to: BrailleCode.standard.rawValue)
            }
            try db.execute(sql: "PRAGMA user_version = 8")
        }
        migrator.registerMigration("v9: hint verbosity per child") { db in
            // Full, short or off; `hints` stays (on unless off) for kiosks of a site not yet updated.
            try db.alter(table: "profile") { t in
                t.add(column: "hintVerbosity", .text).notNull().defaults(to: HintVerbosity.full.rawValue)
            }
            try db.execute(sql: "UPDATE profile SET hintVerbosity = 'off' WHERE hints = 0")
            try db.execute(sql: "PRAGMA user_version = 9")
        }
        migrator.registerMigration("v10: recorded narration per child") { db in
            // Existing profiles hear a book's recording where it has one, at its own pace.
            try db.alter(table: "profile") { t in
                t.add(column: "narration", .text).notNull().defaults(to: NarrationSource.recording.rawValue)
                t.add(column: "recordingTempo", .double).notNull().defaults(to: 1.0)
            }
            try db.execute(sql: "PRAGMA user_version = 10")
        }
        migrator.registerMigration("v11: a bedtime timer per child") { db in
            // Off for every existing profile: a parent sets it (issue 46).
            try db.alter(table: "profile") { t in
                t.add(column: "bedtime", .text).notNull().defaults(to: Bedtime.off.text)
            }
            try db.execute(sql: "PRAGMA user_version = 11")
        }
        migrator.registerMigration("v12-coach") { db in
            // The read-along coach (issue 45): each child's wait in a silence (3 s for every
            // existing profile), and the coached reads kept per child — what was read by the child,
            // what the coach helped with and what was passed over; never any audio.
            try db.alter(table: "profile") { t in
                t.add(column: "coachWait", .integer).notNull().defaults(to: CoachWait.standard)
            }
            try db.create(table: "coachedRead") { t in
                t.autoIncrementedPrimaryKey("id")
                t.belongsTo("profile", onDelete: .cascade).notNull()
                t.column("storyId", .text).notNull()
                t.column("finishedAt", .datetime).notNull()
                t.column("wordsRead", .integer).notNull()
                t.column("wordsHelped", .integer).notNull()
                t.column("wordsSkipped", .integer).notNull()
                // The change's id on the site (a coached read is an event, like a finished read).
                t.column("syncId", .text).notNull().unique()
            }
            try db.create(index: "coachedRead_profile_time", on: "coachedRead", columns: ["profileId", "finishedAt"])
            try db.execute(sql: "PRAGMA user_version = 12")
        }
        migrator.registerMigration("v13-bookmarks") { db in
            // A child's marked places (issue 46): the word, its sentence, the word as written (the
            // list names it without the story) and a note. The id is the bookmark's on every kiosk.
            try db.create(table: "bookmark") { t in
                t.primaryKey("id", .text)
                t.belongsTo("profile", onDelete: .cascade).notNull()
                t.column("storyId", .text).notNull()
                t.column("wordIndex", .integer).notNull()
                t.column("sentenceIndex", .integer).notNull()
                t.column("word", .text).notNull()
                t.column("note", .text)
                t.column("createdAt", .datetime).notNull()
            }
            try db.create(index: "bookmark_profile_story", on: "bookmark", columns: ["profileId", "storyId"])
            try db.execute(sql: "PRAGMA user_version = 13")
        }
        return migrator
    }
}
