public import Foundation

/// Kiosk mode: a locked session for a shared machine. The kiosk is a filter before the update
/// (bubbletea's `WithFilter`): every input passes through `kioskFilter` first, which decides
/// whether it reaches the ordinary update as it is, becomes the kiosk's own (the parent key and
/// PIN, the time left, the idle reset and the time limit) or is refused (blocked keys and
/// commands). Nothing the update answered is edited afterwards: what a child may change is one
/// policy, asked before the change (`Session+ChildPolicy`), and the screens a child never reaches
/// are refused where they would open (`push`). Time is an input (`Input.tick`), so every rule
/// here is tested without waiting.
extension Session {
    /// Turns this session into a kiosk for its current profile (call before `start()`).
    public mutating func startKiosk(_ options: KioskOptions, now: TimeInterval) {
        state.options.isLocked = true
        state.options.allowedCommands = SessionOptions.kioskCommands
        // The child's settings screen needs no PIN: it only offers what a child may change.
        state.settingsUnlocked = true
        state.stack = [.library]
        state.focus = [:]
        var kiosk = KioskState(options: options, now: now, baseRate: state.profile.speech.rate, profile: state.profileName)
        kiosk.baseTempo = state.profile.settings.recordingTempo
        state.kiosk = kiosk
    }

    /// What the kiosk says as it starts, after the greeting: the time there is.
    public func kioskOpening() -> [Effect] {
        guard let left = state.kiosk?.remaining else { return [] }
        return [speak(tr("{time} to read. Press t to hear how much is left.", ["time": Self.spokenDuration(left, state.messages)]).capitalizedFirst, .message)]
    }

    /// The next time a kiosk rule may fire (monotonic seconds), so the shell sleeps until then.
    public var kioskDeadline: TimeInterval? {
        guard let kiosk = state.kiosk else { return nil }
        var times: [TimeInterval] = []
        if let idle = kiosk.options.idleTimeout, !kiosk.isTimeUp, !kiosk.leaving {
            times.append(kiosk.lastActivity + idle)
        }
        if let endsAt = kiosk.endsAt, !kiosk.isTimeUp {
            for warning in KioskOptions.warnings(forLimit: kiosk.limitLength ?? 0) where !kiosk.warned.contains(Int(warning)) {
                times.append(endsAt - warning)
            }
            times.append(endsAt)
        }
        if let since = kiosk.timeUpPendingSince { times.append(since + kiosk.options.sentenceGrace) }
        if let until = kiosk.pinLockedUntil {
            // Once a second, so the wait shown counts down.
            times.append(min(until, kiosk.now + 1))
        }
        // What is due was handled by the latest tick: only later times (never a busy loop).
        return times.filter { $0 > kiosk.now }.min()
    }

    // MARK: - Input

    /// The kiosk's filter: what `input` does in a kiosk (`kiosk`: its state as the input came).
    mutating func kioskFilter(_ input: Input, _ kiosk: KioskState) -> [Effect] {
        // Screens a child never reaches, whatever the path that led there: the input is taken on
        // the child's screen.
        if kioskRefuses(state.route) {
            let childs = state.stack.filter { !kioskRefuses($0) }
            state.stack = childs
            if state.stack.isEmpty { state.stack = [.library] }
            state.form = nil
        }
        let before = state
        var effects: [Effect]
        switch input {
        case .tick(let now):
            // Time passing redraws only what shows it (the time left, the lockout's wait).
            state.now = now
            let due = bedtimeTick(now)
            let screenBefore = screen
            effects = due + kioskTick(now)
            if screen != screenBefore || state.stack != before.stack, !effects.contains(.render) { effects.append(.render) }
            return effects
        case .key(let key):
            state.kiosk?.lastActivity = kiosk.now
            effects = kioskKey(key)
        case .command(let command):
            state.kiosk?.lastActivity = kiosk.now
            effects = kioskCommand(command)
        case .invalid:
            state.kiosk?.lastActivity = kiosk.now
            state.kiosk?.blockedKeys += 1
            effects = handleDirect(input)
        case .pinChecked(let correct):
            effects = correct ? kioskPINAccepted() : kioskPINRejected(lockedSeconds: nil)
        case .pinLocked(let remaining):
            effects = kioskPINRejected(lockedSeconds: max(1, Int(remaining.rounded(.up))))
        case .stored:
            effects = handleDirect(input)
        case .narration:
            effects = handleDirect(input)
            if state.kiosk?.timeUpPendingSince != nil, state.reader?.status != .playing { effects += enterTimeUp() }
        case .shutdown:
            state.kiosk?.leaving = true
            effects = handleDirect(input)
        case .resize, .shell:
            effects = handleDirect(input)
        case .coach:
            // A child reading aloud to the coach is not idle.
            state.kiosk?.lastActivity = kiosk.now
            effects = handleDirect(input)
        case .activity:
            state.kiosk?.lastActivity = kiosk.now
            return []
        case .storyLoaded, .libraryLoaded:
            // `handle` takes them before any filter.
            return []
        }
        if state != before, !effects.contains(.render) { effects.append(.render) }
        return effects
    }

    mutating func kioskKey(_ key: Key) -> [Effect] {
        if key.isParentKey { return openParentPIN() }
        if key.isBlockedInKiosk {
            state.kiosk?.blockedKeys += 1
            return [speak(tr("That key does nothing here."), .notification)]
        }
        let route = state.route
        if route == .pinPrompt || route == .parentMenu || route == .profiles {
            // Back from a grown-up's screen is back to the child's (the time-up screen if time ran out).
            if key == .escape, route != .profiles { return backToChild(announcing: nil) }
            if key == .enter || key == .space, route != .pinPrompt { return kioskActivate() }
            return handleDirect(.key(key))
        }
        if state.kiosk?.isTimeUp == true { return timeIsUpReminder() }
        if key == .character("t"), state.kiosk?.endsAt != nil, !state.isLearning { return speakRemaining() }
        if key == .enter || key == .space, !state.isLearning, route != .reader { return kioskActivate() }
        return handleDirect(.key(key))
    }

    mutating func kioskCommand(_ command: Command) -> [Effect] {
        if !state.options.allowedCommands.contains(command.name) {
            state.kiosk?.blockedKeys += 1
            return [speak(tr("That is not available here."), .message)]
        }
        let route = state.route
        if state.kiosk?.isTimeUp == true, route != .pinPrompt, route != .parentMenu, route != .profiles { return timeIsUpReminder() }
        switch command {
        case .activate:
            return kioskActivate()
        case .read(let name):
            // Only the stories this child's library shows.
            if case .success(let entry) = catalog.resolve(name), state.profileName != nil, let ages = entry.ages, !ages.contains(state.profile.age) {
                return [speak(tr("That story is not in this library. Go home to see the stories here."), .important)]
            }
            return handleDirect(.command(command))
        default:
            return handleDirect(.command(command))
        }
    }

    /// Enter or Space: the parent menu's buttons, and no way to the profiles screen for a child.
    mutating func kioskActivate() -> [Effect] {
        let id = focusedElement?.id
        switch state.route {
        case .parentMenu:
            switch id {
            case "leave":
                state.kiosk?.leaving = true
                state.kiosk?.leftWithPIN = true
                var effects: [Effect] = []
                if state.reader != nil { effects += leaveReader(stopping: true) }
                state.hasQuit = true
                return effects + [speak(tr("Leaving the kiosk. Goodbye."), .message), .exit]
            case "switch-profile":
                return push(.profiles)
            case "add-time":
                return addTime()
            case "resume":
                return backToChild(announcing: tr("Back to the stories."))
            default:
                return handleDirect(.command(.activate))
            }
        case .profiles:
            guard state.kiosk?.parentUnlocked == true else { return backToChild(announcing: nil) }
            return handleDirect(.command(.activate))
        case .library where id == "profile" || id == "switch-profile":
            return [speak(tr("Only a grown-up can change the profile."), .message)]
        default:
            return handleDirect(.command(.activate))
        }
    }

    // MARK: - The PIN and the parent menu

    mutating func openParentPIN() -> [Effect] {
        if state.route == .pinPrompt { return [speak(tr("Type the parental PIN, then press Enter."))] }
        if state.route == .parentMenu { return announceScreen() }
        var effects: [Effect] = []
        if state.route == .reader, var reader = state.reader, reader.status == .playing {
            // The grown-up needs to hear the prompt: the story waits at its word.
            reader.status = .paused
            reader.pausedForParent = true
            state.reader = reader
            effects += [pauseNarration()] + savePosition()
        }
        state.pinEntry = ""
        state.warning = lockWarning()
        state.stack.append(.pinPrompt)
        state.focus["pin"] = nil
        effects += announceScreen(prefix: tr("For grown-ups."))
        if let warning = state.warning { effects.append(speak(warning, .important)) }
        return effects
    }

    func lockWarning() -> String? {
        guard let kiosk = state.kiosk, let until = kiosk.pinLockedUntil, until > kiosk.now else { return nil }
        return tr("Too many tries. The PIN is locked: try again in {time}.", ["time": Self.spokenDuration(until - kiosk.now, state.messages)])
    }

    mutating func kioskPINAccepted() -> [Effect] {
        state.pinEntry = ""
        guard state.route == .pinPrompt else { return [] }
        state.kiosk?.parentUnlocked = true
        state.kiosk?.pinLockedUntil = nil
        state.warning = nil
        state.stack.removeLast()
        state.stack.append(.parentMenu)
        state.focus["parentMenu"] = nil
        return announceScreen(prefix: tr("PIN accepted."))
    }

    mutating func kioskPINRejected(lockedSeconds: Int?) -> [Effect] {
        state.pinEntry = ""
        guard state.route == .pinPrompt else { return [] }
        if let seconds = lockedSeconds, seconds > 0, let now = state.kiosk?.now {
            state.kiosk?.pinLockedUntil = now + TimeInterval(seconds)
            state.warning = lockWarning()
            return [speak(state.warning ?? "", .important)]
        }
        let text = tr("That PIN is not right. That's all right: try again.")
        state.warning = text
        return [speak(text, .important)]
    }

    mutating func addTime() -> [Effect] {
        guard var kiosk = state.kiosk else { return [] }
        let now = kiosk.now
        let added = kiosk.options.addedTime
        let base = kiosk.isTimeUp ? now : max(now, kiosk.endsAt ?? now)
        kiosk.endsAt = base + added
        kiosk.limitLength = (kiosk.endsAt ?? now) - now
        kiosk.warned = []
        let wasUp = kiosk.isTimeUp
        kiosk.isTimeUp = false
        kiosk.timeUpPendingSince = nil
        state.kiosk = kiosk
        let text =
            tr("Added {added}.", ["added": Self.spokenDuration(added, state.messages)]) + " "
            + Self.timeLeft(kiosk.remaining ?? 0, state.messages)
        if wasUp { state.stack = [.library] }
        return backToChild(announcing: text)
    }

    /// Leaves the parent's screens: the kiosk is locked again.
    mutating func backToChild(announcing text: String?) -> [Effect] {
        state.kiosk?.parentUnlocked = false
        state.pinEntry = ""
        state.warning = nil
        state.stack.removeAll { $0 == .pinPrompt || $0 == .parentMenu || $0 == .profiles }
        if state.kiosk?.isTimeUp == true { state.stack = [.timeUp] }
        if state.stack.isEmpty { state.stack = [.library] }
        let spoken = text.map { [speak($0, .message)] } ?? []
        if state.route == .reader, state.reader?.pausedForParent == true { return spoken + resume() }
        return spoken + announceScreen()
    }

    // MARK: - Time

    mutating func kioskTick(_ now: TimeInterval) -> [Effect] {
        guard var kiosk = state.kiosk else { return [] }
        var effects: [Effect] = []
        kiosk.now = max(kiosk.now, now)
        state.kiosk = kiosk
        // The PIN lockout counts down on the screen, and says when it is over.
        if let until = kiosk.pinLockedUntil {
            if now >= until {
                state.kiosk?.pinLockedUntil = nil
                if state.route == .pinPrompt {
                    state.warning = tr("You can try the PIN again.")
                    effects.append(speak(tr("You can try the PIN again."), .message))
                }
            } else if state.route == .pinPrompt {
                state.warning = lockWarning()
            }
        }
        // Listening to a story is not being idle.
        if state.reader?.status == .playing { state.kiosk?.lastActivity = now }
        if let endsAt = kiosk.endsAt, !kiosk.isTimeUp {
            let left = endsAt - now
            for warning in KioskOptions.warnings(forLimit: kiosk.limitLength ?? 0)
            where left <= warning && left > 0
                && state.kiosk?.warned.contains(Int(warning)) == false
            {
                state.kiosk?.warned.insert(Int(warning))
                // News: said at the end of the sentence being read, not over it.
                effects.append(speak(Self.timeLeft(warning, state.messages), .message))
            }
            if left <= 0 {
                if state.kiosk?.timeUpPendingSince == nil, var reader = state.reader, reader.status == .playing {
                    // Reading stops at the end of the sentence, not mid-word.
                    state.kiosk?.timeUpPendingSince = now
                    reader.stopsAfterSentence = true
                    state.reader = reader
                    return effects
                }
                if let since = state.kiosk?.timeUpPendingSince, state.reader?.status == .playing, now < since + kiosk.options.sentenceGrace {
                    return effects
                }
                if [.pinPrompt, .parentMenu, .profiles].contains(state.route) {
                    // A grown-up is here (maybe waiting out a PIN lockout): their screen stays, they
                    // are told, and the time-up screen comes when they go back.
                    state.kiosk?.isTimeUp = true
                    if state.reader != nil { effects += leaveReader(stopping: true) }
                    return effects + [speak(tr("The child's time is up. Add time from the parent menu, or go back."), .important)]
                }
                return effects + enterTimeUp()
            }
        }
        if let idle = kiosk.options.idleTimeout, let current = state.kiosk, !current.isTimeUp, now - current.lastActivity >= idle {
            state.kiosk?.lastActivity = now
            effects += idleReset()
        }
        return effects
    }

    /// Nobody pressed a key for the idle timeout: stop, keep the place, back to the library.
    mutating func idleReset() -> [Effect] {
        let pristine =
            state.stack == [.library] && state.pinEntry.isEmpty && !state.isLearning
            && state.reader.map { $0.status != .playing } ?? true
            && state.focusedID == FocusEngine(screen: screen).firstMeaningful?.id
        state.kiosk?.parentUnlocked = false
        if pristine { return [] }
        var effects: [Effect] = []
        if state.reader != nil { effects += leaveReader(stopping: true) }
        state.isLearning = false
        state.pinEntry = ""
        state.warning = nil
        state.stack = [.library]
        state.focus = [:]
        effects.append(speak(tr("Nobody pressed a key for a while, so the story's place is kept and we are back at the library."), .important))
        return effects + announceScreen()
    }

    mutating func enterTimeUp() -> [Effect] {
        var effects: [Effect] = []
        if state.reader != nil { effects += leaveReader(stopping: true) }
        state.kiosk?.isTimeUp = true
        state.kiosk?.timeUpPendingSince = nil
        state.kiosk?.parentUnlocked = false
        state.isLearning = false
        state.pinEntry = ""
        state.warning = nil
        state.stack = [.timeUp]
        state.focus["timeUp"] = nil
        // Said once, whole; the screen's own title would only repeat it.
        return effects + [speak(tr("Time is up. Your place in the story is kept.") + " " + tr(Self.wayOut), .important)]
    }

    static let wayOut = N_("A grown-up can press F12, or Control and the right bracket, and type the PIN to add time.")

    func timeIsUpReminder() -> [Effect] {
        [speak(tr("Time is up. F12 is for a grown-up."), .message)]
    }

    func speakRemaining() -> [Effect] {
        guard let left = state.kiosk?.remaining else { return [speak(tr("There is no time limit."))] }
        // An answer to `t`: said at once (a story pauses for it and goes on).
        return [speak(Self.timeLeft(left, state.messages))]
    }

    /// "5 minutes", "1 minute", "40 seconds": from one minute up, the nearest whole minute (65 s
    /// left is "1 minute", not "2 minutes" that became "1 minute" 10 s later; 4:59 is "5 minutes").
    /// "5 minutes left.": a plural of its own, since the verb agrees with the count in some
    /// languages (Spanish "Queda 1 minuto", "Quedan 5 minutos"). `sentence: false` for a value
    /// ("5 minutes left", no capital, no full stop).
    static func timeLeft(_ seconds: TimeInterval, _ messages: MessageCatalog, sentence: Bool = true) -> String {
        let whole = Int(seconds.rounded(.up))
        if whole >= 60 {
            let minutes = Int((Double(whole) / 60).rounded())
            return sentence
                ? messages.trn("{count} minute left.", "{count} minutes left.", minutes)
                : messages.trn("{count} minute left", "{count} minutes left", minutes)
        }
        return sentence
            ? messages.trn("{count} second left.", "{count} seconds left.", whole)
            : messages.trn("{count} second left", "{count} seconds left", whole)
    }

    public static func spokenDuration(_ seconds: TimeInterval, _ messages: MessageCatalog = .english) -> String {
        let whole = Int(seconds.rounded(.up))
        if whole >= 60 {
            let minutes = Int((Double(whole) / 60).rounded())
            return messages.trn("{count} minute", "{count} minutes", minutes)
        }
        return messages.trn("{count} second", "{count} seconds", whole)
    }

    // MARK: - Bookkeeping where it changes

    /// A parent switched profile in the kiosk: the new child's speed and time limit start afresh.
    mutating func kioskProfileChanged() {
        guard var kiosk = state.kiosk else { return }
        kiosk.baseRate = state.profile.speech.rate
        kiosk.baseTempo = state.profile.settings.recordingTempo
        kiosk.profilesUsed.append(state.profileName ?? ChildProfile.guest.name)
        kiosk.parentUnlocked = false
        if let limit = kiosk.options.timeLimit {
            kiosk.endsAt = kiosk.now + limit
            kiosk.limitLength = limit
            kiosk.warned = []
            kiosk.isTimeUp = false
            kiosk.timeUpPendingSince = nil
        }
        state.kiosk = kiosk
    }

    /// The screens a child never reaches in a kiosk, whatever the path: the profiles (but for a
    /// grown-up who typed the PIN) and the profile form.
    func kioskRefuses(_ route: Route) -> Bool {
        guard let kiosk = state.kiosk else { return false }
        return route == .profileForm || (route == .profiles && !kiosk.parentUnlocked)
    }
}

extension Screens {
    static func parentMenu(_ state: State) -> Screen {
        var elements: [AccessibilityElement] = [
            AccessibilityElement(
                id: "heading", label: state.tr("Parent menu"), value: state.tr("Profile: {name}", ["name": state.profile.name]), traits: .header),
            AccessibilityElement(id: "leave", label: state.tr("Leave the kiosk"), hint: state.tr("Press Enter to end kiosk mode."), traits: .button),
            AccessibilityElement(id: "switch-profile", label: state.tr("Switch profile"), hint: state.tr("Press Enter to choose who reads."), traits: .button),
        ]
        if let kiosk = state.kiosk, kiosk.endsAt != nil {
            elements.append(
                AccessibilityElement(
                    id: "add-time", label: state.tr("Add {time}", ["time": Session.spokenDuration(kiosk.options.addedTime, state.messages)]),
                    value: kiosk.isTimeUp ? state.tr("time is up") : Session.timeLeft(kiosk.remaining ?? 0, state.messages, sentence: false),
                    hint: state.tr("Press Enter to give more time."), traits: .button))
        }
        elements.append(
            AccessibilityElement(id: "resume", label: state.tr("Back to the stories"), hint: state.tr("Press Enter to lock the kiosk again."), traits: .button))
        return Screen(kind: .parentMenu, title: state.tr("Parent menu"), elements: elements)
    }

    static func timeUp(_ state: State) -> Screen {
        Screen(
            kind: .timeUp, title: state.tr("Time is up"),
            elements: [
                AccessibilityElement(id: "heading", label: state.tr("Time is up"), value: state.tr("see you next time"), traits: .header),
                AccessibilityElement(id: "ask", label: state.tr(Session.wayOut), traits: .staticText),
            ])
    }

    /// In a kiosk with a time limit, every child's screen shows the time left (t says it).
    static func kioskDecorated(_ screen: Screen, _ state: State) -> Screen {
        guard let kiosk = state.kiosk, let left = kiosk.remaining, !kiosk.isTimeUp,
            [.library, .story, .reader, .help, .settings].contains(screen.kind)
        else { return screen }
        var screen = screen
        screen.elements.append(
            AccessibilityElement(
                id: "time-left", label: state.tr("Time left"), value: Session.spokenDuration(left, state.messages), hint: state.tr("Press t to hear it."),
                traits: [.staticText, .updatesFrequently], sortPriority: -1))
        return screen
    }
}
