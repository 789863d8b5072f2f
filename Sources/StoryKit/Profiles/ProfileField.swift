/// The fields of the profile form, in focus order, followed by the Save and Cancel buttons.
public enum ProfileField: String, Sendable, Hashable, Codable, CaseIterable {
    case name, age, interests
    case voice, rate, pitch, volume, textSize, motion, theme, hints, stepMode
    case lineFocus, syllables, spacing
    /// The interface's language (a picker: automatic, or a language named in itself).
    case language
    /// The braille code on a braille display.
    case brailleCode
    /// A story with a recording: the book's recording or always the synthetic voice; and the
    /// recording's tempo (a picker of quarter steps).
    case narration, recordingTempo
    /// The bedtime timer's default (a picker: off, story, chapter, or minutes).
    case bedtime
    /// The read-along coach's wait in a silence (a picker of seconds, 2–8).
    case coachWait
    case save, cancel

    /// The fields that hold a value (everything but the two buttons), in focus order.
    public static let inputs: [ProfileField] = allCases.filter(\.isInput)

    public var isInput: Bool { self != .save && self != .cancel }

    /// The short name shown and spoken for the field.
    public var label: String {
        switch self {
        case .name: N_("Name")
        case .age: N_("Age")
        case .interests: N_("Interests")
        case .voice: N_("Voice")
        case .rate: N_("Speed")
        case .pitch: N_("Pitch")
        case .volume: N_("Volume")
        case .textSize: N_("Text size")
        case .motion: N_("Reduced motion")
        case .theme: N_("Theme")
        case .hints: N_("Hints")
        case .stepMode: N_("Step mode")
        case .lineFocus: N_("Line focus")
        case .syllables: N_("Syllables")
        case .spacing: N_("Spacing")
        case .language: N_("Language")
        case .brailleCode: N_("Braille")
        case .narration: N_("Narration")
        case .recordingTempo: N_("Recording tempo")
        case .bedtime: N_("Bedtime")
        case .coachWait: N_("Coach waits")
        case .save: N_("Save")
        case .cancel: N_("Cancel")
        }
    }

    /// What the field is for, in a parent's words.
    public var hint: String { MessageCatalog.fill(hintTemplate, placeholderValues) }

    /// The hint in the interface's language.
    public func hint(in messages: MessageCatalog) -> String { messages.tr(hintTemplate, placeholderValues) }

    var hintTemplate: String {
        switch self {
        case .name: N_("the name shown and spoken to your child")
        case .age: N_("your child's age in years, to suggest stories that fit")
        case .interests: N_("what your child likes, to suggest stories; for example {examples}")
        case .voice: N_("the voice that reads; the story's language lets each story be read in its own")
        case .rate: N_("how fast stories are read, in words per minute")
        case .pitch: N_("how high the voice is")
        case .volume: N_("how loud the voice is")
        case .textSize: N_("how big the story text is drawn")
        case .motion: N_("whether animations are reduced; auto follows the terminal")
        case .theme: N_("the colours of the screen")
        case .hints: N_("how many spoken tips about keys are given: on every item, on a screen's first, or none")
        case .stepMode: N_("whether reading waits for a key after each sentence")
        case .lineFocus: N_("how many lines around the word being read are shown in full; the others are dimmed")
        case .syllables: N_("whether words are shown split into syllables, like but·ter·fly (the voice is unchanged)")
        case .spacing: N_("wide puts more space between words and a blank line between lines")
        case .language: N_("the language the screens speak to your child; automatic follows the voice, else the computer")
        case .brailleCode: N_("the braille code on a braille display: computer braille, or the story's language uncontracted (grade-1) or contracted (grade-2)")
        case .narration: N_("who reads a story that has its own recording: the book's recording, or always the synthetic voice")
        case .recordingTempo: N_("how fast a book's recording plays: 1 is its own pace, from 0.5 to 2, the voice's pitch kept")
        case .bedtime: N_("when reading stops for the night: at the end of the story or of the chapter, or after some minutes at the end of the sentence")
        case .coachWait: N_("when your child reads aloud to the coach, how long a silence lasts before the coach says the next word")
        case .save: N_("saves the profile when every field is valid")
        case .cancel: N_("leaves the form without saving")
        }
    }

    /// The interests the form suggests, as they are typed: the bundled stories' tags.
    public static let exampleInterests = Interests.known.prefix(8).joined(separator: ", ")

    /// The values of the hint's and the constraint's placeholders.
    var placeholderValues: [String: String] {
        let range = numberRange
        var values = ["examples": Self.exampleInterests, "most": String(Interests.maximumCount)]
        if let range {
            values["min"] = String(range.lowerBound)
            values["max"] = String(range.upperBound)
        }
        if let choices { values["choices"] = choices.joined(separator: ", ") }
        return values
    }

    /// What a valid value looks like.
    public var constraint: String { MessageCatalog.fill(constraintTemplate, placeholderValues) }

    /// The constraint in the interface's language.
    public func constraint(in messages: MessageCatalog) -> String { messages.tr(constraintTemplate, placeholderValues) }

    var constraintTemplate: String {
        switch self {
        case .name: N_("1 to 40 characters, not used by another profile")
        case .age: N_("a whole number from {min} to {max}")
        case .interests: N_("up to {most} words separated by commas")
        case .voice: N_("a language code with an optional variant, or empty")
        case .rate, .pitch, .volume: N_("{min} to {max}")
        case .textSize, .theme, .language, .brailleCode, .narration: N_("one of {choices}")
        case .recordingTempo: N_("a number from 0.5 to 2")
        case .bedtime: N_("off, story, chapter or a number of minutes from 1 to 180")
        case .coachWait: N_("a number of seconds from 2 to 8")
        case .motion: N_("on, off or auto")
        case .hints: N_("full, short or off")
        case .stepMode, .syllables: N_("on or off")
        case .lineFocus: N_("off, 1, 3 or 5")
        case .spacing: N_("normal or wide")
        case .save, .cancel: N_("a button")
        }
    }

    /// A number stepped like a picker (Left and Right, - and +), as Settings steps it.
    public var isNumberPicker: Bool { self == .rate || self == .pitch || self == .volume }

    /// Whether the field is a picker of any kind (choices, a number, or the voice, whose
    /// choices are the voices installed: see `State.formChoices(for:)`).
    public var isPicker: Bool { choices != nil || isNumberPicker || self == .voice }

    /// The values of a choice field (a picker: Left and Right, or a first letter); nil for text.
    public var choices: [String]? {
        switch self {
        case .textSize: TextSizePreset.allCases.map(\.rawValue)
        case .theme: ThemeName.allCases.map(\.rawValue)
        case .motion: MotionPreference.allCases.map(\.rawValue)
        // Off first: Right and + turn a switch on, as they turn a setting up.
        case .hints: HintVerbosity.fewestFirst.map(\.rawValue)
        case .stepMode, .syllables: ["off", "on"]
        case .lineFocus: LineFocus.allCases.map(\.rawValue)
        case .spacing: TextSpacing.allCases.map(\.rawValue)
        case .brailleCode: BrailleCode.allCases.map(\.rawValue)
        case .narration: NarrationSource.allCases.map(\.rawValue)
        case .recordingTempo: RecordingTempo.steps.map(RecordingTempo.text)
        case .bedtime: Bedtime.choices.map(\.text)
        case .coachWait: CoachWait.choices
        case .language: ["automatic"] + InterfaceLanguage.supported.compactMap { InterfaceLanguage.ownNames[$0] }
        default: nil
        }
    }
}
