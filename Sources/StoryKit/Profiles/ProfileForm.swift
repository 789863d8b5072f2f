/// The profile form as a value: fields in focus order, typed texts, focus, problems, Save and Cancel.
///
/// Pure (no I/O): the REPL, the command line and the tests all drive this same code. Values are kept
/// as the typed text; they are parsed and checked field by field on ``submit()`` and all together on
/// ``save()``, which saves nothing until every field is valid.
public struct ProfileForm: Sendable, Hashable {
    /// What a screen shows and speaks for one field.
    public struct FieldState: Sendable, Hashable {
        public var field: ProfileField
        public var label: String
        public var hint: String
        /// The typed text (for a button, its label).
        public var value: String
        public var constraint: String
        /// The problem found when the field was last submitted or saved, if any.
        public var problem: ProfileProblem?
        public var isFocused: Bool
    }

    /// What Save did.
    public enum SaveOutcome: Sendable, Hashable {
        /// Every field was valid: the profile to store (with the edited profile's id).
        case valid(ChildProfile)
        /// Nothing to save: every problem in focus order; focus moved to the first invalid field.
        case invalid([ProfileProblem])
    }

    /// What Cancel did.
    public enum CancelOutcome: Sendable, Hashable {
        /// The form can close: nothing was changed, or the change was confirmed to be discarded.
        case cancelled
        /// There are unsaved changes: ask this question, then call ``confirmCancel()`` or
        /// ``keepEditing()``.
        case needsConfirmation(question: String)
    }

    /// What Submit (Enter on a field) did.
    public enum SubmitOutcome: Sendable, Hashable {
        /// The field was accepted (or not) and focus moved to the next field.
        case moved(to: ProfileField, problem: ProfileProblem?)
        case saved(SaveOutcome)
        case cancel(CancelOutcome)
    }

    /// The profile being edited, or `nil` when adding one.
    public private(set) var original: ChildProfile?
    /// The names of the other profiles (for the uniqueness check).
    public var existingNames: [String]
    public private(set) var focus: ProfileField = .name
    public private(set) var texts: [ProfileField: String]
    public private(set) var problems: [ProfileField: ProfileProblem] = [:]
    /// Whether a Cancel is waiting for confirmation.
    public private(set) var isConfirmingCancel = false
    private let initialTexts: [ProfileField: String]
    /// The Voice picker's values: "" (each story's own language), then the voices offered (the
    /// session gives the installed ones of the child's languages).
    public var voiceChoices: [String] = [""]
    /// The number field digits are being typed into: the next digit adds to them; any other
    /// field (or none) starts a new number.
    public var digitsTyped: ProfileField?

    /// A form for a new profile, starting from the default reading settings and an empty name.
    public init(existingNames: [String] = []) {
        var start = ChildProfile.defaultProfile
        start.name = ""
        var texts = Self.texts(of: start)
        texts[.age] = ""
        self.init(texts: texts, original: nil, existingNames: existingNames)
    }

    /// A form editing `profile`.
    public init(editing profile: ChildProfile, existingNames: [String] = []) {
        self.init(texts: Self.texts(of: profile), original: profile, existingNames: existingNames)
    }

    /// A form that checks `profile` against every name in `existingNames` (none is its own).
    init(checking profile: ChildProfile, existingNames: [String]) {
        self.init(texts: Self.texts(of: profile), original: nil, existingNames: existingNames)
    }

    private init(texts: [ProfileField: String], original: ChildProfile?, existingNames: [String]) {
        self.texts = texts
        self.initialTexts = texts
        self.original = original
        self.existingNames = existingNames
    }

    /// The text shown for each field of `profile`.
    public static func texts(of profile: ChildProfile) -> [ProfileField: String] {
        let settings = profile.settings
        return [
            .name: profile.name, .age: String(profile.age), .interests: profile.interests.joined(separator: ", "),
            .voice: settings.speech.voice ?? "", .rate: String(settings.speech.rate),
            .pitch: String(settings.speech.pitch), .volume: String(settings.speech.volume),
            .textSize: settings.textSize.rawValue, .motion: settings.motion.rawValue, .theme: settings.theme.rawValue,
            .hints: settings.hintVerbosity.rawValue, .stepMode: ProfileValidation.toggleText(settings.stepMode),
            .lineFocus: settings.aids.lineFocus.rawValue, .syllables: ProfileValidation.toggleText(settings.aids.syllables),
            .spacing: settings.aids.spacing.rawValue,
            .language: settings.interfaceLanguage.flatMap { InterfaceLanguage.ownNames[$0] } ?? "automatic",
            .brailleCode: settings.brailleCode.rawValue,
            .narration: settings.narration.rawValue, .recordingTempo: RecordingTempo.text(settings.recordingTempo),
            .bedtime: settings.bedtime.text, .coachWait: String(settings.coachWaitSeconds),
        ]
    }

    /// Every field with its label, hint, value, constraint and problem, in focus order.
    public var fields: [FieldState] {
        ProfileField.allCases.map { field in
            FieldState(
                field: field, label: field.label, hint: field.hint, value: field.isInput ? text(of: field) : field.label,
                constraint: field.constraint, problem: problems[field], isFocused: field == focus)
        }
    }

    public func text(of field: ProfileField) -> String { texts[field] ?? "" }

    /// A picker's values (the Voice's are ``voiceChoices``, with the edited profile's own voice
    /// kept among them); nil for a text or number field.
    public func choices(for field: ProfileField) -> [String]? {
        guard field == .voice else { return field.choices }
        let own = initialTexts[.voice] ?? ""
        return voiceChoices.contains { $0.lowercased() == own.lowercased() } ? voiceChoices : voiceChoices + [own]
    }

    /// Whether one field differs from what the form started with.
    public func isChanged(_ field: ProfileField) -> Bool { text(of: field) != (initialTexts[field] ?? "") }

    /// Checks one field (leaving it), recording its problem; nil when it is valid.
    public mutating func check(_ field: ProfileField) -> ProfileProblem? {
        guard field.isInput else { return nil }
        problems[field] = problem(of: field)
        return problems[field]
    }

    /// Whether any field differs from what the form started with.
    public var hasUnsavedChanges: Bool { ProfileField.inputs.contains { text(of: $0) != (initialTexts[$0] ?? "") } }

    /// Replaces the focused field's text (typing).
    public mutating func enter(_ text: String) { setText(text, for: focus) }

    /// Replaces one field's text (flags, or a pointer click); clears that field's old problem.
    public mutating func setText(_ text: String, for field: ProfileField) {
        guard field.isInput else { return }
        texts[field] = text
        problems[field] = nil
    }

    /// Moves focus to `field`.
    public mutating func focus(on field: ProfileField) {
        focus = field
        isConfirmingCancel = false
    }

    /// Next and previous, wrapping (Tab and Shift-Tab).
    public mutating func focusNext() { focus(on: Self.field(after: focus)) }
    public mutating func focusPrevious() {
        let all = ProfileField.allCases
        let index = all.firstIndex(of: focus)!
        focus(on: all[(index + all.count - 1) % all.count])
    }

    static func field(after field: ProfileField) -> ProfileField {
        let all = ProfileField.allCases
        let index = all.firstIndex(of: field)!
        return all[(index + 1) % all.count]
    }

    /// Enter: on a field, checks it (recording its problem) and, when it is valid, moves focus to
    /// the next field; on
    /// Save, saves; on Cancel, cancels.
    public mutating func submit() -> SubmitOutcome {
        switch focus {
        case .save: return .saved(save())
        case .cancel: return .cancel(cancel())
        default:
            // A field with a problem keeps the focus, so it can be put right at once.
            let field = focus
            problems[field] = problem(of: field)
            if problems[field] == nil { focusNext() }
            return .moved(to: focus, problem: problems[field])
        }
    }

    /// Checks every field. When all are valid returns the profile; otherwise records every problem,
    /// moves focus to the first invalid field, and returns the problems in focus order.
    public mutating func save() -> SaveOutcome {
        isConfirmingCancel = false
        var found: [ProfileProblem] = []
        for field in ProfileField.inputs {
            let problem = problem(of: field)
            problems[field] = problem
            if let problem { found.append(problem) }
        }
        if let first = found.first {
            focus = first.field
            return .invalid(found)
        }
        do {
            return .valid(try profile())
        } catch {
            // Unreachable: every field was just found valid.
            focus = error.field
            return .invalid([error])
        }
    }

    /// Cancel: closes at once when nothing changed; otherwise asks first.
    public mutating func cancel() -> CancelOutcome {
        guard hasUnsavedChanges else { return .cancelled }
        isConfirmingCancel = true
        return .needsConfirmation(question: N_("Discard the changes to this profile? Your changes are not saved."))
    }

    /// The parent confirmed discarding the changes.
    public mutating func confirmCancel() -> CancelOutcome {
        isConfirmingCancel = false
        return .cancelled
    }

    /// The parent chose to keep editing: focus stays on Cancel.
    public mutating func keepEditing() { isConfirmingCancel = false }

    /// Every problem, in focus order, without changing the form.
    public func validationProblems() -> [ProfileProblem] { ProfileField.inputs.compactMap(problem(of:)) }

    /// The problem with one field's current text, or `nil` when it is valid.
    public func problem(of field: ProfileField) -> ProfileProblem? {
        do {
            _ = try value(of: field)
            return nil
        } catch {
            return error
        }
    }

    private enum FieldValue {
        case text(String?)
        case number(Int)
        case words([String])
        case size(TextSizePreset)
        case motion(MotionPreference)
        case theme(ThemeName)
        case toggle(Bool)
        case lineFocus(LineFocus)
        case spacing(TextSpacing)
        case braille(BrailleCode)
        case none
    }

    private func value(of field: ProfileField) throws(ProfileProblem) -> FieldValue {
        let text = text(of: field)
        switch field {
        case .name: return .text(try validName())
        case .age: return .number(try ProfileValidation.age(text))
        case .interests: return .words(try ProfileValidation.interests(text))
        case .voice: return .text(try ProfileValidation.voice(text))
        case .rate: return .number(try ProfileValidation.number(text, field: .rate, range: SpeechSettings.rateRange))
        case .pitch: return .number(try ProfileValidation.number(text, field: .pitch, range: SpeechSettings.pitchRange))
        case .volume: return .number(try ProfileValidation.number(text, field: .volume, range: SpeechSettings.volumeRange))
        case .textSize: return .size(try ProfileValidation.textSize(text))
        case .motion: return .motion(try ProfileValidation.motion(text))
        case .theme: return .theme(try ProfileValidation.theme(text))
        case .hints: return .text(try ProfileValidation.hintVerbosity(text).rawValue)
        case .stepMode, .syllables: return .toggle(try ProfileValidation.toggle(text, field: field))
        case .lineFocus: return .lineFocus(try ProfileValidation.lineFocus(text))
        case .spacing: return .spacing(try ProfileValidation.spacing(text))
        case .language: return .text(try ProfileValidation.language(text))
        case .brailleCode: return .braille(try ProfileValidation.brailleCode(text))
        case .narration: return .text(try ProfileValidation.narration(text).rawValue)
        case .recordingTempo: return .text(RecordingTempo.text(try ProfileValidation.recordingTempo(text)))
        case .bedtime: return .text(try ProfileValidation.bedtime(text).text)
        case .coachWait: return .text(String(try ProfileValidation.coachWait(text)))
        case .save, .cancel: return .none
        }
    }

    /// The profile the texts describe.
    ///
    /// - Throws: the first ``ProfileProblem`` in focus order.
    public func profile() throws(ProfileProblem) -> ChildProfile {
        let name = try validName()
        let age = try ProfileValidation.age(text(of: .age))
        let interests = try ProfileValidation.interests(text(of: .interests))
        let voice = try ProfileValidation.voice(text(of: .voice))
        var settings = ReadingSettings()
        settings.speech = SpeechSettings(
            rate: try ProfileValidation.number(text(of: .rate), field: .rate, range: SpeechSettings.rateRange),
            pitch: try ProfileValidation.number(text(of: .pitch), field: .pitch, range: SpeechSettings.pitchRange),
            volume: try ProfileValidation.number(text(of: .volume), field: .volume, range: SpeechSettings.volumeRange),
            voice: voice)
        settings.textSize = try ProfileValidation.textSize(text(of: .textSize))
        settings.motion = try ProfileValidation.motion(text(of: .motion))
        settings.theme = try ProfileValidation.theme(text(of: .theme))
        settings.hintVerbosity = try ProfileValidation.hintVerbosity(text(of: .hints))
        settings.stepMode = try ProfileValidation.toggle(text(of: .stepMode), field: .stepMode)
        settings.aids = ReadingAids(
            lineFocus: try ProfileValidation.lineFocus(text(of: .lineFocus)),
            syllables: try ProfileValidation.toggle(text(of: .syllables), field: .syllables),
            spacing: try ProfileValidation.spacing(text(of: .spacing)))
        settings.interfaceLanguage = try ProfileValidation.language(text(of: .language))
        settings.brailleCode = try ProfileValidation.brailleCode(text(of: .brailleCode))
        settings.narration = try ProfileValidation.narration(text(of: .narration))
        settings.recordingTempo = try ProfileValidation.recordingTempo(text(of: .recordingTempo))
        settings.bedtime = try ProfileValidation.bedtime(text(of: .bedtime))
        settings.coachWaitSeconds = try ProfileValidation.coachWait(text(of: .coachWait))
        return ChildProfile(id: original?.id, name: name, age: age, interests: interests, settings: settings)
    }

    private func validName() throws(ProfileProblem) -> String {
        // The edited profile may keep its own name (or change its case).
        let others = existingNames.filter { name in
            guard let original else { return true }
            return ChildProfile.nameKey(name) != ChildProfile.nameKey(original.name)
        }
        return try ProfileValidation.name(text(of: .name), existingNames: others)
    }
}
