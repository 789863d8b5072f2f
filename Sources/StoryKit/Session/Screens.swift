import Foundation

/// Screens are functions from the state to an element tree.
public enum Screens {
    public static func screen(for state: State, catalog: StoryCatalog) -> Screen {
        kioskDecorated(route(state, catalog: catalog), state)
    }

    static func route(_ state: State, catalog: StoryCatalog) -> Screen {
        switch state.route {
        case .profiles: profiles(state)
        case .library: library(state, catalog: catalog)
        case .story(let id): story(state, entry: catalog.entry(id: id))
        case .reader: reader(state)
        case .profileForm: profileForm(state)
        case .settings: settings(state)
        case .help: help(state)
        case .pinPrompt: pinPrompt(state)
        case .parentMenu: parentMenu(state)
        case .timeUp: timeUp(state)
        case .actions(let id): actions(state, catalog: catalog, of: id)
        }
    }

    /// The item whose actions are listed, as the screen below shows it.
    static func actionTarget(_ state: State, catalog: StoryCatalog, id: String) -> AccessibilityElement? {
        var below = state
        below.stack.removeLast()
        return FocusEngine(screen: route(below, catalog: catalog)).order.first { $0.id == id }
    }

    static func actions(_ state: State, catalog: StoryCatalog, of id: String) -> Screen {
        let target = actionTarget(state, catalog: catalog, id: id)
        let name = target.map { $0.label.hasPrefix("Story: ") ? String($0.label.dropFirst(7)) : $0.label } ?? "this item"
        let actions = target?.customActions ?? []
        var elements = [AccessibilityElement(id: "heading", label: "Actions for \(name)",
                                             value: actions.count == 1 ? "1 item" : "\(actions.count) items", traits: .header)]
        elements += actions.map { AccessibilityElement(id: "action-" + $0.id, label: $0.name, hint: "Press Enter to do it.", traits: .button) }
        elements.append(AccessibilityElement(id: "cancel", label: "Cancel", hint: "Press Enter or Escape to go back.", traits: .button))
        return Screen(kind: .actions, title: "Actions for \(name)", elements: elements)
    }

    static func warningElement(_ state: State) -> [AccessibilityElement] {
        guard let warning = state.warning else { return [] }
        return [AccessibilityElement(id: "warning", label: "Problem: " + warning, traits: [.staticText, .warning], sortPriority: 10)]
    }

    // MARK: Profiles

    static func profiles(_ state: State) -> Screen {
        let count = state.snapshot.profiles.count
        var elements: [AccessibilityElement] = [
            AccessibilityElement(id: "heading", label: "Who is reading?", value: count == 1 ? "1 profile" : "\(count) profiles", traits: .header),
        ]
        for profile in state.snapshot.profiles {
            var facts: [String] = ["age \(profile.age)"]
            if !profile.interests.isEmpty { facts.append("likes " + profile.interests.joined(separator: " and ")) }
            elements.append(AccessibilityElement(
                id: "profile-" + profile.name, label: profile.name, value: facts.isEmpty ? nil : facts.joined(separator: ", "),
                hint: "Press Enter to read as \(profile.name).",
                traits: state.profileName == profile.name ? [.button, .selected] : .button))
        }
        if !state.options.isLocked {
            elements.append(AccessibilityElement(id: "new-profile", label: "New profile", hint: "Press Enter to make a profile.", traits: .button))
        }
        elements.append(AccessibilityElement(id: "guest", label: "Read without a profile", hint: "Press Enter to go to the library.", traits: .button))
        return Screen(kind: .profiles, title: "Profiles", elements: warningElement(state) + elements)
    }

    // MARK: Library

    /// The library's sections: the profile's interests first, then by age band.
    static func sections(_ state: State, catalog: StoryCatalog) -> [(id: String, title: String, entries: [StoryEntry])] {
        let profile = state.profile
        var remaining = catalog.entries.filter { entry in
            guard state.profileName != nil, let ages = entry.ages else { return true }
            return ages.contains(profile.age)
        }
        var sections: [(id: String, title: String, entries: [StoryEntry])] = []
        let favourites = remaining.filter { state.reading($0.id).isFavourite }
        if !favourites.isEmpty { sections.append(("favourites", "Favourites", favourites)) }
        for interest in profile.interests {
            let matching = remaining.filter { $0.tags.contains(interest) }
            guard !matching.isEmpty else { continue }
            sections.append(("interest-" + interest, interest.prefix(1).uppercased() + interest.dropFirst(), matching))
            remaining.removeAll { matching.contains($0) }
        }
        if !profile.interests.isEmpty {
            if !remaining.isEmpty { sections.append(("more", "More stories", remaining)) }
            return sections
        }
        let bands = Dictionary(grouping: remaining) { $0.ages }
        for band in bands.keys.sorted(by: { ($0?.lower ?? 99, $0?.upper ?? 99) < ($1?.lower ?? 99, $1?.upper ?? 99) }) {
            let title = band.map { $0.lower == $0.upper ? "Age \($0.lower)" : "Ages \($0.lower) to \($0.upper)" } ?? "All ages"
            sections.append(("ages-" + (band?.description ?? "all"), title, bands[band] ?? []))
        }
        return sections
    }

    public static func readCountText(_ count: Int) -> String {
        switch count {
        case 0: "not read yet"
        case 1: "read once"
        default: "read \(count) times"
        }
    }

    static func library(_ state: State, catalog: StoryCatalog) -> Screen {
        let profile = state.profile
        var elements: [AccessibilityElement] = [
            state.kiosk == nil
                ? AccessibilityElement(id: "switch-profile", label: "Profile: \(profile.name)",
                                       hint: "Press Enter to change profile.", traits: .button, sortPriority: 0)
                : AccessibilityElement(id: "profile", label: "Profile: \(profile.name)", traits: .staticText, sortPriority: 0),
        ]
        if let storyID = state.snapshot.inProgress[profile.name], let entry = catalog.entry(id: storyID),
           let sentence = state.reading(storyID).sentenceIndex {
            elements.append(AccessibilityElement(
                id: "go-on", label: "Go on reading", value: "\(entry.title), \(placeText(entry: entry, sentence: sentence))",
                hint: "Press Enter to go on from your place.", traits: .button, sortPriority: 0))
        }
        let sections = sections(state, catalog: catalog)
        for section in sections {
            let cards = section.entries.map { entry -> AccessibilityElement in
                let reading = state.reading(entry.id)
                var value = readCountText(reading.readCount)
                if reading.isFavourite { value += ", favourite" }
                if let sentence = reading.sentenceIndex { value += ", started, " + placeText(entry: entry, sentence: sentence) }
                let details = AccessibilityElement(id: section.id + "/" + entry.id + "/ages", label: entry.ages.map { "ages \($0.lower) to \($0.upper)" } ?? "all ages")
                return AccessibilityElement(
                    id: section.id + "/" + entry.id, label: "Story: \(entry.title)", value: value, hint: "Press Enter to open.",
                    traits: .button,
                    customActions: [reading.sentenceIndex == nil ? CustomAction(id: "read", name: "Read") : CustomAction(id: "resume", name: "Go on reading"),
                                    CustomAction(id: "save", name: reading.isFavourite ? "Remove from favourites" : "Save to favourites")],
                    combinesChildren: true, children: [details])
            }
            elements.append(AccessibilityElement(
                id: section.id, label: section.title,
                value: section.entries.count == 1 ? "contains 1 story" : "contains \(section.entries.count) stories",
                traits: .header, children: cards))
        }
        if sections.isEmpty {
            elements.append(AccessibilityElement(id: "empty", label: "No stories here yet", hint: "Add stories with storyreader import.", traits: .staticText))
        }
        elements.append(AccessibilityElement(id: "settings", label: "Settings", hint: "Press Enter to change voice, speed and text size.", traits: .button))
        elements.append(AccessibilityElement(id: "help", label: "Help", hint: "Press Enter to learn the keys.", traits: .button))
        // A favourite is listed twice (in Favourites and its own section) but is one story.
        let count = Set(sections.flatMap { $0.entries.map(\.id) }).count
        return Screen(kind: .library, title: "Library, \(count == 1 ? "1 story" : "\(count) stories")", elements: warningElement(state) + elements)
    }

    // MARK: Story

    static func minutes(words: Int, rate: Int) -> String {
        let minutes = max(1, Int((Double(words) / Double(max(rate, 1))).rounded()))
        return minutes == 1 ? "about 1 minute" : "about \(minutes) minutes"
    }

    /// "page 2 of 5" (a one-page story: "sentence 4 of 30") for a saved place, from the library's
    /// entry: no story file is read to draw a screen.
    public static func placeText(entry: StoryEntry, sentence: Int) -> String {
        entry.pages > 1 ? "page \(entry.page(ofSentence: sentence) + 1) of \(entry.pages)"
            : "sentence \(min(sentence + 1, max(entry.sentences, 1))) of \(max(entry.sentences, 1))"
    }

    static func story(_ state: State, entry: StoryEntry?) -> Screen {
        guard let entry else {
            return Screen(kind: .story, title: "Story not found", elements: [
                AccessibilityElement(id: "missing", label: "This story is no longer in the library", traits: .staticText)])
        }
        let reading = state.reading(entry.id)
        var elements: [AccessibilityElement] = [
            AccessibilityElement(id: "title", label: entry.title, value: readCountText(reading.readCount), traits: .header),
        ]
        if let author = entry.author { elements.append(AccessibilityElement(id: "author", label: "by \(author)")) }
        let pages = entry.pages == 1 ? "1 page" : "\(entry.pages) pages"
        elements.append(AccessibilityElement(
            id: "length", label: "Length", value: "\(entry.words) words, \(minutes(words: entry.words, rate: state.profile.speech.rate)), \(pages)"))
        if let summary = entry.summary { elements.append(AccessibilityElement(id: "summary", label: summary)) }
        // A story left midway offers going on first, then starting again.
        var actions: [AccessibilityElement] = []
        if let sentence = reading.sentenceIndex {
            let page = entry.page(ofSentence: sentence) + 1
            actions.append(AccessibilityElement(id: "resume", label: entry.pages > 1 ? "Go on from page \(page)" : "Go on reading",
                value: entry.pages > 1 ? nil : placeText(entry: entry, sentence: sentence),
                hint: "Press Enter to go on where you stopped.", traits: .button))
            actions.append(AccessibilityElement(id: "read", label: "Start again", hint: "Press Enter to read from the beginning.", traits: .button))
        } else {
            actions.append(AccessibilityElement(id: "read", label: "Read", hint: "Press Enter to read from the beginning.", traits: .button))
        }
        actions.append(AccessibilityElement(
            id: "save", label: reading.isFavourite ? "Remove from favourites" : "Save to favourites",
            hint: "Press Enter to change.", traits: .button))
        elements.append(contentsOf: actions)
        for (index, description) in entry.pictureDescriptions.enumerated() {
            elements.append(AccessibilityElement(id: "picture-\(index)", label: "Picture: " + description, traits: .image, content: .picture(art: nil)))
        }
        return Screen(kind: .story, title: entry.title, elements: elements)
    }

    // MARK: Reader

    static func reader(_ state: State) -> Screen {
        guard let reader = state.reader else {
            return Screen(kind: .reader, title: "Reader", elements: [AccessibilityElement(id: "none", label: "Nothing is being read")])
        }
        let story = reader.story
        let words = story.words
        let current = words.isEmpty ? nil : words[min(max(reader.wordIndex, 0), words.count - 1)]
        let page = story.pages[min(reader.page, max(story.pages.count - 1, 0))]
        let playing = reader.status == .playing
        let status: String = switch reader.status {
        case .playing: "reading"
        case .paused: "paused"
        case .stopped: "stopped"
        case .finished: "finished"
        }
        var elements: [AccessibilityElement] = [
            AccessibilityElement(id: "title", label: story.title, traits: .header, sortPriority: 2),
            AccessibilityElement(id: "progress", label: "Progress", value: "page \(reader.page + 1) of \(reader.map.pageCount), " + status,
                                 traits: [.staticText, .updatesFrequently], sortPriority: 2),
        ]
        if let explained = reader.explained {
            // The word explained (`e`), big with its syllables; its label says it as it is spelled.
            let word = Session.bare(words.indices.contains(explained.word) ? words[explained.word].text : "")
            elements.append(AccessibilityElement(id: "explained-word", label: "‘\(explained.shown)’, spelled \(word.map { String($0) }.joined(separator: " "))",
                                                 traits: .staticText, sortPriority: 2, content: .bigWord(explained.shown)))
        }
        if reader.status == .finished {
            // What the celebration ends on, and all of it with reduced motion.
            elements.append(AccessibilityElement(id: "the-end", label: "★ The end!", value: "you finished \(story.title)", sortPriority: 2))
        }
        for (index, block) in page.blocks.enumerated() {
            let highlight: TextRange? = current.flatMap { word in
                block.range.contains(word.range.start) ? word.range.shifted(by: -block.range.start) : nil
            }
            switch block.kind {
            case .heading:
                elements.append(AccessibilityElement(id: "block-\(index)", label: block.text, traits: .header,
                    content: .readingText(text: block.text, highlight: highlight, emphasis: [])))
            case .paragraph:
                elements.append(AccessibilityElement(id: "block-\(index)", label: block.text, traits: .staticText,
                    content: .readingText(text: block.text, highlight: highlight,
                                          emphasis: block.emphasis.map { $0.shifted(by: -block.range.start) })))
            case .picture:
                elements.append(AccessibilityElement(id: "block-\(index)", label: "Picture: " + block.text, traits: .image, content: .picture(art: nil)))
            }
        }
        let speech = state.profile.speech
        let controls: [AccessibilityElement] = [
            AccessibilityElement(id: "play", label: playing ? "Pause" : "Play", hint: playing ? "Press Space to pause." : "Press Space to go on.", traits: .button, sortPriority: 1),
            AccessibilityElement(id: "stop", label: "Stop", hint: "Press q to stop and go back.", traits: .button, sortPriority: 1),
            AccessibilityElement(id: "previous-sentence", label: "Previous sentence", traits: .button, sortPriority: 1),
            AccessibilityElement(id: "next-sentence", label: "Next sentence", traits: .button, sortPriority: 1),
            AccessibilityElement(id: "previous-paragraph", label: "Previous paragraph", traits: .button, sortPriority: 1),
            AccessibilityElement(id: "next-paragraph", label: "Next paragraph", traits: .button, sortPriority: 1),
            AccessibilityElement(id: "slower", label: "Slower", value: "\(speech.rate) words per minute", traits: .button, sortPriority: 1),
            AccessibilityElement(id: "faster", label: "Faster", value: "\(speech.rate) words per minute", traits: .button, sortPriority: 1),
            AccessibilityElement(id: "step", label: "Step mode", value: reader.stepMode ? "on" : "off",
                                 hint: "In step mode each sentence waits for Enter.", traits: reader.stepMode ? [.button, .selected] : .button, sortPriority: 1),
        ]
        elements.append(contentsOf: controls)
        return Screen(kind: .reader, title: "Reading \(story.title)", elements: elements)
    }

    // MARK: Profile form

    static func profileForm(_ state: State) -> Screen {
        let form = state.form ?? ProfileForm()
        let title = form.original == nil ? "New profile" : "Edit profile"
        var elements: [AccessibilityElement] = [AccessibilityElement(id: "heading", label: title, traits: .header)]
        for field in form.fields {
            // The field's purpose and its rule, in the form's own words.
            guard field.field.isInput else {
                elements.append(AccessibilityElement(id: field.field.rawValue, label: field.label,
                                                     hint: field.hint.capitalizedFirst + ".", traits: .button))
                continue
            }
            var value = field.value.isEmpty ? "empty" : field.value
            if let choices = field.field.choices {
                // A picker: its place in the list, not every name in the hint.
                if let index = choices.firstIndex(of: field.value.lowercased()) { value += ", \(index + 1) of \(choices.count)" }
                if let problem = field.problem { value += ", problem: " + problem.message }
                elements.append(AccessibilityElement(
                    id: "field-" + field.field.rawValue, label: field.label, value: value,
                    hint: field.hint.capitalizedFirst + ". Left and Right arrows choose, or type a first letter.",
                    traits: .adjustable))
                continue
            }
            let hint = field.hint.capitalizedFirst + ": " + field.constraint + "."
            if let problem = field.problem { value += ", problem: " + problem.message }
            elements.append(AccessibilityElement(
                id: "field-" + field.field.rawValue, label: field.label, value: value, hint: hint,
                traits: .textField, content: .field(text: field.value, cursor: field.value.count)))
        }
        if form.isConfirmingCancel {
            elements.append(AccessibilityElement(id: "discard", label: "Discard changes", hint: "Press Enter to leave without saving.", traits: .button, sortPriority: 1))
            elements.append(AccessibilityElement(id: "keep-editing", label: "Keep editing", hint: "Press Enter to go back to the form.", traits: .button, sortPriority: 1))
        }
        return Screen(kind: .profileForm, title: title, elements: warningElement(state) + elements)
    }

    // MARK: Settings

    static let voices: [String?] = [nil, "en", "en-us", "en+f3", "es", "fr", "de"]

    public static func settingValue(_ setting: SettingName, _ profile: ChildProfile) -> String {
        switch setting {
        case .voice: profile.speech.voice ?? "the story's language"
        case .rate: "\(profile.speech.rate) words per minute"
        case .pitch: "\(profile.speech.pitch)"
        case .volume: "\(profile.speech.volume)"
        case .textSize: profile.textSize.rawValue
        case .motion: profile.motion.rawValue
        case .theme: profile.theme.rawValue
        case .hints: profile.hints ? "on" : "off"
        case .lineFocus: profile.settings.aids.lineFocus == .off ? "off" : profile.settings.aids.lineFocus == .one ? "1 line" : "\(profile.settings.aids.lineFocus.rawValue) lines"
        case .syllables: profile.settings.aids.syllables ? "on" : "off"
        case .spacing: profile.settings.aids.spacing.rawValue
        }
    }

    static func settings(_ state: State) -> Screen {
        let profile = state.profile
        var elements: [AccessibilityElement] = [
            AccessibilityElement(id: "heading", label: "Settings for \(profile.name)", traits: .header),
        ]
        for setting in SettingName.allCases where !state.options.isLocked || SettingName.childSettings.contains(setting) {
            elements.append(AccessibilityElement(
                id: "setting-" + setting.rawValue, label: setting.spokenName,
                value: settingValue(setting, profile) + (state.presentationOverride.holds(setting) ? " (for this run)" : ""),
                hint: "Left and Right arrows change it.", traits: .adjustable))
        }
        if state.profileName != nil, !state.options.isLocked {
            elements.append(AccessibilityElement(id: "edit-profile", label: "Edit profile",
                hint: "Press Enter to change \(profile.name)'s name, age, interests and every reading setting.", traits: .button))
        }
        if state.snapshot.pinIsSet {
            elements.append(AccessibilityElement(id: "pin", label: "Parental PIN", value: "set", traits: .staticText))
        }
        elements.append(AccessibilityElement(id: "done", label: "Done", hint: "Press Enter to go back.", traits: .button))
        return Screen(kind: .settings, title: "Settings", elements: elements)
    }

    static func pinPrompt(_ state: State) -> Screen {
        let count = state.pinEntry.count
        return Screen(kind: .pinPrompt, title: "Parental PIN", elements: warningElement(state) + [
            AccessibilityElement(id: "pin", label: "PIN", value: count == 1 ? "1 digit entered" : "\(count) digits entered",
                                 hint: "Type the PIN, then press Enter.", traits: .textField, content: .field(text: String(repeating: "•", count: count), cursor: count)),
        ])
    }

    // MARK: Help

    /// The keys, grouped by where they apply (help shows them in this order; the first is
    /// focused when help opens).
    public static let keyGroups: [(title: String, keys: [(keys: String, does: String)])] = [
        ("Everywhere", [
            ("? (question mark)", "help"),
            ("Escape", "go back"),
            ("Control W", "where am I"),
            (": (colon)", "type a command, like read lighthouse; each letter is said; Up arrow for earlier commands, Tab to complete a command or a story's name"),
            ("Control Q", "quit"),
        ]),
        ("In lists and on buttons", [
            ("Tab, Down or Right arrow", "next item"),
            ("Shift Tab, Up or Left arrow", "previous item"),
            ("Enter or Space", "press the focused item"),
            ("h", "next heading; capital H, previous heading"),
            ("a or Shift F10", "the focused item's actions, such as Read or Save to favourites, as a list"),
            ("a letter", "jump to the next item starting with it (a: actions, where there are some)"),
            ("- and + (minus and plus)", "slower and faster; on a setting, turn it down and up"),
        ]),
        ("In forms and settings", [
            ("letters", "type into the focused field; each is said"),
            ("Backspace", "delete the last letter, and say it"),
            ("Enter", "check the field and go to the next"),
            ("Left and Right arrows", "change the focused setting"),
        ]),
    ]

    /// The kiosk's own keys, shown in its help.
    static let kioskKeys: [(keys: String, does: String)] = [
        ("t", "how much time is left"),
        ("F12 or Control ]", "for a grown-up: the PIN, to leave, switch profile or add time"),
    ]

    static func help(_ state: State) -> Screen {
        var elements: [AccessibilityElement] = []
        var groups = keyGroups
        groups.insert(("While reading", KeyHelp.readingKeys), at: 2)
        if state.kiosk != nil { groups.append(("In this kiosk", kioskKeys)) }
        for (group, entry) in groups.enumerated() {
            elements.append(AccessibilityElement(id: group == 2 ? "reading-keys" : "keys-\(group)", label: entry.title, traits: .header))
            for (index, key) in entry.keys.enumerated() where !(state.options.isLocked && key.keys == "Control Q") {
                elements.append(AccessibilityElement(id: "key-\(group)-\(index)", label: key.keys, value: key.does))
            }
        }
        elements.append(AccessibilityElement(id: "commands", label: "Commands", traits: .header))
        elements.append(AccessibilityElement(id: "command-list", label: "Type a command and press Enter",
            value: Command.names.filter { !["jump", "type"].contains($0) && (!state.options.isLocked || state.options.allowedCommands.contains($0)) }
                .joined(separator: ", ")))
        elements.append(AccessibilityElement(id: "learn", label: "Learn mode", value: state.isLearning ? "on" : "off",
            hint: "Press Enter, then any key to hear what it does. Escape leaves.", traits: .button))
        return Screen(kind: .help, title: "Help", elements: elements)
    }
}
