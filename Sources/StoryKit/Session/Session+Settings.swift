import Foundation

/// Settings, and the profile form's fields.
extension Session {
    mutating func set(_ name: String, _ value: String) -> [Effect] {
        if state.route == .profileForm, let field = ProfileDraft.Field(rawValue: name.lowercased()) {
            state.form?.values[field] = value
            state.focusedID = "field-" + field.rawValue
            return [speak("\(field.label): \(value.isEmpty ? "empty" : Sanitizer.sanitizeLine(value)).")]
        }
        guard let setting = SettingName(loose: name) else {
            let names = SettingName.allCases.map(\.rawValue).joined(separator: ", ")
            return [speak("I don't know the setting \(Sanitizer.sanitizeLine(name)). Settings: \(names).", .important)]
        }
        if state.options.isLocked, ![.textSize, .motion, .theme, .rate].contains(setting) {
            return [speak("That is not available here.", .message)]
        }
        var profile = state.profile
        var note = ""
        let word = value.trimmingCharacters(in: .whitespaces).lowercased()
        func invalid(_ choices: String) -> [Effect] {
            [speak("\(setting.spokenName) cannot be \(Sanitizer.sanitizeLine(value)). Choose \(choices).", .important)]
        }
        switch setting {
        case .rate, .pitch, .volume:
            guard let number = Int(word) else {
                let range = setting == .rate ? SpeechSettings.rateRange : setting == .pitch ? SpeechSettings.pitchRange : SpeechSettings.volumeRange
                return invalid("a number from \(range.lowerBound) to \(range.upperBound)")
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
                note = "\(number) is out of range, so it is set to \(now). "
                _ = problem
            }
            profile.speech = clamped
        case .voice:
            if ["default", "story", "none", "auto"].contains(word) {
                profile.speech.voice = nil
            } else {
                guard !word.isEmpty, word.allSatisfy({ $0.isLetter || $0.isNumber || "-+_".contains($0) }), word.count <= 24 else {
                    return invalid("a voice like en, en-us, es or fr")
                }
                profile.speech.voice = word
            }
        case .textSize:
            guard let preset = TextSizePreset(name: word) else {
                return invalid("one of " + TextSizePreset.allCases.map(\.rawValue).joined(separator: ", "))
            }
            profile.textSize = preset
        case .motion:
            let mapped = ["true": "on", "yes": "on", "reduced": "on", "false": "off", "no": "off"][word] ?? word
            guard let motion = MotionPreference(rawValue: mapped) else { return invalid("on, off or auto") }
            profile.motion = motion
        case .theme:
            guard let theme = ThemeName(rawValue: word) else { return invalid(ThemeName.allCases.map(\.rawValue).joined(separator: ", ")) }
            profile.theme = theme
        case .hints:
            switch word {
            case "on", "yes", "true": profile.hints = true
            case "off", "no", "false": profile.hints = false
            default: return invalid("on or off")
            }
        }
        return apply(profile, setting: setting, note: note)
    }

    mutating func apply(_ profile: ProfileRecord, setting: SettingName, note: String = "") -> [Effect] {
        state.profile = profile
        // A text size says what is really shown ("accessibility2, shown at 2× (double-size lines)").
        let value = setting == .textSize
            ? TextSizeLayout(profile.textSize).description(scaling: state.options.textScaling)
            : Screens.settingValue(setting, profile)
        var effects: [Effect] = [speak("\(note)\(setting.spokenName): \(value).", note.isEmpty ? .text : .important)]
        if [.voice, .rate, .pitch, .volume].contains(setting) {
            effects.append(.preview(profile.speech, text: "This is how stories will sound."))
            if state.reader?.status == .playing { effects.append(.changeSpeech(profile.speech)) }
        }
        if state.profileName != nil { effects.append(.save(.saveProfile(profile, replacing: profile.name))) }
        return effects
    }

    mutating func adjust(_ setting: SettingName, up: Bool) -> [Effect] {
        var profile = state.profile
        func cycle<T: Equatable>(_ all: [T], _ current: T) -> T {
            let index = all.firstIndex(of: current) ?? 0
            return all[(index + (up ? 1 : all.count - 1)) % all.count]
        }
        switch setting {
        case .voice: profile.speech.voice = cycle(Screens.voices, profile.speech.voice)
        case .rate: profile.speech = up ? profile.speech.faster() : profile.speech.slower()
        case .pitch: profile.speech.pitch = SpeechSettings.pitchRange.clamp(profile.speech.pitch + (up ? 5 : -5))
        case .volume: profile.speech.volume = SpeechSettings.volumeRange.clamp(profile.speech.volume + (up ? 10 : -10))
        case .textSize:
            let all = TextSizePreset.allCases
            let index = all.firstIndex(of: profile.textSize) ?? 3
            profile.textSize = all[min(max(index + (up ? 1 : -1), 0), all.count - 1)]
        case .motion: profile.motion = cycle(MotionPreference.allCases, profile.motion)
        case .theme: profile.theme = cycle(ThemeName.allCases, profile.theme)
        case .hints: profile.hints.toggle()
        }
        return apply(profile, setting: setting)
    }

    // MARK: Profile form

    mutating func openForm(editing: ProfileRecord?) -> [Effect] {
        if state.options.isLocked { return [speak("That is not available here.", .message)] }
        state.form = ProfileDraft(knownInterests: catalog.tags, editing: editing)
        state.focus["profileForm"] = nil
        return push(.profileForm)
    }

    mutating func type(_ text: String) -> [Effect] {
        guard state.route == .profileForm, let focused = focusedElement, focused.id.hasPrefix("field-"),
              let field = ProfileDraft.Field(rawValue: String(focused.id.dropFirst("field-".count))) else {
            return [speak("Move to a text field first.")]
        }
        return set(field.rawValue, text)
    }

    mutating func saveForm() -> [Effect] {
        guard let draft = state.form else { return [] }
        let others = state.snapshot.profiles.map(\.name)
        if let problem = draft.problem(existingNames: others) {
            state.warning = problem.message
            state.focusedID = "field-" + problem.field.rawValue
            let field = focusedElement.map { SpokenForm.describe($0, hints: hints) } ?? ""
            return [speak(problem.message, .important), speak(field)]
        }
        let base = draft.editing.flatMap { name in state.snapshot.profiles.first { $0.name == name } } ?? ProfileRecord(name: "")
        let record = draft.record(base: base)
        let change = StoreChange.saveProfile(record, replacing: draft.editing)
        state.snapshot.apply(change)
        state.form = nil
        state.warning = nil
        var effects: [Effect] = [.save(change), speak("Profile \(record.name) saved.", .message)]
        effects += choose(profile: record.name)
        return effects
    }
}
