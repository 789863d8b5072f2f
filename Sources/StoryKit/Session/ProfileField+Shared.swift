import Foundation

/// The profile form's fields over the site's log, where each field is the text a kiosk's SQLite
/// stores (``StoryStore/syncedProfileFields``): what the site server's web page shows and offers,
/// with the same choices, ranges and checks as a kiosk's form, so both write the same values.
extension ProfileField {
    private static let defaultTexts = ProfileForm.texts(of: .defaultProfile)

    /// The range of a number field (typed as a number, checked against it), else nil.
    public var numberRange: ClosedRange<Int>? {
        switch self {
        case .age: ProfileValidation.ageRange
        case .rate: SpeechSettings.rateRange
        case .pitch: SpeechSettings.pitchRange
        case .volume: SpeechSettings.volumeRange
        default: nil
        }
    }

    /// The values offered by a picker of stored text: the form's choices, and for the voice the
    /// voices every eSpeak NG has (the server knows no kiosk's installed list), "" first for the
    /// story's own language.
    public var sharedChoices: [String]? {
        self == .voice ? Screens.voices.map { $0 ?? "" } : choices
    }

    /// How a choice is shown: a voice by its language's own name, the coach's wait in seconds
    /// ("3 seconds"), anything else as the kiosk's form shows it.
    public func choiceLabel(_ choice: String, messages: MessageCatalog) -> String {
        switch self {
        case .voice: Screens.voiceName(choice, messages: messages)
        case .coachWait: Screens.choiceName(choice, field: self, messages: messages)
        default: choice
        }
    }

    /// The field's text as the form shows it, from the stored fields of one child (nil: unset).
    public func formText(stored: [String: String?]) -> String {
        // A field no kiosk has sent yet (a kiosk older than the field) holds the new profile's value.
        guard let held = stored[rawValue] else { return Self.defaultTexts[self] ?? "" }
        let value = held ?? ""
        switch self {
        case .interests:
            return ((try? JSONDecoder().decode([String].self, from: Data(value.utf8))) ?? []).joined(separator: ", ")
        case .hints:
            // Hints off is also said by the older on/off column alone.
            if value == "0" { return HintVerbosity.off.rawValue }
            return (stored["hintVerbosity"] ?? nil) ?? HintVerbosity.full.rawValue
        case .stepMode, .syllables:
            return ProfileValidation.toggleText(value == "1")
        case .recordingTempo:
            return RecordingTempo.parse(value).map(RecordingTempo.text) ?? value
        default:
            return value
        }
    }

    /// The stored fields a typed text sets, checked by the form's rules; each value is the text a
    /// kiosk's SQLite would store for it (what ``SyncValidation`` takes).
    public func storedValues(_ text: String) throws(ProfileProblem) -> [String: String?] {
        let stored: String?
        switch self {
        case .age: stored = String(try ProfileValidation.age(text))
        case .interests:
            let words = try ProfileValidation.interests(text)
            stored = String(decoding: (try? JSONEncoder().encode(words)) ?? Data("[]".utf8), as: UTF8.self)
        case .voice: stored = try ProfileValidation.voice(text)
        case .rate, .pitch, .volume: stored = String(try ProfileValidation.number(text, field: self, range: numberRange ?? 0...0))
        case .textSize: stored = try ProfileValidation.textSize(text).rawValue
        case .motion: stored = try ProfileValidation.motion(text).rawValue
        case .theme: stored = try ProfileValidation.theme(text).rawValue
        case .hints:
            let verbosity = try ProfileValidation.hintVerbosity(text)
            return ["hintVerbosity": verbosity.rawValue, "hints": verbosity == .off ? "0" : "1"]
        case .stepMode, .syllables: stored = try ProfileValidation.toggle(text, field: self) ? "1" : "0"
        case .lineFocus: stored = try ProfileValidation.lineFocus(text).rawValue
        case .spacing: stored = try ProfileValidation.spacing(text).rawValue
        case .brailleCode: stored = try ProfileValidation.brailleCode(text).rawValue
        case .narration: stored = try ProfileValidation.narration(text).rawValue
        // A Double column, as a kiosk's SQLite gives it back ("1.0", "1.25").
        case .recordingTempo: stored = String(try ProfileValidation.recordingTempo(text))
        case .bedtime: stored = try ProfileValidation.bedtime(text).text
        case .coachWait: stored = String(try ProfileValidation.coachWait(text))
        case .name, .language, .save, .cancel: return [:]
        }
        return [rawValue: stored]
    }
}
