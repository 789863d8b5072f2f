/// Presentation chosen on the command line (`--text-size`, `--theme`, `--reduce-motion`, and the
/// reading aids `--line-focus`, `--syllables`, `--spacing`): it holds
/// for the whole run, over whichever profile is chosen (on the first screen or with `--profile`),
/// and is never saved. Changing one of them in Settings ends the override for that one.
public struct PresentationOverride: Sendable, Hashable {
    public var textSize: TextSizePreset?
    public var theme: ThemeName?
    public var motion: MotionPreference?
    public var lineFocus: LineFocus?
    public var syllables: Bool?
    public var spacing: TextSpacing?
    /// `storyreader read --rate/--pitch/--volume/--voice`: the speech of this run.
    public var rate: Int?
    public var pitch: Int?
    public var volume: Int?
    public var voice: String?
    /// `--narration` and `--recording-tempo` (`read --tempo`): a recording's use and tempo this run.
    public var narration: NarrationSource?
    public var recordingTempo: Double?

    public init(textSize: TextSizePreset? = nil, theme: ThemeName? = nil, motion: MotionPreference? = nil) {
        self.textSize = textSize
        self.theme = theme
        self.motion = motion
    }

    public var isEmpty: Bool {
        textSize == nil && theme == nil && motion == nil && rate == nil && pitch == nil && volume == nil && voice == nil
            && lineFocus == nil && syllables == nil && spacing == nil && narration == nil && recordingTempo == nil
    }

    /// The profile as shown this run.
    public func applied(to profile: ChildProfile) -> ChildProfile {
        var shown = profile
        if let textSize { shown.textSize = textSize }
        if let theme { shown.theme = theme }
        if let motion { shown.motion = motion }
        if let lineFocus { shown.settings.aids.lineFocus = lineFocus }
        if let syllables { shown.settings.aids.syllables = syllables }
        if let spacing { shown.settings.aids.spacing = spacing }
        if let rate { shown.speech.rate = rate }
        if let pitch { shown.speech.pitch = pitch }
        if let volume { shown.speech.volume = volume }
        if let voice { shown.speech.voice = voice }
        if let narration { shown.settings.narration = narration }
        if let recordingTempo { shown.settings.recordingTempo = recordingTempo }
        return shown
    }

    /// What to keep of a changed profile: the overridden fields stay as they were stored, so a
    /// run-only choice never reaches the database.
    public func removed(from changed: ChildProfile, stored: ChildProfile) -> ChildProfile {
        var kept = changed
        if textSize != nil { kept.textSize = stored.textSize }
        if theme != nil { kept.theme = stored.theme }
        if motion != nil { kept.motion = stored.motion }
        if lineFocus != nil { kept.settings.aids.lineFocus = stored.settings.aids.lineFocus }
        if syllables != nil { kept.settings.aids.syllables = stored.settings.aids.syllables }
        if spacing != nil { kept.settings.aids.spacing = stored.settings.aids.spacing }
        if rate != nil { kept.speech.rate = stored.speech.rate }
        if pitch != nil { kept.speech.pitch = stored.speech.pitch }
        if volume != nil { kept.speech.volume = stored.speech.volume }
        if voice != nil { kept.speech.voice = stored.speech.voice }
        if narration != nil { kept.settings.narration = stored.settings.narration }
        if recordingTempo != nil { kept.settings.recordingTempo = stored.settings.recordingTempo }
        return kept
    }

    /// Whether `setting` is held by the command line this run.
    public func holds(_ setting: SettingName) -> Bool {
        switch setting {
        case .textSize: textSize != nil
        case .theme: theme != nil
        case .motion: motion != nil
        case .rate: rate != nil
        case .pitch: pitch != nil
        case .volume: volume != nil
        case .voice: voice != nil
        case .lineFocus: lineFocus != nil
        case .syllables: syllables != nil
        case .spacing: spacing != nil
        case .narration: narration != nil
        case .recordingTempo: recordingTempo != nil
        default: false
        }
    }

    /// Ends the override of `setting` (the child changed it in Settings).
    public mutating func release(_ setting: SettingName) {
        switch setting {
        case .textSize: textSize = nil
        case .theme: theme = nil
        case .motion: motion = nil
        case .rate: rate = nil
        case .pitch: pitch = nil
        case .volume: volume = nil
        case .voice: voice = nil
        case .lineFocus: lineFocus = nil
        case .syllables: syllables = nil
        case .spacing: spacing = nil
        case .narration: narration = nil
        case .recordingTempo: recordingTempo = nil
        default: break
        }
    }
}
