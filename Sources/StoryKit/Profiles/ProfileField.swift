/// The fields of the profile form, in focus order, followed by the Save and Cancel buttons.
public enum ProfileField: String, Sendable, Hashable, Codable, CaseIterable {
    case name, age, interests
    case voice, rate, pitch, volume, textSize, motion, theme, hints, stepMode
    case lineFocus, syllables, spacing
    case save, cancel

    /// The fields that hold a value (everything but the two buttons), in focus order.
    public static let inputs: [ProfileField] = allCases.filter(\.isInput)

    public var isInput: Bool { self != .save && self != .cancel }

    /// The short name shown and spoken for the field.
    public var label: String {
        switch self {
        case .name: "Name"
        case .age: "Age"
        case .interests: "Interests"
        case .voice: "Voice"
        case .rate: "Rate"
        case .pitch: "Pitch"
        case .volume: "Volume"
        case .textSize: "Text size"
        case .motion: "Reduced motion"
        case .theme: "Theme"
        case .hints: "Hints"
        case .stepMode: "Step mode"
        case .lineFocus: "Line focus"
        case .syllables: "Syllables"
        case .spacing: "Spacing"
        case .save: "Save"
        case .cancel: "Cancel"
        }
    }

    /// What the field is for, in a parent's words.
    public var hint: String {
        switch self {
        case .name: "the name shown and spoken to your child"
        case .age: "your child's age in years, to suggest stories that fit"
        case .interests: "what your child likes, to suggest stories; for example \(Interests.known.prefix(8).joined(separator: ", "))"
        case .voice: "the eSpeak voice that reads, such as en, en-us, es, fr, de or en+f3; empty for each story's own language"
        case .rate: "how fast stories are read, in words per minute"
        case .pitch: "how high the voice is"
        case .volume: "how loud the voice is"
        case .textSize: "how big the story text is drawn"
        case .motion: "whether animations are reduced; auto follows the terminal"
        case .theme: "the colours of the screen"
        case .hints: "whether short spoken tips about keys are given"
        case .stepMode: "whether reading waits for a key after each sentence"
        case .lineFocus: "how many lines around the word being read are shown in full; the others are dimmed"
        case .syllables: "whether words are shown split into syllables, like but·ter·fly (the voice is unchanged)"
        case .spacing: "wide puts more space between words and a blank line between lines"
        case .save: "saves the profile when every field is valid"
        case .cancel: "leaves the form without saving"
        }
    }

    /// What a valid value looks like.
    public var constraint: String {
        switch self {
        case .name: "1 to 40 characters, not used by another profile"
        case .age: "a whole number from \(ProfileValidation.ageRange.lowerBound) to \(ProfileValidation.ageRange.upperBound)"
        case .interests: "up to \(Interests.maximumCount) words separated by commas"
        case .voice: "a language code with an optional variant, or empty"
        case .rate: "\(SpeechSettings.rateRange.lowerBound) to \(SpeechSettings.rateRange.upperBound)"
        case .pitch: "\(SpeechSettings.pitchRange.lowerBound) to \(SpeechSettings.pitchRange.upperBound)"
        case .volume: "\(SpeechSettings.volumeRange.lowerBound) to \(SpeechSettings.volumeRange.upperBound)"
        case .textSize: "one of " + TextSizePreset.allCases.map(\.rawValue).joined(separator: ", ")
        case .motion: "on, off or auto"
        case .theme: "one of " + ThemeName.allCases.map(\.rawValue).joined(separator: ", ")
        case .hints, .stepMode, .syllables: "on or off"
        case .lineFocus: "off, 1, 3 or 5"
        case .spacing: "normal or wide"
        case .save, .cancel: "a button"
        }
    }

    /// The values of a choice field (a picker: Left and Right, or a first letter); nil for text.
    public var choices: [String]? {
        switch self {
        case .textSize: TextSizePreset.allCases.map(\.rawValue)
        case .theme: ThemeName.allCases.map(\.rawValue)
        case .motion: MotionPreference.allCases.map(\.rawValue)
        case .hints, .stepMode, .syllables: ["on", "off"]
        case .lineFocus: LineFocus.allCases.map(\.rawValue)
        case .spacing: TextSpacing.allCases.map(\.rawValue)
        default: nil
        }
    }
}
