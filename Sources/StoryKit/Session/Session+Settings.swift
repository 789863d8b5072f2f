import Foundation

/// Settings, and the profile form's fields.
extension Session {
    mutating func set(_ name: String, _ value: String) -> [Effect] {
        if state.route == .profileForm, let field = ProfileField(loose: name), field.isInput {
            state.form?.setText(value, for: field)
            if state.form?.problems.isEmpty == true { state.warning = nil }
            state.focusedID = Self.elementID(field)
            return [speak(tr("{setting}: {value}.", ["setting": tr(field.label), "value": value.isEmpty ? tr("empty") : Sanitizer.sanitizeLine(value)]))]
        }
        guard let setting = SettingName(loose: name) else {
            let names = SettingName.allCases.map(\.rawValue).joined(separator: ", ")
            return [speak(tr("I don't know the setting {name}. Settings: {settings}.", ["name": Sanitizer.quote(name), "settings": names]), .important)]
        }
        guard childMayChange(setting) else { return refusedSetting() }
        var profile = state.profile
        var note = ""
        // A choice may be typed as it is shown in the child's language ("oscuro" for dark).
        let choices: [String] =
            switch setting {
            case .textSize: TextSizePreset.allCases.map(\.rawValue)
            case .theme: ThemeName.allCases.map(\.rawValue)
            case .motion: MotionPreference.allCases.map(\.rawValue)
            case .spacing: TextSpacing.allCases.map(\.rawValue)
            case .braille: BrailleCode.allCases.map(\.rawValue)
            case .narration: NarrationSource.allCases.map(\.rawValue)
            default: []
            }
        let word = ChoiceNames.typedName(value.trimmingCharacters(in: .whitespaces), among: choices, state.messages).lowercased()
        func invalid(_ choices: String) -> [Effect] {
            [
                speak(
                    tr(
                        "{setting} cannot be {value}. Choose {choices}.",
                        ["setting": tr(setting.spokenName), "value": Sanitizer.quote(value), "choices": choices]),
                    .important)
            ]
        }
        switch setting {
        case .rate, .pitch, .volume:
            guard let number = Int(word) else {
                let range = setting == .rate ? SpeechSettings.rateRange : setting == .pitch ? SpeechSettings.pitchRange : SpeechSettings.volumeRange
                return invalid(tr("a number from {min} to {max}", ["min": String(range.lowerBound), "max": String(range.upperBound)]))
            }
            var speech = profile.speech
            switch setting {
            case .rate: speech.rate = number
            case .pitch: speech.pitch = number
            default: speech.volume = number
            }
            let (clamped, problems) = speech.clamped()
            if let problem = problems.first {
                let now = setting == .rate ? clamped.rate : setting == .pitch ? clamped.pitch : clamped.volume
                note = tr("{value} is out of range, so it is set to {now}.", ["value": String(number), "now": String(now)]) + " "
                _ = problem
            }
            profile.speech = clamped
            if setting == .rate, case (let rate, let said?) = allowedRate(clamped.rate) {
                profile.speech.rate = rate
                return apply(profile, setting: setting, said: said)
            }
        case .voice:
            if ["default", "story", "none", "auto"].contains(word) {
                profile.speech.voice = nil
            } else {
                guard !word.isEmpty, word.allSatisfy({ $0.isLetter || $0.isNumber || "-+_".contains($0) }), word.count <= 24 else {
                    return invalid(tr("a voice like en, en-us, es or fr"))
                }
                profile.speech.voice = word
            }
        case .textSize:
            guard let preset = TextSizePreset(name: word) else {
                return invalid(tr("one of {choices}", ["choices": TextSizePreset.allCases.map(\.rawValue).joined(separator: ", ")]))
            }
            profile.textSize = preset
        case .motion:
            let mapped = ["true": "on", "yes": "on", "reduced": "on", "false": "off", "no": "off"][word] ?? word
            guard let motion = MotionPreference(rawValue: mapped) else { return invalid(tr("on, off or auto")) }
            profile.motion = motion
        case .theme:
            guard let theme = ThemeName(rawValue: word) else { return invalid(ThemeName.allCases.map(\.rawValue).joined(separator: ", ")) }
            profile.theme = theme
        case .hints:
            guard let verbosity = try? ProfileValidation.hintVerbosity(["no", "false"].contains(word) ? "off" : word) else {
                return invalid(tr("full, short or off"))
            }
            profile.settings.hintVerbosity = verbosity
        case .syllables:
            let on: Bool
            switch word {
            case "on", "yes", "true": on = true
            case "off", "no", "false": on = false
            default: return invalid(tr("on or off"))
            }
            profile.settings.aids.syllables = on
        case .lineFocus:
            guard let focus = LineFocus(name: word) else { return invalid(tr("off, 1, 3 or 5")) }
            profile.settings.aids.lineFocus = focus
        case .spacing:
            guard let spacing = TextSpacing(rawValue: word) else { return invalid(tr("normal or wide")) }
            profile.settings.aids.spacing = spacing
        case .braille:
            guard let code = BrailleCode(loose: word) else {
                return invalid(BrailleCode.allCases.map { ChoiceNames.shown($0.rawValue, state.messages) }.joined(separator: ", "))
            }
            profile.settings.brailleCode = code
        case .narration:
            guard let source = NarrationSource(loose: word) else {
                return invalid(NarrationSource.allCases.map { ChoiceNames.shown($0.rawValue, state.messages) }.joined(separator: ", "))
            }
            profile.settings.narration = source
        case .recordingTempo:
            guard let tempo = RecordingTempo.parse(word) else { return invalid(tr("a number from {min} to {max}", ["min": "0.5", "max": "2"])) }
            profile.settings.recordingTempo = tempo
            if case (let held, let said?) = allowedTempo(tempo) {
                profile.settings.recordingTempo = held
                return apply(profile, setting: setting, said: said)
            }
        case .language:
            if ["auto", "automatic", "default", "system"].contains(word) {
                profile.settings.interfaceLanguage = nil
            } else {
                guard let code = InterfaceLanguage.code(of: word) else {
                    return invalid(InterfaceLanguage.supported.compactMap { InterfaceLanguage.ownNames[$0] }.joined(separator: ", "))
                }
                profile.settings.interfaceLanguage = code
            }
        }
        return apply(profile, setting: setting, note: note)
    }

    /// `said` replaces the usual "Speed: 150 words per minute." when the policy held the value.
    mutating func apply(_ profile: ChildProfile, setting: SettingName, note: String = "", said: String? = nil, end: String = "") -> [Effect] {
        // A presentation flag from the command line gives way once the child changes it here.
        state.presentationOverride.release(setting)
        state.profile = profile
        // A text size says what is really shown ("accessibility2, shown at 2× (double-size lines)").
        let value =
            setting == .textSize
            ? TextSizeLayout(profile.textSize).description(scaling: state.options.textScaling, messages: state.messages)
            : Screens.settingValue(setting, profile, messages: state.messages)
        var effects: [Effect] = [
            said.map { speak($0, .message) }
                ?? speak(note + tr("{setting}: {value}.", ["setting": tr(setting.spokenName), "value": value]) + end, note.isEmpty ? .text : .important)
        ]
        if [.voice, .rate, .pitch, .volume].contains(setting) {
            effects.append(.preview(profile.speech, text: tr("This is how stories will sound.")))
            if state.reader?.status == .playing { effects.append(.changeSpeech(profile.speech)) }
        }
        // What is saved leaves out what the command line still holds for this run.
        effects += saveSettings(state.storedProfile)
        return effects
    }

    /// Keeps a changed reading setting: saved at once while no PIN is set or in a parent's visit;
    /// otherwise kept for this run only, and the child is told so.
    mutating func saveSettings(_ profile: ChildProfile) -> [Effect] {
        guard state.profileName != nil, profile.id != nil, keepsSettingChanges else { return [] }
        if state.snapshot.pinIsSet, !state.settingsUnlocked {
            // Said once a visit to a screen, not after every press of + or -.
            guard !state.toldChangeIsForNow else { return [] }
            state.toldChangeIsForNow = true
            return [speak(tr("This change is for now: a parent keeps it from Settings, with the PIN."), .notification)]
        }
        return [.save(.saveSettings(profile))]
    }

    /// Left and Right (and - and +) step a setting and stop at its ends, saying so, as the form's
    /// pickers do; Enter (`wraps`) goes round, from the last value to the first.
    mutating func adjust(_ setting: SettingName, up: Bool, wraps: Bool = false) -> [Effect] {
        guard childMayChange(setting) else { return refusedSetting() }
        var profile = state.profile
        let before = profile
        func cycle<T: Equatable>(_ all: [T], _ current: T) -> T {
            let index = all.firstIndex(of: current) ?? 0
            if wraps { return all[(index + (up ? 1 : all.count - 1)) % all.count] }
            return all[min(max(index + (up ? 1 : -1), 0), all.count - 1)]
        }
        switch setting {
        case .voice:
            var voices: [String?] = voiceChoices().map { $0.isEmpty ? nil : $0 }
            if !voices.contains(profile.speech.voice) { voices.append(profile.speech.voice) }
            profile.speech.voice = cycle(voices, profile.speech.voice)
        case .rate: profile.speech = up ? profile.speech.faster() : profile.speech.slower()
        case .pitch: profile.speech.pitch = SpeechSettings.pitchRange.clamp(profile.speech.pitch + (up ? 5 : -5))
        case .volume: profile.speech.volume = SpeechSettings.volumeRange.clamp(profile.speech.volume + (up ? 10 : -10))
        case .textSize:
            let all = TextSizePreset.allCases
            let index = all.firstIndex(of: profile.textSize) ?? 3
            profile.textSize = all[min(max(index + (up ? 1 : -1), 0), all.count - 1)]
        case .motion: profile.motion = cycle(MotionPreference.allCases, profile.motion)
        case .theme: profile.theme = cycle(ThemeName.allCases, profile.theme)
        case .hints: profile.settings.hintVerbosity = cycle(HintVerbosity.fewestFirst, profile.settings.hintVerbosity)
        case .lineFocus: profile.settings.aids.lineFocus = cycle(LineFocus.allCases, profile.settings.aids.lineFocus)
        case .syllables: profile.settings.aids.syllables = cycle([false, true], profile.settings.aids.syllables)
        case .spacing: profile.settings.aids.spacing = cycle(TextSpacing.allCases, profile.settings.aids.spacing)
        case .language: profile.settings.interfaceLanguage = cycle(Screens.interfaceLanguages, profile.settings.interfaceLanguage)
        case .braille: profile.settings.brailleCode = cycle(BrailleCode.allCases, profile.settings.brailleCode)
        case .narration: profile.settings.narration = cycle(NarrationSource.allCases, profile.settings.narration)
        case .recordingTempo: profile.settings.recordingTempo = RecordingTempo.stepped(profile.settings.recordingTempo, up: up)
        }
        if setting == .rate, case (let rate, let said?) = allowedRate(profile.speech.rate) {
            profile.speech.rate = rate
            return apply(profile, setting: setting, said: said)
        }
        if setting == .recordingTempo, case (let tempo, let said?) = allowedTempo(profile.settings.recordingTempo) {
            profile.settings.recordingTempo = tempo
            if tempo != before.settings.recordingTempo { return apply(profile, setting: setting, said: said) }
        }
        var end = ""
        if setting == .textSize, let index = TextSizePreset.allCases.firstIndex(of: profile.textSize) {
            // The ends of the scale say so (the size stays there).
            if index == TextSizePreset.allCases.count - 1 { end = " " + tr("That is the largest.") }
            if index == 0 { end = " " + tr("That is the smallest.") }
        } else if profile == before {
            // Any other setting at its end stays there and says so, as the form's pickers do.
            end =
                " "
                + ([.rate, .pitch, .volume, .recordingTempo].contains(setting)
                    ? (up ? tr("That is the largest.") : tr("That is the smallest."))
                    : (up ? tr("That is the last.") : tr("That is the first.")))
        }
        return apply(profile, setting: setting, end: end)
    }

    // MARK: Profile form

    /// The element id of a form field ("field-age"; the buttons are "save" and "cancel").
    static func elementID(_ field: ProfileField) -> String { field.isInput ? "field-" + field.rawValue : field.rawValue }

    /// The form field an element id names.
    func formField(_ id: String) -> ProfileField? {
        id.hasPrefix("field-") ? ProfileField(rawValue: String(id.dropFirst("field-".count))) : nil
    }

    mutating func openForm(editing: ChildProfile?) -> [Effect] {
        if state.options.isLocked { return [speak(tr("That is not available here."), .message)] }
        let names = state.snapshot.profiles.map(\.name)
        var form = editing.map { ProfileForm(editing: $0, existingNames: names) } ?? ProfileForm(existingNames: names)
        form.voiceChoices = voiceChoices()
        state.form = form
        state.focus["profileForm"] = nil
        return push(.profileForm)
    }

    mutating func type(_ text: String) -> [Effect] {
        if state.route == .pinPrompt {
            state.pinEntry = String(text.filter(\.isNumber).prefix(8))
            let count = state.pinEntry.count
            return [speak(trn("{count} digit entered.", "{count} digits entered.", count))]
        }
        guard state.route == .profileForm, let focused = focusedElement, let field = formField(focused.id) else {
            return [speak(tr("Move to a text field first."))]
        }
        return set(field.rawValue, text)
    }

    /// Enter on a field: checks it. A problem is said once and the field keeps the focus; a valid
    /// field that had a problem says its new value; then the next field is said.
    mutating func submitField(_ field: ProfileField) -> [Effect] {
        guard var form = state.form else { return [] }
        // Typing clears a field's problem, so the warning still shown tells it had one.
        let hadProblem =
            form.fields.first { $0.field == field }?.problem != nil
            || state.warning?.hasPrefix(tr("{field}: {problem}", ["field": tr(field.label), "problem": ""])) == true
        form.focus(on: field)
        // A number put right after its problem is typed anew.
        form.digitsTyped = nil
        guard case .moved(let next, let problem) = form.submit() else {
            state.form = form
            return []
        }
        state.form = form
        state.focusedID = Self.elementID(next)
        if let problem {
            state.warning = problem.description(in: state.messages)
            return [speak(SpokenForm.finish(problem.description(in: state.messages)), .important)]
        }
        // The value is read back, so that a name or an age can be checked before saving.
        let value = form.text(of: field)
        let said =
            field == .voice
            ? Screens.voiceName(value, messages: state.messages)
            : field.isNumberPicker
                ? Int(value).map { Self.formNumber(field, $0, messages: state.messages) } ?? value
                : value.isEmpty
                    ? tr("empty")
                    : field == .coachWait
                        ? Screens.choiceName(value, field: field, messages: state.messages) : Sanitizer.sanitizeLine(value)
        var readBack = tr("{setting}: {value}.", ["setting": tr(field.label), "value": said])
        if hadProblem {
            state.warning = nil
            readBack += " " + tr("That is right now.")
        }
        var effects: [Effect] = [speak(readBack, .message)]
        if let element = focusedElement { effects.append(speak(SpokenForm.describe(element, hints: hints, messages: state.messages))) }
        return effects
    }

    /// A picker's next or previous value ("large, 4 of 12"), stopping at the ends; a number
    /// picker steps its number; a voice is named in its own voice.
    mutating func choose(in field: ProfileField, step: Int) -> [Effect] {
        if field.isNumberPicker { return stepNumber(field, up: step > 0) }
        guard var form = state.form, let choices = form.choices(for: field) else { return [] }
        let current = choices.firstIndex { $0.lowercased() == form.text(of: field).lowercased() } ?? (step > 0 ? -1 : choices.count)
        let index = min(max(current + step, 0), choices.count - 1)
        form.setText(choices[index], for: field)
        state.form = form
        let end = index == current ? " " + (step > 0 ? tr("That is the last.") : tr("That is the first.")) : ""
        let text =
            tr(
                "{choice}, {item} of {items}.",
                [
                    "choice": formChoiceName(field, choices[index]),
                    "item": String(index + 1), "items": String(choices.count),
                ]) + end
        return [field == .voice ? voiceUtterance(choices[index], text) : speak(text)]
    }

    /// A picker's value as said: a voice by its name, other choices in the child's language.
    func formChoiceName(_ field: ProfileField, _ value: String) -> String {
        field == .voice ? Screens.voiceName(value, messages: state.messages) : Screens.choiceName(value, field: field, messages: state.messages)
    }

    /// A first letter typed on a picker: the next value whose name, as shown in the child's
    /// language, starts with it ("o" finds "oscuro" in Spanish).
    mutating func choose(in field: ProfileField, startingWith letter: Character) -> [Effect] {
        guard let form = state.form, let choices = form.choices(for: field) else { return [speak(tr("Left and Right arrows change it."))] }
        let current = choices.firstIndex { $0.lowercased() == form.text(of: field).lowercased() } ?? -1
        let folded = ChoiceNames.fold(String(letter))
        let order = choices.indices.map { (current + 1 + $0) % choices.count }
        guard let found = order.first(where: { ChoiceNames.fold(formChoiceName(field, choices[$0])).hasPrefix(folded) }) else {
            return [speak(tr("No choice starts with {letter}.", ["letter": String(letter).uppercased()]))]
        }
        return choose(in: field, step: found - current)
    }

    /// Save: every field is checked; the first invalid one takes focus and every problem is said.
    /// A valid profile goes to the store, and the session moves on when the store has kept it.
    mutating func saveForm() -> [Effect] {
        guard var form = state.form else { return [] }
        form.existingNames = state.snapshot.profiles.map(\.name)
        let outcome = form.save()
        state.form = form
        switch outcome {
        case .valid(let profile):
            return [.save(.saveProfile(profile))]
        case .invalid(let problems):
            guard let first = problems.first else { return [] }
            state.focusedID = Self.elementID(form.focus)
            let count = problems.count == 1 ? "" : tr("{count} problems.", ["count": String(problems.count)]) + " "
            state.warning = count + first.description(in: state.messages)
            let said = count + problems.map { SpokenForm.finish($0.description(in: state.messages)) }.joined(separator: " ")
            let field = focusedElement.map { SpokenForm.describe($0, hints: hints, messages: state.messages) } ?? ""
            return [speak(said, .important), speak(field)]
        }
    }

    /// The store kept a profile: a form's Save is announced and the profile chosen; a settings
    /// change is taken in quietly.
    mutating func profileSaved(_ profile: ChildProfile) -> [Effect] {
        let old = state.snapshot.replace(profile)
        if let old, state.profileName == old { state.profileName = profile.name }
        guard state.route == .profileForm else { return [] }
        state.form = nil
        state.warning = nil
        if state.options.endsWithForm {
            state.hasQuit = true
            return [speak(tr("Profile {name} saved.", ["name": profile.name]), .message), .exit]
        }
        return [speak(tr("Profile {name} saved.", ["name": profile.name]), .message)] + choose(profile: profile.name)
    }

    /// Cancel: leaves at once when nothing changed; otherwise asks first.
    mutating func cancelForm() -> [Effect] {
        guard var form = state.form else { return leaveForm() }
        switch form.cancel() {
        case .cancelled:
            return leaveForm()
        case .needsConfirmation(let question):
            state.form = form
            state.warning = tr(question)
            state.focusedID = "discard"
            let choice = focusedElement.map { SpokenForm.describe($0, hints: hints, messages: state.messages) } ?? ""
            return [speak(tr(question), .important), speak(choice)]
        }
    }

    mutating func discardForm() -> [Effect] {
        _ = state.form?.confirmCancel()
        return [speak(tr("Changes discarded."), .message)] + leaveForm()
    }

    mutating func keepEditing() -> [Effect] {
        state.form?.keepEditing()
        state.warning = nil
        state.focusedID = "cancel"
        return [speak(tr("Still editing."), .message)] + (focusedElement.map { [speak(SpokenForm.describe($0, hints: hints, messages: state.messages))] } ?? [])
    }

    mutating func leaveForm() -> [Effect] {
        if state.options.endsWithForm { return formEnded() }
        state.form = nil
        state.warning = nil
        if state.route == .profileForm { state.stack.removeLast() }
        endParentVisitIfLeft()
        return announceScreen()
    }
}

extension ProfileField {
    /// A field named loosely in a command ("text-size", "step_mode", "Age").
    init?(loose: String) {
        let folded = loose.lowercased().filter { $0 != "-" && $0 != "_" }
        guard
            let field = ProfileField.allCases.first(where: { $0.rawValue.lowercased() == folded })
                ?? (["speed": .rate, "size": .textSize, "reducedmotion": .motion, "step": .stepMode, "braille": .brailleCode, "tempo": .recordingTempo]
                as [String: ProfileField])[folded]
        else { return nil }
        self = field
    }
}
