import Foundation

/// The profile form as pickers, for a parent who cannot see it: Speed, Pitch and Volume stepped
/// as Settings steps them (Left and Right, - and +, the value said), the Voice a picker of the
/// installed voices of the child's languages (each name said in its own voice), a Save key
/// (Control S) on every field, each field's problem said as it is left, and no unsaved form
/// left without asking.
extension Session {
    /// The voices the form offers: each installed voice whose language is the interface's or a
    /// language of a story in the library (the installed list, else the few every eSpeak NG has).
    func voiceChoices() -> [String] {
        var languages = Set(catalog.entries.map { Self.speechLanguage($0.language) })
        languages.insert(state.language)
        let installed = state.options.voices.isEmpty ? Screens.voices.compactMap { $0 } : state.options.voices
        return [""] + installed.filter { languages.contains(Self.speechLanguage($0)) }
    }

    /// A number picker's next or previous value (Speed by 10 %, as faster and slower do; Pitch
    /// by 5; Volume by 10), stopping at the ends and saying so.
    mutating func stepNumber(_ field: ProfileField, up: Bool) -> [Effect] {
        guard var form = state.form else { return [] }
        let (range, step): (ClosedRange<Int>, Int) =
            switch field {
            case .rate: (SpeechSettings.rateRange, 0)
            case .pitch: (SpeechSettings.pitchRange, 5)
            default: (SpeechSettings.volumeRange, 10)
            }
        // A typed value out of range (or not a number) starts from the nearest good one.
        let old = Int(form.text(of: field).trimmingCharacters(in: .whitespaces)).map(range.clamp) ?? (up ? range.lowerBound : range.upperBound)
        var new = range.clamp(old + (up ? step : -step))
        if field == .rate {
            let speech = SpeechSettings(rate: old)
            new = (up ? speech.faster() : speech.slower()).rate
        }
        form.setText(String(new), for: field)
        form.digitsTyped = nil
        state.form = form
        let end = new == old ? " " + (up ? tr("That is the largest.") : tr("That is the smallest.")) : ""
        return [speak(tr("{setting}: {value}.", ["setting": tr(field.label), "value": Self.formNumber(field, new, messages: state.messages)]) + end)]
    }

    /// A digit typed on a number picker: the first starts a new number ("1", "12", "120"), each
    /// said as typed; Enter or leaving the field checks it, as for a typed field.
    mutating func typeDigit(_ digit: Character, into field: ProfileField) -> [Effect] {
        guard var form = state.form else { return [] }
        let typed = form.digitsTyped == field ? form.text(of: field) : ""
        guard typed.count < 3 else { return [speak(tr("{setting}: {value}.", ["setting": tr(field.label), "value": typed]))] }
        form.setText(typed + String(digit), for: field)
        form.digitsTyped = field
        state.form = form
        return [speak(String(digit))]
    }

    /// Backspace on a number picker: the last digit goes, and is said.
    mutating func deleteDigit(from field: ProfileField) -> [Effect] {
        guard var form = state.form else { return [] }
        var text = form.text(of: field)
        let removed = text.popLast()
        form.setText(text, for: field)
        form.digitsTyped = field
        state.form = form
        return [speak(removed.map { tr("{letter} deleted", ["letter": String($0)]) } ?? tr("Empty."))]
    }

    /// A number field's value as said and shown: Speed in words per minute, as Settings says it.
    static func formNumber(_ field: ProfileField, _ value: Int, messages: MessageCatalog) -> String {
        field == .rate ? messages.tr("{rate} words per minute", ["rate": String(value)]) : String(value)
    }

    /// The utterance for a voice chosen on the picker: its name in its own voice, the rest
    /// ("3 of 6.") in the interface's.
    func voiceUtterance(_ voice: String, _ text: String) -> Effect {
        let name = Screens.voiceName(voice, messages: state.messages)
        var utterance = Utterance(text, priority: .text)
        utterance.language = state.language
        let own = voice.isEmpty ? state.language : String(voice.prefix { $0 != "+" }).lowercased()
        if text.hasPrefix(name) {
            utterance.runs = [SpeechRun(text: name, language: own), SpeechRun(text: String(text.dropFirst(name.count)), language: state.language)]
        }
        return .speak(utterance)
    }

    /// Leaving a field the parent changed: its problem is said (and shown) now, not at Save.
    mutating func checkLeavingField() -> [Effect] {
        guard state.route == .profileForm, var form = state.form, let id = state.focusedID, let field = formField(id) else { return [] }
        form.digitsTyped = nil
        state.form = form
        guard form.isChanged(field) else { return [] }
        let problem = form.check(field)
        state.form = form
        guard let problem else {
            if state.warning?.hasPrefix(tr("{field}: {problem}", ["field": tr(field.label), "problem": ""])) == true { state.warning = nil }
            return []
        }
        state.warning = problem.description(in: state.messages)
        return [speak(SpokenForm.finish(problem.description(in: state.messages)), .important)]
    }

    /// Home, quit or a profile's switch with unsaved changes in the form asks first (as Escape does).
    mutating func asksBeforeLeavingForm() -> [Effect]? {
        guard state.route == .profileForm, let form = state.form, form.hasUnsavedChanges, !form.isConfirmingCancel else { return nil }
        return cancelForm()
    }
}
