import Foundation

/// Screens are functions from the state to an element tree.
public enum Screens {
    public static func screen(for state: State, catalog: StoryCatalog) -> Screen {
        var screen = kioskDecorated(route(state, catalog: catalog), state)
        screen.messages = state.messages
        return screen
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
        case .bookmarks(let story): bookmarks(state, catalog: catalog, story: story)
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
        let storyPrefix = state.tr("Story: {title}", ["title": ""])
        let name = target.map { $0.label.hasPrefix(storyPrefix) ? String($0.label.dropFirst(storyPrefix.count)) : $0.label } ?? state.tr("this item")
        let actions = target?.customActions ?? []
        var elements = [
            AccessibilityElement(
                id: "heading", label: state.tr("Actions for {name}", ["name": name]),
                value: state.trn("{count} item", "{count} items", actions.count), traits: .header)
        ]
        elements += actions.map { AccessibilityElement(id: "action-" + $0.id, label: $0.name, hint: state.tr("Press Enter to do it."), traits: .button) }
        elements.append(AccessibilityElement(id: "cancel", label: state.tr("Cancel"), hint: state.tr("Press Enter or Escape to go back."), traits: .button))
        return Screen(kind: .actions, title: state.tr("Actions for {name}", ["name": name]), elements: elements)
    }

    static func warningElement(_ state: State) -> [AccessibilityElement] {
        guard let warning = state.warning else { return [] }
        return [
            AccessibilityElement(id: "warning", label: state.tr("Problem: {problem}", ["problem": warning]), traits: [.staticText, .warning], sortPriority: 10)
        ]
    }

    // MARK: Profiles

    static func profiles(_ state: State) -> Screen {
        let count = state.snapshot.profiles.count
        var elements: [AccessibilityElement] = [
            AccessibilityElement(
                id: "heading", label: state.tr("Who is reading?"), value: state.trn("{count} profile", "{count} profiles", count),
                traits: .header)
        ]
        for profile in state.snapshot.profiles {
            var facts: [String] = [state.tr("age {age}", ["age": String(profile.age)])]
            if !profile.interests.isEmpty {
                facts.append(state.tr("likes {interests}", ["interests": profile.interests.joined(separator: state.tr(" and "))]))
            }
            elements.append(
                AccessibilityElement(
                    id: "profile-" + profile.name, label: profile.name, value: facts.isEmpty ? nil : facts.joined(separator: ", "),
                    hint: state.tr("Press Enter to read as {name}.", ["name": profile.name]),
                    traits: state.profileName == profile.name ? [.button, .selected] : .button))
        }
        if !state.options.isLocked {
            elements.append(
                AccessibilityElement(id: "new-profile", label: state.tr("New profile"), hint: state.tr("Press Enter to make a profile."), traits: .button))
        }
        elements.append(
            AccessibilityElement(id: "guest", label: state.tr("Read without a profile"), hint: state.tr("Press Enter to go to the library."), traits: .button))
        return Screen(kind: .profiles, title: state.tr("Profiles"), elements: warningElement(state) + elements)
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
        if !favourites.isEmpty { sections.append(("favourites", state.tr("Favourites"), favourites)) }
        for interest in profile.interests {
            let matching = remaining.filter { $0.tags.contains(interest) }
            guard !matching.isEmpty else { continue }
            sections.append(("interest-" + interest, interest.prefix(1).uppercased() + interest.dropFirst(), matching))
            remaining.removeAll { matching.contains($0) }
        }
        if !profile.interests.isEmpty {
            if !remaining.isEmpty { sections.append(("more", state.tr("More stories"), remaining)) }
            return sections
        }
        let bands = Dictionary(grouping: remaining) { $0.ages }
        for band in bands.keys.sorted(by: { ($0?.lower ?? 99, $0?.upper ?? 99) < ($1?.lower ?? 99, $1?.upper ?? 99) }) {
            let title =
                band.map {
                    $0.lower == $0.upper
                        ? state.tr("Age {age}", ["age": String($0.lower)])
                        : state.tr("Ages {min} to {max}", ["min": String($0.lower), "max": String($0.upper)])
                } ?? state.tr("All ages")
            sections.append(("ages-" + (band?.description ?? "all"), title, bands[band] ?? []))
        }
        return sections
    }

    /// "read 3 times, read aloud with the coach once": the finished reads, and the reads aloud with the
    /// coach apart (a coached read is the child's own, not the story heard to its end).
    public static func readCountText(_ count: Int, coached: Int = 0, messages: MessageCatalog = .english) -> String {
        let read = count == 0 ? messages.tr("not read yet") : messages.trn("read once", "read {count} times", count)
        guard coached > 0 else { return read }
        let toTheCoach = messages.trn("read aloud with the coach once", "read aloud with the coach {count} times", coached)
        return count == 0 ? toTheCoach : read + ", " + toTheCoach
    }

    static func readCountText(_ reading: ReadingRecord, messages: MessageCatalog) -> String {
        readCountText(reading.readCount, coached: reading.coachedCount, messages: messages)
    }

    static func library(_ state: State, catalog: StoryCatalog) -> Screen {
        let profile = state.profile
        var elements: [AccessibilityElement] = [
            state.kiosk == nil
                ? AccessibilityElement(
                    id: "switch-profile", label: state.tr("Profile: {name}", ["name": profile.name]),
                    hint: state.tr("Press Enter to change profile."), traits: .button, sortPriority: 0)
                : AccessibilityElement(id: "profile", label: state.tr("Profile: {name}", ["name": profile.name]), traits: .staticText, sortPriority: 0)
        ]
        if let storyID = state.snapshot.inProgress[profile.name], let entry = catalog.entry(id: storyID),
            let sentence = state.reading(storyID).sentenceIndex
        {
            elements.append(
                AccessibilityElement(
                    id: "go-on", label: state.tr("Go on reading"),
                    value: "\(entry.title), \(placeText(entry: entry, sentence: sentence, messages: state.messages))",
                    hint: state.tr("Press Enter to go on from your place."), traits: .button, sortPriority: 0))
        }
        let sections = sections(state, catalog: catalog)
        for section in sections {
            let cards = section.entries.map { entry -> AccessibilityElement in
                let reading = state.reading(entry.id)
                // A story begun and never finished is "started", not also "not read yet".
                var parts =
                    reading.readCount == 0 && reading.coachedCount == 0 && reading.sentenceIndex != nil
                    ? [] : [readCountText(reading, messages: state.messages)]
                if reading.isFavourite { parts.append(state.tr("favourite")) }
                if let sentence = reading.sentenceIndex {
                    parts.append(state.tr("started, {place}", ["place": placeText(entry: entry, sentence: sentence, messages: state.messages)]))
                }
                let value = parts.joined(separator: ", ")
                let details = AccessibilityElement(
                    id: section.id + "/" + entry.id + "/ages",
                    label: entry.ages.map {
                        state.tr("ages {min} to {max}", ["min": String($0.lower), "max": String($0.upper)])
                    } ?? state.tr("all ages"))
                return AccessibilityElement(
                    id: section.id + "/" + entry.id, label: state.tr("Story: {title}", ["title": entry.title]), value: value,
                    hint: state.tr("Press Enter to open."), traits: .button,
                    customActions: [
                        reading.sentenceIndex == nil
                            ? CustomAction(id: "read", name: state.tr("Read"))
                            : CustomAction(id: "resume", name: state.tr("Go on reading")),
                        CustomAction(id: "save", name: reading.isFavourite ? state.tr("Remove from favourites") : state.tr("Save to favourites")),
                    ] + bookmarksAction(state, story: entry.id),
                    combinesChildren: true, children: [details])
            }
            elements.append(
                AccessibilityElement(
                    id: section.id, label: section.title,
                    value: state.trn("contains {count} story", "contains {count} stories", section.entries.count),
                    traits: .header, children: cards))
        }
        if catalog.isLoading {
            elements.append(AccessibilityElement(id: "loading", label: state.tr("Loading the stories…"), traits: [.staticText, .updatesFrequently]))
        } else if sections.isEmpty {
            elements.append(
                AccessibilityElement(
                    id: "empty", label: state.tr("No stories here yet"), hint: state.tr("Add stories with storyreader import."), traits: .staticText))
        }
        elements.append(
            AccessibilityElement(
                id: "settings", label: state.tr("Settings"), hint: state.tr("Press Enter to change voice, speed and text size."),
                traits: .button))
        elements.append(AccessibilityElement(id: "help", label: state.tr("Help"), hint: state.tr("Press Enter to learn the keys."), traits: .button))
        // A favourite is listed twice (in Favourites and its own section) but is one story.
        let count = Set(sections.flatMap { $0.entries.map(\.id) }).count
        let title = catalog.isLoading ? state.tr("Library") : state.trn("Library, {count} story", "Library, {count} stories", count)
        return Screen(kind: .library, title: title, elements: warningElement(state) + elements)
    }

    // MARK: Story

    static func minutes(words: Int, rate: Int, messages: MessageCatalog = .english) -> String {
        let minutes = max(1, Int((Double(words) / Double(max(rate, 1))).rounded()))
        return messages.trn("about {count} minute", "about {count} minutes", minutes)
    }

    /// "page 2 of 5" (a one-page story: "sentence 4 of 30") for a saved place, from the library's
    /// entry: no story file is read to draw a screen.
    public static func placeText(entry: StoryEntry, sentence: Int, messages: MessageCatalog = .english) -> String {
        entry.pages > 1
            ? messages.tr("page {page} of {pages}", ["page": String(entry.page(ofSentence: sentence) + 1), "pages": String(entry.pages)])
            : messages.tr(
                "sentence {sentence} of {sentences}",
                [
                    "sentence": String(min(sentence + 1, max(entry.sentences, 1))),
                    "sentences": String(max(entry.sentences, 1)),
                ])
    }

    static func story(_ state: State, entry: StoryEntry?) -> Screen {
        guard let entry else {
            return Screen(
                kind: .story, title: state.tr("Story not found"),
                elements: [
                    AccessibilityElement(id: "missing", label: state.tr("This story is no longer in the library"), traits: .staticText)
                ])
        }
        let reading = state.reading(entry.id)
        var elements: [AccessibilityElement] = [
            AccessibilityElement(id: "title", label: entry.title, value: readCountText(reading, messages: state.messages), traits: .header)
        ]
        if let author = entry.author { elements.append(AccessibilityElement(id: "author", label: state.tr("by {author}", ["author": author]))) }
        let pages = state.trn("{count} page", "{count} pages", entry.pages)
        let minutes = minutes(words: entry.words, rate: state.profile.speech.rate, messages: state.messages)
        elements.append(
            AccessibilityElement(
                id: "length", label: state.tr("Length"), value: state.trn("{count} word", "{count} words", entry.words) + ", \(minutes), \(pages)"))
        if let summary = entry.summary { elements.append(AccessibilityElement(id: "summary", label: summary)) }
        // A story left midway offers going on first, then starting again.
        var actions: [AccessibilityElement] = []
        if let sentence = reading.sentenceIndex {
            let page = entry.page(ofSentence: sentence) + 1
            actions.append(
                AccessibilityElement(
                    id: "resume", label: entry.pages > 1 ? state.tr("Go on from page {page}", ["page": String(page)]) : state.tr("Go on reading"),
                    value: entry.pages > 1 ? nil : placeText(entry: entry, sentence: sentence, messages: state.messages),
                    hint: state.tr("Press Enter to go on where you stopped."), traits: .button))
            actions.append(
                AccessibilityElement(id: "read", label: state.tr("Start again"), hint: state.tr("Press Enter to read from the beginning."), traits: .button))
        } else {
            actions.append(
                AccessibilityElement(id: "read", label: state.tr("Read"), hint: state.tr("Press Enter to read from the beginning."), traits: .button))
        }
        actions.append(
            AccessibilityElement(
                id: "save", label: reading.isFavourite ? state.tr("Remove from favourites") : state.tr("Save to favourites"),
                hint: state.tr("Press Enter to change."), traits: .button))
        if !bookmarksAction(state, story: entry.id).isEmpty { actions.append(bookmarksButton(state, story: entry.id)) }
        elements.append(contentsOf: actions)
        for (index, description) in entry.pictureDescriptions.enumerated() {
            elements.append(
                AccessibilityElement(
                    id: "picture-\(index)", label: state.tr("Picture: {description}", ["description": description]),
                    traits: .image, content: .picture(art: nil)))
        }
        return Screen(kind: .story, title: entry.title, elements: elements)
    }

    // MARK: Reader

    static func reader(_ state: State) -> Screen {
        guard let reader = state.reader else {
            return Screen(kind: .reader, title: state.tr("Reading"), elements: [AccessibilityElement(id: "none", label: state.tr("Nothing is being read"))])
        }
        let story = reader.story
        let words = story.words
        let current = words.isEmpty ? nil : words[min(max(reader.wordIndex, 0), words.count - 1)]
        let page = story.pages[min(reader.page, max(story.pages.count - 1, 0))]
        let playing = reader.status == .playing
        let status: String =
            switch reader.status {
            case _ where state.coaching != nil: state.tr("your turn to read")
            case .playing: state.tr("reading")
            case .paused: state.tr("paused")
            case .stopped: state.tr("stopped")
            case .finished: state.tr("finished")
            }
        var elements: [AccessibilityElement] = [
            AccessibilityElement(id: "title", label: story.title, traits: .header, sortPriority: 2),
            AccessibilityElement(
                id: "progress", label: state.tr("Progress"),
                value: state.tr("page {page} of {pages}", ["page": String(reader.page + 1), "pages": String(reader.map.pageCount)])
                    + (reader.map.printPage(ofSentence: reader.sentence).map { ", " + state.tr("print page {page}", ["page": reader.map.printPageLabels[$0]]) }
                        ?? "")
                    + ", " + status,
                traits: [.staticText, .updatesFrequently], sortPriority: 2),
        ]
        if let typed = reader.printPageEntry {
            // The `g` prompt: what is typed shows (and is said) as it is typed.
            elements.append(
                AccessibilityElement(
                    id: "print-page-prompt",
                    // The screen puts its own colon between the label and what is typed.
                    label: state.tr("Go to print page:").trimmingCharacters(in: CharacterSet(charactersIn: ": ")), value: typed,
                    hint: state.tr("Type the page's number and press Enter; Escape cancels."), traits: .textField, sortPriority: 2))
        }
        if let explained = reader.explained {
            // The word explained (`e`), big with its syllables; its label says it as it is spelled.
            let word = Session.bare(words.indices.contains(explained.word) ? words[explained.word].text : "")
            elements.append(
                AccessibilityElement(
                    id: "explained-word",
                    label: state.tr("‘{word}’, spelled {letters}", ["word": explained.shown, "letters": word.map { String($0) }.joined(separator: " ")]),
                    traits: .staticText, sortPriority: 2, content: .bigWord(explained.shown)))
        }
        if reader.status == .finished {
            // What the celebration ends on, and all of it with reduced motion.
            elements.append(
                AccessibilityElement(
                    id: "the-end", label: "★ " + state.tr("The end!"), value: state.tr("you finished {title}", ["title": story.title]), sortPriority: 2))
        }
        for (index, block) in page.blocks.enumerated() {
            let highlight: TextRange? = current.flatMap { word in
                block.range.contains(word.range.start) ? word.range.shifted(by: -block.range.start) : nil
            }
            switch block.kind {
            case .heading:
                elements.append(
                    AccessibilityElement(
                        id: "block-\(index)", label: block.text, traits: .header,
                        content: .readingText(text: block.text, highlight: highlight, emphasis: [])))
            case .paragraph:
                elements.append(
                    AccessibilityElement(
                        id: "block-\(index)", label: block.text, traits: .staticText,
                        content: .readingText(
                            text: block.text, highlight: highlight,
                            emphasis: block.emphasis.map { $0.shifted(by: -block.range.start) })))
            case .picture:
                elements.append(
                    AccessibilityElement(
                        id: "block-\(index)", label: state.tr("Picture: {description}", ["description": block.text]),
                        traits: .image, content: .picture(art: nil)))
            }
        }
        let speech = state.profile.speech
        let controls: [AccessibilityElement] = [
            AccessibilityElement(
                id: "play", label: playing ? state.tr("Pause") : state.tr("Play"),
                hint: playing ? state.tr("Press Space to pause.") : state.tr("Press Space to go on."), traits: .button, sortPriority: 1),
            AccessibilityElement(id: "stop", label: state.tr("Stop"), hint: state.tr("Press q to stop and go back."), traits: .button, sortPriority: 1),
            AccessibilityElement(id: "previous-sentence", label: state.tr("Previous sentence"), traits: .button, sortPriority: 1),
            AccessibilityElement(id: "next-sentence", label: state.tr("Next sentence"), traits: .button, sortPriority: 1),
            AccessibilityElement(id: "previous-paragraph", label: state.tr("Previous paragraph"), traits: .button, sortPriority: 1),
            AccessibilityElement(id: "next-paragraph", label: state.tr("Next paragraph"), traits: .button, sortPriority: 1),
            AccessibilityElement(
                id: "slower", label: state.tr("Slower"), value: state.tr("{rate} words per minute", ["rate": String(speech.rate)]),
                traits: .button, sortPriority: 1),
            AccessibilityElement(
                id: "faster", label: state.tr("Faster"), value: state.tr("{rate} words per minute", ["rate": String(speech.rate)]),
                traits: .button, sortPriority: 1),
            AccessibilityElement(
                id: "step", label: state.tr("Step mode"), value: reader.stepMode ? state.tr("on") : state.tr("off"),
                hint: state.tr("In step mode each sentence waits for Enter."), traits: reader.stepMode ? [.button, .selected] : .button, sortPriority: 1),
            bookmarksButton(state, story: story.id),
            AccessibilityElement(
                id: "coach", label: state.tr("I read it myself"), value: state.coaching != nil ? state.tr("on, listening") : state.tr("off"),
                hint: state.tr("Press r to read aloud yourself: I listen and help after a silence. Your voice is never kept."),
                traits: state.coaching != nil ? [.button, .selected] : .button, sortPriority: 1),
        ]
        elements.append(contentsOf: controls)
        return Screen(kind: .reader, title: state.tr("Reading {title}", ["title": story.title]), elements: elements)
    }

    // MARK: Profile form

    static func profileForm(_ state: State) -> Screen {
        let form = state.form ?? ProfileForm()
        let messages = state.messages
        let title = form.original == nil ? state.tr("New profile") : state.tr("Edit profile")
        var elements: [AccessibilityElement] = [AccessibilityElement(id: "heading", label: title, traits: .header)]
        for field in form.fields {
            // The field's purpose and its rule, in the form's own words.
            let label = messages.tr(field.label)
            let hint = field.field.hint(in: messages).capitalizedFirst
            guard field.field.isInput else {
                elements.append(AccessibilityElement(id: field.field.rawValue, label: label, hint: hint + ".", traits: .button))
                continue
            }
            var value = field.value.isEmpty ? state.tr("empty") : Self.choiceName(field.value, field: field.field, messages: messages)
            if field.field.isNumberPicker {
                // A number stepped as Settings steps it; typed (`type`, `set`) from a script.
                if let number = Int(field.value.trimmingCharacters(in: .whitespaces)) {
                    value = Session.formNumber(field.field, number, messages: messages)
                }
                if let problem = field.problem { value += ", " + state.tr("problem: {problem}", ["problem": problem.message(in: messages)]) }
                elements.append(
                    AccessibilityElement(
                        id: "field-" + field.field.rawValue, label: label, value: value,
                        hint: hint + ". " + state.tr("Left and Right arrows change it, or type a number."), traits: .adjustable))
                continue
            }
            if field.field == .voice { value = Self.voiceName(field.value, messages: messages) }
            // The bedtime's minutes said as minutes ("20 minutes"); the stored value stays "20".
            if field.field == .bedtime, let minutes = Int(field.value) { value = state.trn("{count} minute", "{count} minutes", minutes) }
            if let choices = form.choices(for: field.field) {
                // A picker: its place in the list, not every name in the hint.
                if let index = choices.firstIndex(where: { $0.lowercased() == field.value.lowercased() }) {
                    value += ", " + state.tr("{item} of {items}", ["item": String(index + 1), "items": String(choices.count)])
                }
                if let problem = field.problem { value += ", " + state.tr("problem: {problem}", ["problem": problem.message(in: messages)]) }
                elements.append(
                    AccessibilityElement(
                        id: "field-" + field.field.rawValue, label: label, value: value,
                        hint: hint + ". " + state.tr("Left and Right arrows choose, or type a first letter."),
                        traits: .adjustable))
                continue
            }
            if let problem = field.problem { value += ", " + state.tr("problem: {problem}", ["problem": problem.message(in: messages)]) }
            elements.append(
                AccessibilityElement(
                    id: "field-" + field.field.rawValue, label: label, value: value,
                    hint: hint + state.tr(": {rule}.", ["rule": field.field.constraint(in: messages)]),
                    traits: .textField, content: .field(text: field.value, cursor: field.value.count)))
        }
        if form.isConfirmingCancel {
            elements.append(
                AccessibilityElement(
                    id: "discard", label: state.tr("Discard changes"), hint: state.tr("Press Enter to leave without saving."),
                    traits: .button, sortPriority: 1))
            elements.append(
                AccessibilityElement(
                    id: "keep-editing", label: state.tr("Keep editing"), hint: state.tr("Press Enter to go back to the form."),
                    traits: .button, sortPriority: 1))
        }
        return Screen(kind: .profileForm, title: title, elements: warningElement(state) + elements)
    }

    /// A picker's value as said: on, off, automatic and the presentation choices (a theme, a text
    /// size) in the interface's language; a language named in itself, as it is.
    static func choiceName(_ value: String, messages: MessageCatalog) -> String {
        switch value.lowercased() {
        case "on": messages.tr("on")
        case "off": messages.tr("off")
        case "automatic": messages.tr("automatic")
        default: ChoiceNames.shown(value, messages)
        }
    }

    /// A field's picker value as said: the coach's wait in seconds ("3 seconds", in the
    /// interface's language), any other as ``choiceName(_:messages:)`` says it.
    static func choiceName(_ value: String, field: ProfileField, messages: MessageCatalog) -> String {
        if field == .coachWait, let seconds = CoachWait.seconds(loose: value) { return CoachWait.shown(seconds, messages) }
        return choiceName(value, messages: messages)
    }

    /// A voice as a picker says it: "the story's language" for none, a language the interface
    /// speaks by its own name ("Español (es)"), any other by its eSpeak name ("it", "en-us").
    static func voiceName(_ voice: String, messages: MessageCatalog) -> String {
        guard !voice.isEmpty else { return messages.tr("the story's language") }
        guard let own = InterfaceLanguage.ownNames[Session.speechLanguage(voice)] else { return voice }
        return messages.tr("{language} ({voice})", ["language": own, "voice": voice])
    }

    // MARK: Settings

    static let voices: [String?] = [nil, "en", "en-us", "en+f3", "es", "fr", "de"]

    /// The interface languages a picker offers: automatic (nil), then each one named in itself.
    static let interfaceLanguages: [String?] = [nil] + InterfaceLanguage.supported

    public static func settingValue(_ setting: SettingName, _ profile: ChildProfile, messages: MessageCatalog = .english) -> String {
        switch setting {
        case .voice: voiceName(profile.speech.voice ?? "", messages: messages)
        case .rate: messages.tr("{rate} words per minute", ["rate": String(profile.speech.rate)])
        case .pitch: "\(profile.speech.pitch)"
        case .volume: "\(profile.speech.volume)"
        case .textSize: ChoiceNames.shown(profile.textSize.rawValue, messages)
        case .motion: ChoiceNames.shown(profile.motion.rawValue, messages)
        case .theme: ChoiceNames.shown(profile.theme.rawValue, messages)
        case .hints: profile.hints ? ChoiceNames.shown(profile.settings.hintVerbosity.rawValue, messages) : messages.tr("off")
        case .lineFocus:
            profile.settings.aids.lineFocus == .off
                ? messages.tr("off")
                : messages.trn("{count} line", "{count} lines", Int(profile.settings.aids.lineFocus.rawValue) ?? 1)
        case .syllables: profile.settings.aids.syllables ? messages.tr("on") : messages.tr("off")
        case .spacing: ChoiceNames.shown(profile.settings.aids.spacing.rawValue, messages)
        case .language: profile.settings.interfaceLanguage.flatMap { InterfaceLanguage.ownNames[$0] } ?? messages.tr("automatic")
        case .braille: ChoiceNames.shown(profile.settings.brailleCode.rawValue, messages)
        case .narration: ChoiceNames.shown(profile.settings.narration.rawValue, messages)
        case .recordingTempo: RecordingTempo.spoken(profile.settings.recordingTempo, messages)
        }
    }

    static func settings(_ state: State) -> Screen {
        let profile = state.profile
        var elements: [AccessibilityElement] = [
            AccessibilityElement(id: "heading", label: state.tr("Settings for {name}", ["name": profile.name]), traits: .header)
        ]
        for setting in SettingName.allCases where !state.options.isLocked || SettingName.childSettings.contains(setting) {
            elements.append(
                AccessibilityElement(
                    id: "setting-" + setting.rawValue, label: state.tr(setting.spokenName),
                    value: settingValue(setting, profile, messages: state.messages)
                        + (state.presentationOverride.holds(setting) ? " " + state.tr("(for this run)") : ""),
                    hint: state.tr("Left and Right arrows change it."), traits: .adjustable))
        }
        if state.profileName != nil, !state.options.isLocked {
            elements.append(
                AccessibilityElement(
                    id: "edit-profile", label: state.tr("Edit profile"),
                    hint: state.tr("Press Enter to change {name}'s name, age, interests and every reading setting.", ["name": profile.name]), traits: .button))
        }
        if state.snapshot.pinIsSet {
            elements.append(AccessibilityElement(id: "pin", label: state.tr("Parental PIN"), value: state.tr("set"), traits: .staticText))
        }
        elements.append(AccessibilityElement(id: "done", label: state.tr("Done"), hint: state.tr("Press Enter to go back."), traits: .button))
        return Screen(kind: .settings, title: state.tr("Settings"), elements: elements)
    }

    static func pinPrompt(_ state: State) -> Screen {
        let count = state.pinEntry.count
        return Screen(
            kind: .pinPrompt, title: state.tr("Parental PIN"),
            elements: warningElement(state) + [
                AccessibilityElement(
                    id: "pin", label: state.tr("PIN"), value: state.trn("{count} digit entered", "{count} digits entered", count),
                    hint: state.tr("Type the PIN, then press Enter."), traits: .textField,
                    content: .field(text: String(repeating: "•", count: count), cursor: count))
            ])
    }

    // MARK: Help

    /// The keys, grouped by where they apply (help shows them in this order; the first is
    /// focused when help opens).
    public static let keyGroups: [(title: String, keys: [(keys: String, does: String)])] = [
        (
            N_("Everywhere"),
            [
                (N_("? (question mark)"), N_("help")),
                (N_("Escape"), N_("go back")),
                (N_("Control W"), N_("where am I")),
                (
                    N_(": (colon)"),
                    N_("type a command, like read lighthouse; each letter is said; Up arrow for earlier commands, Tab to complete a command or a story's name")
                ),
                (N_("Control Q"), N_("quit")),
            ]
        ),
        (
            N_("In lists and on buttons"),
            [
                (N_("Tab, Down or Right arrow"), N_("next item")),
                (N_("Shift Tab, Up or Left arrow"), N_("previous item")),
                (N_("Enter or Space"), N_("press the focused item")),
                (N_("h"), N_("next heading; capital H, previous heading")),
                (N_("a or Shift F10"), N_("the focused item's actions, such as Read or Save to favourites, as a list")),
                (N_("a letter"), N_("jump to the next item starting with it; the same letter again, to the next one (a: actions, where there are some)")),
                (N_("letters, each within a second and a half"), N_("find an item by any word of its name: f, o, x finds the fox stories; Escape clears")),
                (N_("- and + (minus and plus)"), N_("slower and faster; on a setting, turn it down and up")),
            ]
        ),
        (
            N_("In forms and settings"),
            [
                (N_("letters"), N_("type into the focused field; each is said")),
                (N_("Backspace"), N_("delete the last letter, and say it")),
                (N_("Enter"), N_("check the field and go to the next")),
                (N_("Left and Right arrows"), N_("change the focused setting")),
                (N_("Control S"), N_("save the profile form, from any field")),
            ]
        ),
    ]

    /// The kiosk's own keys, shown in its help.
    static let kioskKeys: [(keys: String, does: String)] = [
        (N_("t"), N_("how much time is left")),
        (N_("F12 or Control ]"), N_("for a grown-up: the PIN, to leave, switch profile or add time")),
    ]

    /// The commands Help lists, as they are typed (in English: the command line knows no other).
    static func commandList(_ state: State) -> String {
        Command.names.filter { !["jump", "type"].contains($0) && (!state.options.isLocked || state.options.allowedCommands.contains($0)) }
            .joined(separator: ", ")
    }

    static func help(_ state: State) -> Screen {
        var elements: [AccessibilityElement] = []
        var groups = keyGroups
        groups.insert((N_("While reading"), KeyHelp.readingKeys), at: 2)
        if state.kiosk != nil { groups.append((N_("In this kiosk"), kioskKeys)) }
        for (group, entry) in groups.enumerated() {
            elements.append(AccessibilityElement(id: group == 2 ? "reading-keys" : "keys-\(group)", label: state.tr(entry.title), traits: .header))
            for (index, key) in entry.keys.enumerated() where !(state.options.isLocked && key.keys == "Control Q") {
                elements.append(
                    AccessibilityElement(
                        id: "key-\(group)-\(index)", label: state.tr(key.keys), value: state.tr(key.does),
                        spokenLabel: Key.spokenKeys(state.tr(key.keys), state.messages)))
            }
        }
        elements.append(AccessibilityElement(id: "commands", label: state.tr("Commands"), traits: .header))
        elements.append(
            AccessibilityElement(
                id: "command-list", label: state.tr("Type a command and press Enter"),
                value: commandList(state)))
        elements.append(
            AccessibilityElement(
                id: "learn", label: state.tr("Learn mode"), value: state.isLearning ? state.tr("on") : state.tr("off"),
                hint: state.tr("Press Enter, then any key to hear what it does. Escape leaves."), traits: .button))
        return Screen(kind: .help, title: state.tr("Help"), elements: elements)
    }
}
