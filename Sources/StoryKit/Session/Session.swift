import Foundation

/// The app as a state machine: `handle` turns an input into a new state and effects.
///
/// No I/O happens here: the shell reads keys and lines, performs the effects (speech, captions,
/// drawing, saving, reading a story's file) and feeds narration progress and the results of its
/// work back as inputs.
public struct Session: Sendable {
    public internal(set) var state: State

    /// Presentation chosen on the command line for this run: it holds over whichever profile is
    /// chosen, is never saved, and a change in Settings ends it for that setting.
    public mutating func overridePresentation(
        textSize: TextSizePreset?, theme: ThemeName?, motion: MotionPreference?,
        lineFocus: LineFocus? = nil, syllables: Bool? = nil, spacing: TextSpacing? = nil
    ) {
        state.presentationOverride = PresentationOverride(textSize: textSize, theme: theme, motion: motion)
        state.presentationOverride.lineFocus = lineFocus
        state.presentationOverride.syllables = syllables
        state.presentationOverride.spacing = spacing
    }
    /// The stories offered, and those read in so far (see `Session+Loading.swift`).
    public internal(set) var catalog: StoryCatalog
    /// The story the input being handled needed and the catalog does not hold yet.
    var storyWanted: String?
    /// Inputs waiting for a story being read in, the one that asked for it first.
    var waitingForStory: (id: String, inputs: [Input])?
    /// Inputs waiting for the library being read in (see `Session+Loading.swift`).
    var waitingForLibrary: [Input] = []
    /// `start` drew the screen before the library came: the greeting is said when it does.
    var greetingWaitsForLibrary = false

    /// `storyreader read --rate/--pitch/--volume/--voice`: speech for this run, never saved.
    public mutating func overrideSpeech(rate: Int?, pitch: Int?, volume: Int?, voice: String?) {
        state.presentationOverride.rate = rate
        state.presentationOverride.pitch = pitch
        state.presentationOverride.volume = volume
        state.presentationOverride.voice = voice
    }

    /// `--narration` and `--recording-tempo`: whether a book's recording reads, and its tempo,
    /// for this run, never saved.
    public mutating func overrideNarration(_ narration: NarrationSource?, tempo: Double?) {
        state.presentationOverride.narration = narration
        state.presentationOverride.recordingTempo = tempo
    }

    public init(
        catalog: StoryCatalog, snapshot: SessionSnapshot, options: SessionOptions = SessionOptions(), profile: String? = nil,
        languages: InterfaceLanguages = .englishOnly
    ) {
        self.catalog = catalog
        state = State(snapshot: snapshot, options: options)
        state.languages = languages
        if let profile, let found = findProfile(profile) {
            state.profileName = found.name
            state.stack = [.library]
        }
    }

    /// The screen as it is now.
    public var screen: Screen { Screens.screen(for: state, catalog: catalog) }

    /// The element with focus.
    public var focusedElement: AccessibilityElement? { FocusEngine(screen: screen).element(id: state.focusedID) }

    /// What is said when the program starts. While the library is read off the loop, the library's
    /// greeting (it counts the stories and may name the one left midway) waits for it; the screen
    /// is drawn at once. The profiles' greeting needs no story: it is said at once.
    public mutating func start() -> [Effect] {
        let opening = Effect.speak(Utterance(tr("Magical Stories."), priority: .message))
        if catalog.isLoading, state.route == .library {
            greetingWaitsForLibrary = true
            return withLanguageRuns([opening, .render])
        }
        return withLanguageRuns([opening] + greet() + [.render])
    }

    /// "Hello Mia." — or, with a story left midway, "Welcome back Mia. You were reading …" and the
    /// focus on Go on reading.
    mutating func greet(orElse otherwise: String? = nil) -> [Effect] {
        if state.route == .library, let welcome = welcomeBack() {
            state.focusedID = "go-on"
            // The welcome said the story and the place: the button is not made to say them again.
            return announceScreen(prefix: welcome, valueSaid: true)
        }
        return announceScreen(prefix: state.profileName.map { tr("Hello {name}.", ["name": $0]) } ?? otherwise)
    }

    /// Without a screen (a pipe, a braille display's log) `help` says all of its lines.
    public mutating func runsWithoutScreen(_ without: Bool) { state.options.readsWholeHelp = without }

    /// Handles one input (in a kiosk, through its filter first: `Session+Kiosk.swift`). An input
    /// that needs a story not read in yet waits for it (`Session+Loading.swift`).
    public mutating func handle(_ input: Input) -> [Effect] {
        if case .storyLoaded(let id, let story) = input { return storyArrived(id, story) }
        if case .libraryLoaded(let entries, let unreadable) = input { return libraryArrived(entries, unreadable: unreadable) }
        if catalog.isLoading, input.waitsForLibrary {
            waitingForLibrary.append(input)
            return []
        }
        if waitingForStory != nil {
            waitingForStory?.inputs.append(input)
            return []
        }
        let before = self
        storyWanted = nil
        let effects = handleFiltered(input)
        guard let wanted = storyWanted else { return effects }
        // Handled again, from the state it found, once the story is here.
        self = before
        waitingForStory = (wanted, [input])
        return [.loadStory(wanted)]
    }

    private mutating func handleFiltered(_ input: Input) -> [Effect] {
        if let kiosk = state.kiosk { return withLanguageRuns(kioskFilter(input, kiosk)) }
        return withLanguageRuns(handleDirect(input))
    }

    /// `message` in the interface's language (see ``State/tr(_:_:)``).
    func tr(_ message: String, _ values: [String: String] = [:]) -> String { state.tr(message, values) }

    /// The plural form for `count` in the interface's language.
    func trn(_ singular: String, _ plural: String, _ count: Int, _ values: [String: String] = [:]) -> String {
        state.trn(singular, plural, count, values)
    }

    mutating func handleDirect(_ input: Input) -> [Effect] {
        let before = state
        var effects: [Effect]
        switch input {
        case .key(let key): effects = handleKey(key)
        case .command(let command): effects = handleCommand(command)
        case .invalid(let message): effects = [speak(message, .important)]
        case .narration(let event): effects = handleNarration(event)
        case .resize(let columns, let rows):
            state.options.columns = columns
            state.options.rows = rows
            effects = []
        case .pinChecked(let correct): effects = pinChecked(correct)
        case .pinLocked(let remaining): effects = pinLocked(remaining)
        case .stored(let reply): effects = stored(reply)
        case .tick(let now):
            // Time passing changes nothing shown outside the kiosk (type-ahead's pause is read from
            // it; the bedtime timer counts by it).
            state.now = now
            return bedtimeTick(now)
        case .shutdown: effects = shutdown()
        case .shell(let news): effects = tell(news)
        case .coach(let news): effects = coachNews(news)
        case .activity, .storyLoaded, .libraryLoaded: return []
        }
        effects = endIfFormLeft(effects)
        effects += motionCues(before: before)
        if state != before, !effects.contains(.render) { effects.append(.render) }
        return effects
    }

    /// The reader opened, turned a page or finished a story in this input.
    func motionCues(before: State) -> [Effect] {
        guard let reader = state.reader, state.route == .reader else { return [] }
        guard before.route == .reader, let old = before.reader, old.story.id == reader.story.id else { return [.motion(.pageReveal)] }
        if reader.status == .finished, old.status != .finished { return [.motion(.celebration(title: reader.story.title))] }
        if reader.page != old.page { return [.motion(.pageTurn)] }
        return []
    }

    // MARK: - Speaking

    func speak(_ text: String, _ priority: AnnouncementPriority = .text) -> Effect {
        .speak(Utterance(text, priority: priority))
    }

    /// Hints on every item (full); short says them only as a screen opens (`announceScreen`).
    var hints: Bool { state.profile.settings.hintVerbosity == .full }

    /// Focus moves to the screen's remembered or first meaningful element, and the screen is announced.
    /// - Parameter valueSaid: `prefix` said the focused element's value already (no place said twice).
    mutating func announceScreen(prefix: String? = nil, valueSaid: Bool = false) -> [Effect] {
        let screen = self.screen
        let engine = FocusEngine(screen: screen)
        var focused = engine.element(id: state.focusedID) ?? engine.firstMeaningful
        state.focusedID = focused?.id
        if valueSaid { focused?.value = nil }
        var text = (prefix.map { $0 + " " } ?? "") + SpokenForm.finish(screen.title)
        if let focused { text += " " + SpokenForm.describe(focused, hints: state.profile.hints, messages: state.messages) }
        return [speak(text)]
    }

    mutating func push(_ route: Route) -> [Effect] {
        if kioskRefuses(route) { return [speak(tr("Only a grown-up can change the profile."), .message)] }
        state.warning = nil
        state.toldChangeIsForNow = false
        state.stack.append(route)
        state.focus[route.focusKey] = state.focus[route.focusKey].flatMap { id in
            FocusEngine(screen: screen).element(id: id) == nil ? nil : id
        }
        // Help opens on its first key, to be read down (its learn mode button is last); from the
        // reader, on the reading keys.
        if route == .help, state.stack.dropLast().last == .reader {
            state.focus["help"] = "reading-keys"
        } else if route == .help, state.focus["help"] == nil {
            state.focus["help"] = "key-0-0"
        }
        return announceScreen()
    }

    /// Learn mode was entered from the reader (Help opened over it): keys are told as the reader takes them.
    var learnsReadingKeys: Bool { state.route == .help && state.stack.dropLast().last == .reader }

    /// Help and learn mode pause a story being read, silently (the help screen is the answer).
    mutating func pauseForHelp() -> [Effect] {
        guard var reader = state.reader, reader.status == .playing, state.stack.contains(.reader) else { return [] }
        reader.status = .paused
        state.reader = reader
        return [pauseNarration()] + savePosition()
    }

    mutating func goBack() -> [Effect] {
        if state.route == .profileForm, let form = state.form, form.hasUnsavedChanges, !form.isConfirmingCancel {
            return cancelForm()
        }
        var effects: [Effect] = []
        if state.route == .reader { effects += leaveReader(stopping: true) }
        if state.route == .pinPrompt { state.pinEntry = "" }
        if state.route == .profileForm { state.form = nil }
        state.warning = nil
        guard state.stack.count > 1 else {
            let quit = state.options.isLocked ? "" : " " + tr("Control Q leaves Magical Stories.")
            return effects + [speak((state.route == .library ? tr("This is the library, the first screen.") : tr("This is the first screen.")) + quit)]
        }
        let closing = settingsClosing(leaving: state.stack)
        let leftReader = state.route == .reader
        state.stack.removeLast()
        if leftReader { focusGoOn() }
        state.toldChangeIsForNow = false
        endParentVisitIfLeft()
        return effects + closing + announceScreen()
    }

    /// The parent's visit (and the authorization the PIN gave) ends once Settings, the profile
    /// form and the PIN prompt are all left.
    mutating func endParentVisitIfLeft() {
        if !state.stack.contains(where: { [.settings, .profileForm, .pinPrompt].contains($0) }) {
            state.settingsUnlocked = false
            state.form = nil
        }
    }

    mutating func goHome() -> [Effect] {
        if let asked = asksBeforeLeavingForm() { return asked }
        var effects: [Effect] = []
        if state.stack.contains(.reader) { effects += leaveReader(stopping: true) }
        state.warning = nil
        let closing = settingsClosing(leaving: state.stack)
        state.stack = [.library]
        endParentVisitIfLeft()
        return effects + closing + announceScreen()
    }

    /// Leaving Settings (Done, Escape or Home) says what became of the changes, once.
    func settingsClosing(leaving stack: [Route]) -> [Effect] {
        guard stack.last == .settings else { return [] }
        if state.kiosk != nil { return [speak(tr("Settings closed: your changes last until the kiosk restarts."), .message)] }
        if state.profileName == nil { return [speak(tr("Settings closed: the guest's changes last for this run."), .message)] }
        if state.snapshot.pinIsSet, !state.settingsUnlocked { return [speak(tr("Settings closed: your changes are for now."), .message)] }
        return [
            speak(tr("Settings closed: your changes are saved.") + (state.snapshot.pinIsSet ? " " + tr("The PIN is asked again next time.") : ""), .message)
        ]
    }

    mutating func moveFocus(_ move: FocusMove) -> [Effect] {
        switch move {
        case .moved(let element):
            state.focusedID = element.id
            if element.id != "warning" { state.warning = state.warning.flatMap { state.route == .profileForm ? $0 : nil } }
            return [speak(SpokenForm.describe(element, hints: hints, messages: state.messages))]
        case .endOfScreen: return [speak(tr("End of screen."))]
        case .top: return [speak(tr("Top."))]
        case .empty: return [speak(tr("Nothing here."))]
        }
    }

    func whereAmI() -> [Effect] {
        let screen = self.screen
        let engine = FocusEngine(screen: screen)
        var text = tr("You are on {screen}", ["screen": SpokenForm.finish(screen.title)])
        if let index = engine.index(of: state.focusedID) {
            // The hint on request, when moving does not say it (short or no hints).
            text +=
                " " + tr("Item {item} of {items}:", ["item": String(index + 1), "items": String(engine.order.count)]) + " "
                + SpokenForm.describe(engine.order[index], hints: !hints, messages: state.messages)
        }
        if let reader = state.reader, state.route != .reader, reader.status == .playing || reader.status == .paused {
            text +=
                " "
                + (reader.status == .playing
                    ? tr("Reading {title}, playing.", ["title": reader.story.title])
                    : tr("Reading {title}, paused.", ["title": reader.story.title]))
        }
        return [speak(text)]
    }

    // MARK: - Keys

    mutating func handleKey(_ key: Key) -> [Effect] {
        if state.isLearning {
            if key == .escape {
                state.isLearning = false
                return [speak(tr("Learn mode off."), .message)]
            }
            // Keys are told as they act where learn mode was entered from (the reader's own keys).
            let reading = learnsReadingKeys
            return [
                speak(
                    KeyHelp.describe(
                        key, route: reading ? .reader : state.route, focused: reading ? nil : focusedElement,
                        paused: reading, messages: state.messages))
            ]
        }
        if let typed = printPagePromptKey(key) { return typed }
        if state.route == .pinPrompt {
            switch key {
            case .character(let character) where character.isNumber:
                if state.pinEntry.count < 8 { state.pinEntry.append(character) }
                return [speak(trn("{count} digit entered.", "{count} digits entered.", state.pinEntry.count))]
            case .backspace:
                if !state.pinEntry.isEmpty { state.pinEntry.removeLast() }
                return [speak(tr("{count} digits entered.", ["count": String(state.pinEntry.count)]))]
            case .enter: return [.checkPIN(state.pinEntry)]
            default: break
            }
        }
        if state.route == .profileForm, let id = focusedElement?.id, let field = formField(id), field.isPicker {
            switch key {
            case .character(let digit) where digit.isNumber && field.isNumberPicker: return typeDigit(digit, into: field)
            case .backspace where field.isNumberPicker: return deleteDigit(from: field)
            case .character(let letter) where letter.isLetter: return choose(in: field, startingWith: letter)
            case .enter: return submitField(field)
            default: break
            }
        }
        if let focused = focusedElement, focused.traits.contains(.textField), state.route == .profileForm,
            let field = formField(focused.id), var form = state.form
        {
            var text = form.text(of: field)
            switch key {
            case .character(let character):
                text.append(character)
                form.setText(text, for: field)
                state.form = form
                // Each letter is said as typed, a newer one cutting the older.
                return [speak(String(character))]
            case .space:
                form.setText(text + " ", for: field)
                state.form = form
                return [speak(tr("space"))]
            case .backspace:
                let removed = text.popLast()
                form.setText(text, for: field)
                state.form = form
                return [speak(removed.map { tr("{letter} deleted", ["letter": String($0)]) } ?? tr("Empty."))]
            case .enter:
                return submitField(field)
            default: break
            }
        }
        // Escape hands the story back from the child (the coach stops); q still leaves the reader.
        if key == .escape, state.coaching != nil, state.route == .reader { return stopCoaching() }
        let bound = KeyHelp.command(for: key, focused: focusedElement, route: state.route, paused: state.reader?.status == .paused)
        if typesAhead(key, bound: bound != nil), case .character(let letter) = key { return typeAhead(letter) }
        if key == .escape, state.route != .reader, let cleared = clearTypeAhead() { return cleared }
        guard let command = bound else {
            if state.route == .reader {
                return [
                    speak(
                        tr("{key} does nothing while reading. Press question mark for help.", ["key": key.spokenName(state.messages).capitalizedFirst]),
                        .notification)
                ]
            }
            if case .character(let character) = key, character.isLetter || character.isNumber {
                return handleCommand(.jump(character))
            }
            return [speak(tr("{key} does nothing here. Press question mark for help.", ["key": key.spokenName(state.messages)]), .notification)]
        }
        return handleCommand(command)
    }

    // MARK: - Commands

    mutating func handleCommand(_ command: Command) -> [Effect] {
        if state.options.isLocked, !state.options.allowedCommands.contains(command.name) {
            return [speak(tr("That is not available here."), .message)]
        }
        if state.isLearning {
            if command == .back { return handleKey(.escape) }
            let does = Command.summaries[command.name].map { tr($0) } ?? tr("a command")
            return [speak(tr("{command}: {does}.", ["command": command.name, "does": does]))]
        }
        if let coached = coachIntercepts(command) { return coached }
        let engine = FocusEngine(screen: screen)
        switch command {
        case .next: return checkLeavingField() + moveFocus(engine.next(after: state.focusedID))
        case .previous: return checkLeavingField() + moveFocus(engine.previous(before: state.focusedID))
        case .nextHeading: return moveFocus(engine.nextHeading(after: state.focusedID))
        case .previousHeading: return moveFocus(engine.previousHeading(before: state.focusedID))
        case .actions: return openActions()
        case .action(let name): return doAction(named: name)
        case .jump(let letter):
            guard let found = engine.jump(to: letter, after: state.focusedID) else {
                return [speak(tr("Nothing starts with {letter}.", ["letter": String(letter).uppercased()]))]
            }
            return moveFocus(.moved(found))
        case .activate: return activate()
        case .back: return goBack()
        case .home: return goHome()
        case .whereAmI:
            // The bookmarks screen over the reader is a list: the item, and the story paused under it.
            if let reader = state.reader, state.stack.contains(.reader), !state.route.isBookmarks { return whereAmIReading(reader) }
            return whereAmI()
        case .read(let name): return read(name)
        case .togglePause:
            guard state.reader != nil, state.stack.contains(.reader) else { return [speak(tr("Nothing is being read."))] }
            return togglePause()
        case .goToPrintPage(let typed): return typed.map { goToPrintPage($0) } ?? openPrintPagePrompt()
        case .nextPage: return moveInStory(byPage: 1)
        case .previousPage: return moveInStory(byPage: -1)
        case .beginning: return moveToEdge(end: false)
        case .end: return moveToEdge(end: true)
        case .pause: return pause()
        case .resume: return resume()
        case .stop:
            guard state.reader != nil, state.stack.contains(.reader) else { return [speak(tr("Nothing is being read."))] }
            return stopReading()
        case .faster, .slower: return changeRate(faster: command == .faster)
        case .nextSentence: return moveInStory(bySentence: 1)
        case .previousSentence: return moveInStory(bySentence: -1)
        case .nextParagraph: return moveInStory(byParagraph: 1)
        case .previousParagraph: return moveInStory(byParagraph: -1)
        case .stepMode: return toggleStepMode()
        case .nextWord: return moveWord(by: 1)
        case .previousWord: return moveWord(by: -1)
        case .explainWord: return explainWord()
        case .goToWord(let index): return goToWord(index)
        case .set(let name, let value): return set(name, value)
        case .increase, .decrease:
            if state.route == .profileForm, let id = focusedElement?.id, let field = formField(id), field.isPicker {
                return choose(in: field, step: command == .increase ? 1 : -1)
            }
            guard let focused = focusedElement, focused.id.hasPrefix("setting-"),
                let setting = SettingName(rawValue: String(focused.id.dropFirst("setting-".count)))
            else {
                return [speak(tr("Move to a setting first."))]
            }
            return adjust(setting, up: command == .increase)
        case .type(let text): return type(text)
        case .profile(let name):
            if name.isEmpty { return push(.profiles) }
            guard let found = findProfile(name) else {
                let names = state.snapshot.profiles.map(\.name)
                let quoted = ["name": Sanitizer.quote(name), "profiles": names.joined(separator: ", ")]
                return [
                    speak(
                        names.isEmpty
                            ? tr("There is no profile called {name}. Make one from the profiles screen.", quoted)
                            : tr("There is no profile called {name}. Profiles: {profiles}.", quoted), .important)
                ]
            }
            return choose(profile: found.name)
        case .settings: return openSettings()
        case .bookmark: return saveBookmark()
        case .bookmarkNote(let text): return noteBookmark(text)
        case .bookmarks(let all): return openBookmarks(story: all ? nil : storyHere)
        case .help:
            // Help pauses a story being read; it stays paused until Space goes on.
            let paused = pauseForHelp()
            let opened = paused + (state.route == .help ? announceScreen() : push(.help))
            guard state.options.readsWholeHelp else { return opened }
            // No screen to move through (a pipe, a braille display's log): all of it, a line each.
            return opened
                + Screens.help(state).elements.filter { $0.id != "learn" }.map { element in
                    speak(
                        element.traits.contains(.header)
                            ? element.label + ":" : [element.spokenLabel ?? element.label, element.value].compactMap { $0 }.joined(separator: ": "))
                }
        case .learn:
            var effects = pauseForHelp()
            if state.route != .help { effects += push(.help) }
            state.isLearning = true
            return effects + [speak(tr("Learn mode. Press any key to hear what it does. Escape leaves."), .message)]
        case .quit:
            if let asked = asksBeforeLeavingForm() { return asked }
            var effects: [Effect] = []
            if state.reader != nil { effects += leaveReader(stopping: true) }
            state.hasQuit = true
            return effects + [speak(tr("Goodbye."), .message), .exit]
        case .wait: return []
        case .bedtime(let text): return setBedtime(text)
        case .coach: return toggleCoaching()
        case .save:
            guard state.route == .profileForm else { return [speak(tr("Control S saves the profile form; there is nothing to save here."))] }
            return saveForm()
        }
    }

    /// Leaves at once, keeping the reading position (signals, closed input).
    mutating func shutdown() -> [Effect] {
        var effects: [Effect] = []
        if state.reader != nil { effects += leaveReader(stopping: true) }
        state.hasQuit = true
        return effects + [.exit]
    }

    func findProfile(_ name: String) -> ChildProfile? {
        let folded = name.trimmingCharacters(in: .whitespaces).lowercased()
        let profiles = state.snapshot.profiles
        return profiles.first { $0.name.lowercased() == folded }
            ?? {
                let prefixed = profiles.filter { $0.name.lowercased().hasPrefix(folded) }
                return prefixed.count == 1 ? prefixed[0] : nil
            }()
    }

    mutating func choose(profile name: String?) -> [Effect] {
        var effects: [Effect] = []
        if state.reader != nil { effects += leaveReader(stopping: true) }
        let switched = state.profileName != name
        state.profileName = name
        if switched { kioskProfileChanged() }
        state.stack = [.library]
        state.focus["library"] = nil
        state.warning = nil
        endParentVisitIfLeft()
        return effects + greet(orElse: tr("Reading without a profile."))
    }

    mutating func openSettings() -> [Effect] {
        if state.route == .settings { return announceScreen() }
        return asParent(.settings)
    }

    /// Does what a parent asked for, first asking for the PIN when one is set and this visit has
    /// not typed it yet.
    mutating func asParent(_ action: ParentAction) -> [Effect] {
        if state.snapshot.pinIsSet, !state.settingsUnlocked {
            state.pinEntry = ""
            state.afterPIN = action
            return push(.pinPrompt)
        }
        state.settingsUnlocked = true
        switch action {
        case .settings: return push(.settings)
        case .newProfile: return openForm(editing: nil)
        case .editProfile:
            guard state.profileName != nil else { return [speak(tr("Choose a profile first: the guest has no profile to edit."))] }
            return openForm(editing: state.profile)
        }
    }

    mutating func pinChecked(_ correct: Bool) -> [Effect] {
        state.pinEntry = ""
        guard state.route == .pinPrompt else { return [] }
        if correct {
            state.stack.removeLast()
            state.settingsUnlocked = true
            return asParent(state.afterPIN)
        }
        state.warning = tr("That PIN is not right. Try again.")
        return [speak(tr("That PIN is not right. Try again."), .important)]
    }

    /// Too many wrong tries: the wait is spoken and shown.
    mutating func pinLocked(_ remaining: TimeInterval) -> [Effect] {
        state.pinEntry = ""
        guard state.route == .pinPrompt else { return [] }
        let message = tr("Too many tries. Try again in {time}.", ["time": PINLockout.describe(remaining, state.messages)])
        state.warning = message
        return [speak(message, .important)]
    }

    /// The start's notice (a database opened read-only) already said why and that changes are
    /// kept: the first change kept says nothing more (the reason was heard twice).
    public mutating func changesKeptWereTold() { state.toldChangesKept = true }

    /// The store's answer to a save.
    mutating func stored(_ reply: StoreReply) -> [Effect] {
        switch reply {
        case .profileSaved(let profile): return profileSaved(profile)
        case .readRecorded(let storyID, let count):
            updateReading(storyID) { $0.readCount = count }
            return announceEnd(storyID)
        case .failed(let change, let message):
            let text = tr("Could not save: {problem}", ["problem": SpokenForm.finish(message)])
            switch change {
            case .saveProfile:
                guard state.route == .profileForm else { return [speak(text, .important)] }
                state.warning = text
                return [speak(text, .important)]
            case .recordFinished(_, let storyID):
                return [speak(text, .important)] + announceEnd(storyID)
            case .recordCoachedRead(_, let storyID, _):
                // Counted when the coaching ended; the store did not keep it.
                updateReading(storyID) { $0.coachedCount = max(0, $0.coachedCount - 1) }
                return [speak(text, .important)]
            default:
                return [speak(text + " " + tr("Your change is kept until you leave."), .important)]
            }
        case .kept(let change, let message):
            // Counted now, as the store will count it at the next start that can write.
            if case .recordFinished(_, let storyID) = change { updateReading(storyID) { $0.readCount += 1 } }
            var effects: [Effect] = []
            if !state.toldChangesKept {
                state.toldChangesKept = true
                let text =
                    tr("Not saved yet: {problem}", ["problem": SpokenForm.finish(message)]) + " "
                    + tr("Reads, places and favourites are kept, and saved the next time storyreader starts with room.")
                effects.append(speak(text, .important))
            }
            if case .recordFinished(_, let storyID) = change { effects += announceEnd(storyID) }
            return effects
        }
    }

    // MARK: - Activate

    mutating func activate() -> [Effect] {
        guard let focused = focusedElement else { return [speak(tr("Nothing is focused."))] }
        let id = focused.id
        switch state.route {
        case .profiles:
            if id == "new-profile" { return asParent(.newProfile) }
            if id == "guest" { return choose(profile: nil) }
            if id.hasPrefix("profile-") { return choose(profile: String(id.dropFirst("profile-".count))) }
        case .library:
            if id == "switch-profile" { return push(.profiles) }
            if id == "settings" { return openSettings() }
            if id == "help" { return push(.help) }
            if id == "go-on", let storyID = state.snapshot.inProgress[state.profile.name] { return goOnReading(storyID) }
            if let slash = id.firstIndex(of: "/") { return push(.story(String(id[id.index(after: slash)...]))) }
        case .story(let storyID):
            if id == "read" { return startReading(storyID, fromWord: 0) }
            if id == "resume" { return goOnReading(storyID) }
            if id == "save" { return toggleFavourite(storyID) }
            if id == "bookmarks" { return openBookmarks(story: storyID) }
        case .reader:
            switch id {
            case "play": return togglePause()
            case "stop": return stopReading()
            case "previous-sentence": return moveInStory(bySentence: -1)
            case "next-sentence": return moveInStory(bySentence: 1)
            case "previous-paragraph": return moveInStory(byParagraph: -1)
            case "next-paragraph": return moveInStory(byParagraph: 1)
            case "slower": return changeRate(faster: false)
            case "faster": return changeRate(faster: true)
            case "step": return toggleStepMode()
            case "bookmarks": return openBookmarks(story: state.reader?.story.id)
            case "coach": return toggleCoaching()
            default: break
            }
        case .profileForm:
            if id == "save" { return saveForm() }
            if id == "cancel" { return cancelForm() }
            if id == "discard" { return discardForm() }
            if id == "keep-editing" { return keepEditing() }
            // As Enter: the field is checked and the next one focused (`type Mia` then `activate`).
            if let field = formField(id) { return submitField(field) }
        case .settings:
            if id == "done" { return goBack() }
            if id == "edit-profile" { return asParent(.editProfile) }
            if let setting = SettingName(rawValue: String(id.dropFirst("setting-".count))) { return adjust(setting, up: true, wraps: true) }
        case .help:
            if id == "learn" { return handleCommand(.learn) }
        case .pinPrompt:
            return [.checkPIN(state.pinEntry)]
        case .parentMenu, .timeUp:
            break  // the kiosk's own screens: Session+Kiosk.swift handles them first
        case .bookmarks:
            if let effects = activateBookmark(id) { return effects }
        case .actions(let target):
            if id == "cancel" { return goBack() }
            if id.hasPrefix("action-") { return perform(action: String(id.dropFirst("action-".count)), on: target) }
        }
        return [speak(SpokenForm.describe(focused, hints: false, messages: state.messages))]
    }

    /// Changes the profile's record of one story in memory (the guest's too, which is never saved).
    mutating func updateReading(_ storyID: String, _ change: (inout ReadingRecord) -> Void) {
        change(&state.snapshot.readings[state.profile.name, default: [:]][storyID, default: ReadingRecord()])
    }

    mutating func toggleFavourite(_ storyID: String) -> [Effect] {
        let now = !state.reading(storyID).isFavourite
        updateReading(storyID) { $0.isFavourite = now }
        let title = catalog.entry(id: storyID)?.title ?? storyID
        var effects: [Effect] = [
            speak(now ? tr("{title} saved to favourites.", ["title": title]) : tr("{title} removed from favourites.", ["title": title]), .message)
        ]
        if state.profileName != nil, let id = state.profile.id { effects.append(.save(.setFavourite(profileID: id, story: storyID, now))) }
        if let element = focusedElement { effects.append(speak(SpokenForm.describe(element, hints: false, messages: state.messages))) }
        return effects
    }
}

extension StoryLookupError {
    /// The error worded for speech (no ids in brackets).
    func spoken(_ messages: MessageCatalog = .english) -> String {
        switch self {
        case .notFound(let name, let suggestions):
            return suggestions.isEmpty
                ? messages.tr("No story is called {name}. Type help, or go home to see the library.", ["name": Sanitizer.quote(name)])
                : messages.tr(
                    "No story is called {name}. Did you mean {titles}?",
                    [
                        "name": Sanitizer.quote(name), "titles": suggestions.map(\.title).joined(separator: messages.tr(" or ")),
                    ])
        case .ambiguous(let name, let matches):
            return messages.tr(
                "{name} matches {count} stories: {titles}. Type more of the name.",
                [
                    "name": Sanitizer.quote(name), "count": String(matches.count), "titles": matches.prefix(4).map(\.title).joined(separator: ", "),
                ])
        case .noSuchBook(let name, _):
            return messages.tr("No book is called {name}.", ["name": Sanitizer.quote(name)])
        }
    }
}
