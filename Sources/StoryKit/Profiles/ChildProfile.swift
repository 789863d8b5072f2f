import Foundation

/// A child's profile: who they are, what they like, and how stories are read to them.
///
/// Build one through ``ProfileForm`` (or ``ProfileValidation``) so that every value has been checked;
/// the store refuses a profile whose ``problems(existingNames:)`` is not empty.
public struct ChildProfile: Sendable, Hashable, Codable, Identifiable {
    /// The database row id; `nil` until the profile is saved.
    public var id: Int64?
    /// 1–40 characters, trimmed and sanitized, unique ignoring case.
    public var name: String
    /// 2–12 years.
    public var age: Int
    /// Up to 10 lower-case words (see ``Interests``).
    public var interests: [String]
    public var settings: ReadingSettings

    public init(id: Int64? = nil, name: String, age: Int, interests: [String] = [], settings: ReadingSettings = .default) {
        self.id = id
        self.name = name
        self.age = age
        self.interests = interests
        self.settings = settings
    }

    /// The profile that exists before any parent acts, so the product works out of the box: "Reader",
    /// age 6 (the middle of the 3–9 range most bundled stories are written for), no interests, the
    /// default reading settings. A parent may rename or edit it like any other profile.
    public static let defaultProfile = ChildProfile(name: "Reader", age: 6, interests: [], settings: .default)

    /// The key that makes names unique ignoring case: NFC, then lower-cased.
    public static func nameKey(_ name: String) -> String {
        name.precomposedStringWithCanonicalMapping.lowercased()
    }

    /// Every problem with this profile's values, field by field in focus order.
    ///
    /// - Parameter existingNames: the names of the *other* profiles, for the uniqueness check.
    public func problems(existingNames: [String] = []) -> [ProfileProblem] {
        ProfileForm(checking: self, existingNames: existingNames).validationProblems()
    }
}

/// How stories are read and shown to one child.
public struct ReadingSettings: Sendable, Hashable, Codable {
    /// Voice, rate, pitch and volume (ranges from ``SpeechSettings``).
    public var speech: SpeechSettings
    public var textSize: TextSizePreset
    /// Reduced motion: `on`, `off` or `auto`.
    public var motion: MotionPreference
    public var theme: ThemeName
    /// Whether spoken hints ("press Space to pause") are given (`hintVerbosity` says how many).
    public var hints: Bool {
        get { hintVerbosity != .off }
        set { hintVerbosity = newValue ? (hintVerbosity == .off ? .full : hintVerbosity) : .off }
    }
    /// How many hints are said: on every item, on a screen's first, or none.
    public var hintVerbosity: HintVerbosity
    /// Step mode: the reader waits for a key after each sentence.
    public var stepMode: Bool
    /// Line focus, syllables and spacing: reading comfort, changed by the child like text size.
    public var aids: ReadingAids
    /// The language the interface speaks to this child ("es"); nil: the voice's language when
    /// the interface has it, else the system's (``InterfaceLanguages/defaultLanguage(voice:system:)``).
    public var interfaceLanguage: String? = nil
    /// The braille code on a braille display: computer braille, or the story's language
    /// uncontracted (grade 1, the default) or contracted (grade 2).
    public var brailleCode: BrailleCode = .standard
    /// A story with a recording: the book's recording (the default) or always the synthetic voice.
    public var narration: NarrationSource = .recording
    /// The tempo recordings play at (0.5–2; 1 is their own pace, pitch kept); the rate is for
    /// synthetic speech only.
    public var recordingTempo: Double = 1
    /// The bedtime timer a parent sets as this child's default, armed when reading starts
    /// (`Session+Bedtime.swift`); off unless set.
    public var bedtime: Bedtime = .off
    /// Seconds of silence before the read-along coach says the next word for this child
    /// (``CoachWait``: 2–8, 3 unless a parent gives a slower reader more). The REPL's and `read`'s
    /// coach read it from the profile.
    public var coachWaitSeconds: Int = CoachWait.standard

    public init(
        speech: SpeechSettings = .storyDefaults, textSize: TextSizePreset = .default, motion: MotionPreference = .auto,
        theme: ThemeName = .default, hints: Bool = true, stepMode: Bool = false, aids: ReadingAids = .off,
        hintVerbosity: HintVerbosity? = nil
    ) {
        self.speech = speech
        self.textSize = textSize
        self.motion = motion
        self.theme = theme
        self.hintVerbosity = hints ? hintVerbosity ?? .full : .off
        self.stepMode = stepMode
        self.aids = aids
    }

    /// Story voice defaults, text size large, motion auto, default theme, hints on, step mode off,
    /// no reading aids.
    public static let `default` = ReadingSettings()
}
