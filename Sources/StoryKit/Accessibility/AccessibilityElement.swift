/// What an element is, as a screen reader says it ("button", "heading", …).
public struct AccessibilityTraits: OptionSet, Sendable, Hashable, Codable {
    public let rawValue: UInt32
    public init(rawValue: UInt32) { self.rawValue = rawValue }

    public static let button = AccessibilityTraits(rawValue: 1 << 0)
    public static let header = AccessibilityTraits(rawValue: 1 << 1)
    public static let selected = AccessibilityTraits(rawValue: 1 << 2)
    public static let staticText = AccessibilityTraits(rawValue: 1 << 3)
    public static let adjustable = AccessibilityTraits(rawValue: 1 << 4)
    public static let link = AccessibilityTraits(rawValue: 1 << 5)
    /// A warning or an emergency: spoken first, shown with a symbol and a word, never colour alone.
    public static let warning = AccessibilityTraits(rawValue: 1 << 6)
    public static let updatesFrequently = AccessibilityTraits(rawValue: 1 << 7)
    public static let image = AccessibilityTraits(rawValue: 1 << 8)
    /// A text field (the profile form's name, for example).
    public static let textField = AccessibilityTraits(rawValue: 1 << 9)
    public static let notEnabled = AccessibilityTraits(rawValue: 1 << 10)

    /// The words a screen reader says for these traits, most important first ("heading", "button").
    public var spokenNames: [String] {
        var names: [String] = []
        if contains(.selected) { names.append(N_("selected")) }
        if contains(.header) { names.append(N_("heading")) }
        if contains(.button) { names.append(N_("button")) }
        if contains(.link) { names.append(N_("link")) }
        if contains(.adjustable) { names.append(N_("adjustable")) }
        if contains(.textField) { names.append(N_("text field")) }
        if contains(.image) { names.append(N_("picture")) }
        if contains(.warning) { names.append(N_("warning")) }
        if contains(.notEnabled) { names.append(N_("dimmed")) }
        return names
    }
}

/// An action an element offers besides its default one (the design's "Read" and "Save").
public struct CustomAction: Sendable, Hashable, Codable {
    /// Stable identifier, used by Session (`read`, `save`, `resume`).
    public var id: String
    /// What is spoken and shown ("Read", "Save to favourites").
    public var name: String
    /// The key that performs it directly, if any.
    public var key: String?

    public init(id: String, name: String, key: String? = nil) {
        self.id = id
        self.name = name
        self.key = key
    }
}

/// How the renderer draws an element (what is spoken comes from label, value, hint and traits).
public enum ElementContent: Sendable, Hashable {
    /// Drawn from the label and value.
    case plain
    /// A paragraph of story text; `highlight` is the word being heard (a range in `text`, in
    /// Unicode scalars), `emphasis` the emphasised stretches.
    case readingText(text: String, highlight: TextRange?, emphasis: [TextRange])
    /// A picture: its text-art lines, if it has a file (the label carries the description).
    case picture(art: [String]?)
    /// A text-entry field being edited: the text and the cursor (in characters).
    case field(text: String, cursor: Int)
    /// One word shown big at every text size (the word explained while reading), as written
    /// (with its syllable dots): block letters where the terminal cannot scale text.
    case bigWord(String)
}

/// One thing that can take focus or be read: a label, a value, a hint and traits.
///
/// An element that `combinesChildren` is one stop for focus and speech (a story card is one
/// element, not five); a `isHidden` element is decorative: drawn, never spoken or focused.
public struct AccessibilityElement: Sendable, Hashable, Identifiable {
    /// Stable within its screen: focus is restored by id when coming back.
    public var id: String
    public var label: String
    /// The label as it is said, where that differs from what is shown: Help shows "- and +" and
    /// says "minus and plus" (the caption is what is said).
    public var spokenLabel: String?
    public var value: String?
    public var hint: String?
    public var traits: AccessibilityTraits
    /// Higher first, as VoiceOver orders; equal priorities keep their position in the tree.
    public var sortPriority: Double
    public var customActions: [CustomAction]
    public var isHidden: Bool
    public var combinesChildren: Bool
    public var children: [AccessibilityElement]
    public var content: ElementContent

    public init(
        id: String, label: String, value: String? = nil, hint: String? = nil, traits: AccessibilityTraits = .staticText,
        sortPriority: Double = 0, customActions: [CustomAction] = [], isHidden: Bool = false,
        combinesChildren: Bool = false, children: [AccessibilityElement] = [], content: ElementContent = .plain,
        spokenLabel: String? = nil
    ) {
        self.id = id
        self.label = label
        self.spokenLabel = spokenLabel
        self.value = value
        self.hint = hint
        self.traits = traits
        self.sortPriority = sortPriority
        self.customActions = customActions
        self.isHidden = isHidden
        self.combinesChildren = combinesChildren
        self.children = children
        self.content = content
    }

    /// Whether focus can stop here.
    public var isFocusable: Bool { !isHidden && !label.isEmpty }
}

/// A screen: a title and a tree of elements.
public struct Screen: Sendable, Hashable {
    public enum Kind: String, Sendable, Hashable, Codable {
        case library, story, reader, profileForm, settings, help, pinPrompt, parentMenu, timeUp, profiles, actions, bookmarks
    }

    public var kind: Kind
    /// Spoken when the screen opens and by "where am I" ("Library, 12 stories").
    public var title: String
    public var elements: [AccessibilityElement]
    /// The language the screen was built in: the renderer's own words (scroll indicators, "✓
    /// selected", the state words it gives a symbol) come from it too.
    public var messages: MessageCatalog

    public init(kind: Kind, title: String, elements: [AccessibilityElement], messages: MessageCatalog = .english) {
        self.kind = kind
        self.title = title
        self.elements = elements
        self.messages = messages
    }
}
