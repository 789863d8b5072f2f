import Foundation
import GRDB
import StoryKitTestSupport
import Testing

@testable import StoryKit

/// Issue 44: the site server's web page edits a child's profile as the stored text of the site's
/// log; it must show what a kiosk's form shows and write what a kiosk writes.
@Suite struct SharedProfileFieldTests {
    /// A profile with no default left, as a kiosk stores it.
    func storedFields(of profile: ChildProfile) throws -> [String: String?] {
        let database = try TemporaryDatabase("shared-fields")
        defer { database.remove() }
        let store = try database.open()
        let added = try store.addProfile(profile, authorization: store.authorize(pin: nil))
        let row = try #require(try store.read { db in try Row.fetchOne(db, sql: "SELECT * FROM profile WHERE id = ?", arguments: [added.id]) })
        return StoryStore.syncedFields(of: row)
    }

    static func unusual() -> ChildProfile {
        var settings = ReadingSettings.default
        settings.speech = SpeechSettings(rate: 210, pitch: 35, volume: 60, voice: "fr")
        settings.textSize = .accessibility2
        settings.motion = .on
        settings.theme = ThemeName.allCases.last!
        settings.hintVerbosity = .short
        settings.stepMode = true
        settings.aids = ReadingAids(lineFocus: .three, syllables: true, spacing: .wide)
        settings.brailleCode = BrailleCode.allCases.last!
        settings.narration = .synthetic
        settings.recordingTempo = 1.25
        settings.bedtime = .minutes(20)
        settings.coachWaitSeconds = 6
        return ChildProfile(name: "Mia", age: 7, interests: ["dragons", "space"], settings: settings)
    }

    @Test func eachSharedFieldShowsWhatTheKiosksFormShowsAndWritesBackWhatTheKioskStored() throws {
        for profile in [Self.unusual(), ChildProfile(name: "Leo", age: 4)] {
            let stored = try storedFields(of: profile)
            let kioskTexts = ProfileForm.texts(of: profile)
            #expect(
                !ProfileField.shared.contains(.name) && ProfileField.shared.contains(.hints) && ProfileField.shared.contains(.recordingTempo)
                    && ProfileField.shared.contains(.bedtime) && ProfileField.shared.contains(.coachWait))
            for field in ProfileField.shared {
                let text = field.formText(stored: stored)
                #expect(text == kioskTexts[field], "\(field)")
                // The picker offers the current value, the number is within its range.
                if let choices = field.sharedChoices { #expect(choices.contains(text), "\(field): \(text) in \(choices)") }
                if let range = field.numberRange { #expect(Int(text).map(range.contains) == true, "\(field)") }
                let values = try field.storedValues(text)
                for (name, value) in values {
                    #expect(value == stored[name] ?? nil, "\(field) writes \(name)")
                    let change = SyncChange(
                        hlc: HLCTimestamp(millis: 1_800_000_000_000, node: "web"), body: .profileField(profile: UUID(), field: name, value: value))
                    #expect(SyncValidation.problem(with: change, nowMillis: 1_800_000_000_000) == nil, "\(name)")
                }
            }
        }
    }

    @Test func hintsOffWritesBothColumnsAndABadChoiceIsTheFormsProblem() throws {
        #expect(try ProfileField.hints.storedValues("off") == ["hintVerbosity": "off", "hints": "0"])
        #expect(try ProfileField.hints.storedValues("short") == ["hintVerbosity": "short", "hints": "1"])
        #expect(ProfileField.hints.formText(stored: ["hints": "0", "hintVerbosity": "full"]) == "off")
        #expect(try ProfileField.interests.storedValues("cats, Space") == ["interests": #"["cats","space"]"#])
        #expect(throws: ProfileProblem.self) { try ProfileField.theme.storedValues("plaid") }
        #expect(throws: ProfileProblem.self) { try ProfileField.rate.storedValues("100000") }
        #expect(ProfileField.voice.sharedChoices?.first == "")
        // A field no kiosk sent yet shows what a new profile has.
        #expect(ProfileField.theme.formText(stored: [:]) == ThemeName.default.rawValue)
        #expect(ProfileField.rate.formText(stored: [:]) == String(ChildProfile.defaultProfile.settings.speech.rate))
        #expect(ProfileField.voice.choiceLabel("", messages: .english) == "the story's language")
    }
}
