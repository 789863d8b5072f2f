public import Foundation

/// A screen on the navigation stack.
public enum Route: Sendable, Hashable {
    case profiles
    case library
    case story(String)
    case reader
    case profileForm
    case settings
    case help
    case pinPrompt
    /// Kiosk: what the right PIN opens (leave, switch profile, add time).
    case parentMenu
    /// Kiosk: the time limit is over; only the PIN leaves.
    case timeUp
    /// The actions of an item on the screen below ("Read", "Save to favourites"), as a list.
    case actions(String)
    /// The child's bookmarks of one story (nil: of every story), as a list (`Session+Bookmarks.swift`).
    case bookmarks(String?)

    /// The key focus is remembered by ("story" screens share one memory).
    var focusKey: String {
        switch self {
        case .profiles: "profiles"
        case .library: "library"
        case .story(let id): "story-" + id
        case .reader: "reader"
        case .profileForm: "profileForm"
        case .settings: "settings"
        case .help: "help"
        case .pinPrompt: "pin"
        case .parentMenu: "parentMenu"
        case .actions: "actions"
        case .timeUp: "timeUp"
        case .bookmarks: "bookmarks"
        }
    }
}

/// A narration paused in the speech service: the word the session paused at, the voice chosen and
/// whether the book's recording was played.
public struct HeldNarration: Sendable, Hashable {
    public var word: Int
    public var voice: String?
    public var recording: Bool
}

/// The story being read and where the narration is.
public struct ReaderState: Sendable, Hashable {
    public enum Status: Sendable, Hashable { case playing, paused, stopped, finished }
    public var story: Story
    /// Where sentences, paragraphs, pages and chapters are (counted once).
    public let map: StoryMap
    /// The word being heard (an index into `story.words`); paused, the word reading goes on from.
    public var wordIndex: Int
    public var status: Status
    public var stepMode: Bool
    /// The narration stops after the sentence it is reading (step mode, or a sentence move while paused).
    public var stopsAfterSentence: Bool = false
    /// Reading was paused for a grown-up (the kiosk's PIN prompt): it goes on when the child is back.
    public var pausedForParent = false
    /// Where the speech service holds the paused narration: reading on from that same place, in
    /// the same voice and from the same source, resumes it there (a recording at the sample where
    /// it stopped) instead of narrating anew. Nil once the narration is stopped or told anew.
    public var held: HeldNarration?
    /// The word explained (the `e` key), shown big with its syllables until reading moves past it.
    public var explained: (word: Int, shown: String)? {
        get { explainedWord.map { ($0, explainedText) } }
        set {
            explainedWord = newValue?.word
            explainedText = newValue?.shown ?? ""
        }
    }
    private var explainedWord: Int?
    private var explainedText = ""
    /// What is typed at the "Go to print page" prompt (the `g` key); nil while it is closed.
    public var printPageEntry: String?

    public init(story: Story, wordIndex: Int = 0, status: Status = .stopped, stepMode: Bool = false) {
        self.story = story
        map = StoryMap(story: story)
        self.wordIndex = wordIndex
        self.status = status
        self.stepMode = stepMode
    }

    /// The sentence (an index into `story.sentences`) holding the word being heard.
    public var sentence: Int { map.sentence(containingWord: wordIndex) }
    public var page: Int { map.page(ofWord: wordIndex) }
    /// The word being heard, as written.
    public var word: String? {
        let words = story.words
        return words.indices.contains(wordIndex) ? words[wordIndex].text : nil
    }
}

/// Options fixed when the session starts (kiosk mode builds on these).
public struct SessionOptions: Sendable, Hashable {
    /// Locked: only the commands in `allowedCommands` work, and profile editing is off.
    public var isLocked: Bool
    /// Command words allowed when locked (see `Command.name`).
    public var allowedCommands: Set<String>
    public var columns: Int
    public var rows: Int
    /// What the terminal can draw large, so a text-size change says what is really shown.
    public var textScaling: TextScaling
    /// `storyreader read STORY`: the session is the reader of one story, and leaving it (stop, the
    /// end of the story) ends the program.
    public var endsWithReading = false
    /// `storyreader profile add` on a terminal: the session is the profile form, and leaving it
    /// (saved or not) ends the program.
    public var endsWithForm = false
    /// Without a screen to move through (a pipe, a braille display's log), `help` says all of its
    /// lines at once.
    public var readsWholeHelp = false
    /// `--lang`: the interface's language for this run, over every profile's.
    public var interfaceLanguage: String?
    /// The language of the system (`LC_ALL`, `LC_MESSAGES`, `LANG`): the first screen's, and a
    /// profile's when it names none and its voice's language has no catalog.
    public var systemLanguage = "en"
    /// The eSpeak NG voices installed (`en`, `en-us`, `es`, …): the profile form's Voice picker
    /// offers those of the child's languages. Empty: the few every eSpeak NG has.
    public var voices: [String] = []
    /// The read-along coach's silence before it says the next word (`--coach-wait`); nil: the
    /// child's own (the profile form's "Coach waits", 3 s unless a parent set it).
    public var coachWaitMilliseconds: Int?

    public init(
        isLocked: Bool = false, allowedCommands: Set<String> = SessionOptions.childCommands, columns: Int = 80, rows: Int = 24,
        textScaling: TextScaling = .none
    ) {
        self.isLocked = isLocked
        self.allowedCommands = allowedCommands
        self.columns = columns
        self.rows = rows
        self.textScaling = textScaling
    }

    /// What a child may do in a locked session.
    public static let childCommands: Set<String> = [
        "next", "prev", "activate", "back", "home", "heading", "where", "read", "pause", "resume", "stop",
        "faster", "slower", "sentence", "paragraph", "page", "beginning", "end", "step", "help", "learn", "wait", "jump",
        "increase", "decrease", "actions", "action", "word", "explain", "bookmark", "bookmarks", "coach",
    ]
}

/// The whole state of the program: a value.
public struct State: Sendable, Hashable {
    public var stack: [Route]
    /// Focused element id per screen (`Route.focusKey`): restored when coming back.
    public var focus: [String: String]
    public var snapshot: SessionSnapshot
    /// The profile reading now; nil is the guest.
    public var profileName: String?
    /// Settings used when no profile is chosen.
    public var guest: ChildProfile
    public var reader: ReaderState?
    /// The profile form being filled in (the store's form: every field, its rules and messages).
    public var form: ProfileForm?
    public var isLearning: Bool
    /// A warning shown at the top of the screen until the next move (the form's mistakes).
    public var warning: String?
    public var pinEntry: String
    /// A parent's visit is open: the PIN was typed, and the saves until the parent leaves Settings
    /// or the profile form use the authorization it gave (the shell holds it and drops it when
    /// this turns false).
    public var settingsUnlocked: Bool
    /// What the PIN prompt opens once the PIN is right.
    public var afterPIN: ParentAction
    public var options: SessionOptions
    public var hasQuit: Bool
    /// Kiosk mode's clock, limits and log (nil outside the kiosk; see `Session+Kiosk.swift`).
    public var kiosk: KioskState?
    /// The command line's presentation flags: they hold for the run over any profile chosen.
    public var presentationOverride = PresentationOverride()
    /// "This change is for now…" was said on this screen (once a visit is enough).
    public var toldChangeIsForNow = false
    /// The guest's short notice (the place is not kept) was said: once a run; where am I says the rest.
    public var toldGuest = false
    /// Every catalog, loaded once at start.
    public var languages: InterfaceLanguages = .englishOnly
    /// The sentences (indices into the story's) each child heard to their end at speaking pace in
    /// this run, by ``State/heardKey(_:)``: a read counts only when the ending and most of the
    /// story were heard (`Session+Reader.swift`).
    public var heardSentences: [String: Set<Int>] = [:]
    /// Whether the child was told that changes the database could not take are kept for later
    /// (said once a session, not at every place kept).
    public var toldChangesKept = false
    /// The shell's monotonic clock at the latest `Input.tick`, in seconds (type-ahead's pause).
    public var now: TimeInterval = 0
    /// Letters typed in a list in quick succession, searched for as one string.
    public var typeAhead: TypeAhead?
    /// Tonight's bedtime timer: this run's (`--bedtime`, the `bedtime` command), else the profile's
    /// default once reading starts; nil until either (`Session+Bedtime.swift`).
    public var bedtime: BedtimeTimer?
    /// The bookmark made last in this run (`b`): what a note (`n`, `bookmark note TEXT`) is for.
    public var lastBookmark: UUID?
    /// The note's line is open (`n`): Escape there keeps the bookmark without a note.
    public var noteLineOpen = false
    /// The story was paused for the note's line: it goes on once the note is saved or not.
    public var pausedForNote = false
    /// The child reading the story to the coach (`r`; nil: the coach is not listening).
    public var coaching: CoachingState?
    /// Listenings started in this run: each has its number, so news of an ended one is dropped.
    public var coachListenings = 0

    /// The key of `heardSentences` for a story read by the profile in use.
    func heardKey(_ storyID: String) -> String { profile.name + "\n" + storyID }

    public init(snapshot: SessionSnapshot, options: SessionOptions = SessionOptions()) {
        stack = [.profiles]
        focus = [:]
        self.snapshot = snapshot
        profileName = nil
        guest = .guest
        reader = nil
        form = nil
        isLearning = false
        warning = nil
        pinEntry = ""
        settingsUnlocked = false
        afterPIN = .settings
        self.options = options
        hasQuit = false
        kiosk = nil
    }

    public var route: Route { stack.last ?? .library }

    /// The language the interface speaks now: `--lang`, else the profile's choice, else its
    /// voice's language when there is a catalog for it, else the system's.
    public var language: String {
        if let forced = options.interfaceLanguage { return forced }
        let settings = (chosenProfile ?? guest).settings
        if let chosen = settings.interfaceLanguage { return chosen }
        return InterfaceLanguages.defaultLanguage(voice: settings.speech.voice, system: options.systemLanguage)
    }

    /// The interface's words in `language`.
    public var messages: MessageCatalog { languages.catalog(language) }

    /// `message` in the interface's language, its `{placeholders}` filled.
    public func tr(_ message: String, _ values: [String: String] = [:]) -> String { messages.tr(message, values) }

    /// The plural form for `count` in the interface's language (`{count}` filled).
    public func trn(_ singular: String, _ plural: String, _ count: Int, _ values: [String: String] = [:]) -> String {
        messages.trn(singular, plural, count, values)
    }

    /// The profile in use as stored (the guest when none is chosen), without this run's override.
    public var storedProfile: ChildProfile {
        if let chosen = chosenProfile { return chosen }
        // The guest is called by the interface's word for it ("Invitado"), not a name anyone typed.
        var named = guest
        named.name = messages.tr("Guest")
        return named
    }

    /// The profile chosen by name, if any (nil: the guest).
    private var chosenProfile: ChildProfile? {
        profileName.flatMap { name in snapshot.profiles.first { $0.name == name } }
    }

    /// The profile in use (the guest when none is chosen).
    /// With the command line's presentation for this run applied (`presentationOverride`).
    public var profile: ChildProfile {
        get { presentationOverride.applied(to: storedProfile) }
        set {
            let newValue = presentationOverride.removed(from: newValue, stored: storedProfile)
            if let name = profileName, let index = snapshot.profiles.firstIndex(where: { $0.name == name }) {
                snapshot.profiles[index] = newValue
            } else {
                guest = newValue
            }
        }
    }

    public func reading(_ storyID: String) -> ReadingRecord {
        snapshot.readings[profile.name]?[storyID] ?? ReadingRecord()
    }

    public var focusedID: String? {
        get { focus[route.focusKey] }
        set { focus[route.focusKey] = newValue }
    }
}

/// What a parent asked for that needs the PIN (when one is set).
public enum ParentAction: Sendable, Hashable {
    case settings
    case newProfile
    case editProfile
}

/// The settings `set NAME VALUE` knows.
public enum SettingName: String, Sendable, CaseIterable {
    case voice, rate, pitch, volume
    case textSize = "text-size"
    case motion, theme, hints
    case lineFocus = "line-focus"
    case syllables, spacing
    /// The interface's language (a parent's setting, like the voice).
    case language
    /// The braille code on a braille display (a parent's setting, like the voice).
    case braille
    /// The book's recording or always the synthetic voice (a parent's setting, like the voice).
    case narration
    /// The tempo of a book's recording (the child's, like the speed).
    case recordingTempo = "recording-tempo"

    public init?(loose: String) {
        let folded = loose.lowercased().replacingOccurrences(of: "_", with: "-")
        switch folded {
        case "textsize", "text-size", "size", "text": self = .textSize
        case "reduced-motion", "reducedmotion", "motion": self = .motion
        case "speed": self = .rate
        case "linefocus", "line-focus", "focus": self = .lineFocus
        case "syllable", "syllables": self = .syllables
        case "spacing", "space", "word-spacing": self = .spacing
        case "lang", "language", "interface-language": self = .language
        case "braille", "braille-code", "braillecode": self = .braille
        case "narration", "narrator", "recording": self = .narration
        case "recording-tempo", "recordingtempo", "tempo": self = .recordingTempo
        default: self.init(rawValue: folded)
        }
    }

    public var spokenName: String {
        switch self {
        case .voice: N_("Voice")
        case .rate: N_("Speed")
        case .pitch: N_("Pitch")
        case .volume: N_("Volume")
        case .textSize: N_("Text size")
        case .motion: N_("Reduced motion")
        case .theme: N_("Theme")
        case .hints: N_("Hints")
        case .lineFocus: N_("Line focus")
        case .syllables: N_("Syllables")
        case .spacing: N_("Spacing")
        case .language: N_("Language")
        case .braille: N_("Braille")
        case .narration: N_("Narration")
        case .recordingTempo: N_("Recording tempo")
        }
    }
}

/// Type-ahead in a list: what was typed, when the last letter came, and on which screen.
public struct TypeAhead: Sendable, Hashable {
    public var text: String
    public var at: TimeInterval
    public var screen: String
    /// What the search last said: a letter that changes nothing ("ligh" after "li" still finds
    /// only The Lighthouse Cat) says nothing again, rather than cutting it off to start it over.
    public var answer: String?

    /// Letters further apart than this start a new search: a second and a half, so that a child
    /// or a parent typing with one finger ("grap" at 1.3 s a letter) still makes one search.
    public static let pause: TimeInterval = 1.5
}
