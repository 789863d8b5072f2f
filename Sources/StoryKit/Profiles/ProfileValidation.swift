import Foundation

/// Pure parsing and checking of each profile field's typed text. Every failure is a
/// ``ProfileProblem`` that names the field and says what to do.
public enum ProfileValidation {
    public static let nameLengthRange = 1...40
    public static let ageRange = 2...12

    /// Trims, refuses control characters, escape sequences and bidi controls, checks the length and
    /// uniqueness (ignoring case) against `existingNames`, and returns the sanitized name.
    public static func name(_ text: String, existingNames: [String] = []) throws(ProfileProblem) -> String {
        let trimmed = text.trimmingCharacters(in: .whitespaces)
        if UnsafeCharacters.containsUnsafe(trimmed) {
            throw ProfileProblem(
                field: .name,
                template: N_(
                    "the name contains control characters, escape sequences or hidden direction marks: type only letters, numbers, spaces and punctuation"))
        }
        let name = Sanitizer.sanitizeLine(trimmed).trimmingCharacters(in: .whitespaces)
        if name.isEmpty {
            throw ProfileProblem(field: .name, template: N_("the name is empty: type the child's name, 1 to 40 characters"))
        }
        if name.count > nameLengthRange.upperBound {
            throw ProfileProblem(
                field: .name,
                template: N_("the name is {length} characters long: use at most {most} characters"),
                ["length": String(name.count), "most": String(nameLengthRange.upperBound)])
        }
        let key = ChildProfile.nameKey(name)
        if let other = existingNames.first(where: { ChildProfile.nameKey($0) == key }) {
            throw duplicateName(other)
        }
        return name
    }

    /// The problem for a name already used by another profile.
    public static func duplicateName(_ existing: String) -> ProfileProblem {
        ProfileProblem(
            field: .name,
            template: N_("a profile named {name} already exists (names ignore case): choose another name or edit that profile"),
            ["name": "\"\(existing)\""])
    }

    public static func age(_ text: String) throws(ProfileProblem) -> Int {
        let trimmed = text.trimmingCharacters(in: .whitespaces)
        let range = ["min": String(ageRange.lowerBound), "max": String(ageRange.upperBound)]
        if trimmed.isEmpty { throw ProfileProblem(field: .age, template: N_("the age is empty: type a whole number of years from {min} to {max}"), range) }
        let shown = range.merging(["value": "\"\(Sanitizer.sanitizeLine(String(trimmed.prefix(20))))\""]) { $1 }
        guard let age = Int(trimmed) else {
            if trimmed.allSatisfy({ $0.isASCII && $0.isNumber }) || (trimmed.first == "-" && trimmed.dropFirst().allSatisfy({ $0.isASCII && $0.isNumber })) {
                throw ProfileProblem(field: .age, template: N_("{value} is out of range: type a whole number of years from {min} to {max}"), shown)
            }
            if Double(trimmed) != nil {
                throw ProfileProblem(field: .age, template: N_("{value} is not a whole number: type a whole number of years from {min} to {max}"), shown)
            }
            throw ProfileProblem(field: .age, template: N_("{value} is not a number: type a whole number of years from {min} to {max}"), shown)
        }
        guard ageRange.contains(age) else {
            throw ProfileProblem(
                field: .age, template: N_("{value} is out of range: type a whole number of years from {min} to {max}"),
                range.merging(["value": String(age)]) { $1 })
        }
        return age
    }

    public static func interests(_ text: String) throws(ProfileProblem) -> [String] {
        try Interests.parse(text)
    }

    /// An eSpeak voice name (`en`, `en-us`, `en+f3`), or `nil` for an empty text.
    public static func voice(_ text: String) throws(ProfileProblem) -> String? {
        let trimmed = text.trimmingCharacters(in: .whitespaces).lowercased()
        if trimmed.isEmpty { return nil }
        if trimmed.count <= 40, isVoiceName(trimmed) { return trimmed }
        throw ProfileProblem(
            field: .voice,
            template: N_(
                "{value} is not a voice name: use a language such as en, en-us, es, fr or de, with an optional variant such as en+f3, or leave it empty"),
            ["value": "\"\(Sanitizer.sanitizeLine(String(trimmed.prefix(40))))\""])
    }

    private static func isVoiceName(_ text: String) -> Bool {
        let parts = text.split(separator: "+", maxSplits: 1, omittingEmptySubsequences: false)
        let language = parts[0].split(separator: "-", omittingEmptySubsequences: false)
        guard let code = language.first, (2...3).contains(code.count), code.allSatisfy({ $0.isASCII && $0.isLetter }) else { return false }
        for region in language.dropFirst() where region.isEmpty || region.count > 8 || !region.allSatisfy({ $0.isASCII && ($0.isLetter || $0.isNumber) }) {
            return false
        }
        if parts.count == 2 {
            let variant = parts[1]
            if variant.isEmpty || variant.count > 20 || !variant.allSatisfy({ $0.isASCII && ($0.isLetter || $0.isNumber || $0 == "_") }) { return false }
        }
        return true
    }

    public static func number(_ text: String, field: ProfileField, range: ClosedRange<Int>) throws(ProfileProblem) -> Int {
        let trimmed = text.trimmingCharacters(in: .whitespaces)
        let bounds = ["min": String(range.lowerBound), "max": String(range.upperBound)]
        guard let value = Int(trimmed) else {
            let shown = Sanitizer.sanitizeLine(String(trimmed.prefix(20)))
            if trimmed.isEmpty { throw ProfileProblem(field: field, template: N_("the value is empty: use a whole number from {min} to {max}"), bounds) }
            throw ProfileProblem(
                field: field, template: N_("{value} is not a whole number: use a whole number from {min} to {max}"),
                bounds.merging(["value": "\"\(shown)\""]) { $1 })
        }
        guard range.contains(value) else {
            throw ProfileProblem(
                field: field, template: N_("{value} is out of range: use a whole number from {min} to {max}"),
                bounds.merging(["value": String(value)]) { $1 })
        }
        return value
    }

    public static func textSize(_ text: String) throws(ProfileProblem) -> TextSizePreset {
        let trimmed = text.trimmingCharacters(in: .whitespaces)
        guard let preset = TextSizePreset(name: trimmed) else {
            throw ProfileProblem(
                field: .textSize, template: N_("{value} is not a text size: use one of {choices}"),
                ["value": quoted(trimmed), "choices": TextSizePreset.allCases.map(\.rawValue).joined(separator: ", ")])
        }
        return preset
    }

    public static func motion(_ text: String) throws(ProfileProblem) -> MotionPreference {
        let trimmed = text.trimmingCharacters(in: .whitespaces).lowercased()
        guard let motion = MotionPreference(rawValue: trimmed) else {
            throw ProfileProblem(field: .motion, template: N_("{value} is not a choice: use on, off or auto"), ["value": quoted(trimmed)])
        }
        return motion
    }

    public static func theme(_ text: String) throws(ProfileProblem) -> ThemeName {
        let trimmed = text.trimmingCharacters(in: .whitespaces).lowercased()
        guard let theme = ThemeName(rawValue: trimmed) else {
            throw ProfileProblem(
                field: .theme, template: N_("{value} is not a theme: use one of {choices}"),
                ["value": quoted(trimmed), "choices": ThemeName.allCases.map(\.rawValue).joined(separator: ", ")])
        }
        return theme
    }

    public static func lineFocus(_ text: String) throws(ProfileProblem) -> LineFocus {
        let trimmed = text.trimmingCharacters(in: .whitespaces)
        guard let focus = LineFocus(name: trimmed) else {
            throw ProfileProblem(field: .lineFocus, template: N_("{value} is not a line focus: use off, 1, 3 or 5"), ["value": quoted(trimmed)])
        }
        return focus
    }

    /// "grade-2", and also "grade 2", "g2", "contracted", "computer".
    public static func brailleCode(_ text: String) throws(ProfileProblem) -> BrailleCode {
        let trimmed = text.trimmingCharacters(in: .whitespaces)
        guard let code = BrailleCode(loose: trimmed) else {
            throw ProfileProblem(
                field: .brailleCode, template: N_("{value} is not a braille code: use computer, grade-1 or grade-2"),
                ["value": quoted(trimmed)])
        }
        return code
    }

    /// The book's recording or always the synthetic voice ("recording", "synthetic", "book", "espeak").
    public static func narration(_ text: String) throws(ProfileProblem) -> NarrationSource {
        let trimmed = text.trimmingCharacters(in: .whitespaces)
        guard let source = NarrationSource(loose: trimmed) else {
            throw ProfileProblem(field: .narration, template: N_("{value} is not a narration: use recording or synthetic"), ["value": quoted(trimmed)])
        }
        return source
    }

    /// A bedtime timer: off, story, chapter or a number of minutes from 1 to 180 ("20 minutes").
    public static func bedtime(_ text: String) throws(ProfileProblem) -> Bedtime {
        let trimmed = text.trimmingCharacters(in: .whitespaces)
        guard let bedtime = Bedtime(loose: trimmed) else {
            throw ProfileProblem(
                field: .bedtime, template: N_("{value} is not a bedtime: use off, story, chapter or a number of minutes from 1 to 180"),
                ["value": quoted(trimmed)])
        }
        return bedtime
    }

    /// The coach's wait: a number of seconds from 2 to 8 ("3", "3 seconds").
    public static func coachWait(_ text: String) throws(ProfileProblem) -> Int {
        let trimmed = text.trimmingCharacters(in: .whitespaces)
        guard let seconds = CoachWait.seconds(loose: trimmed) else {
            throw ProfileProblem(
                field: .coachWait, template: N_("{value} is not a wait for the coach: use a number of seconds from 2 to 8"), ["value": quoted(trimmed)])
        }
        return seconds
    }

    /// A recording's tempo from 0.5 to 2 ("1.25", also "1,25" and "1.25x"), kept to hundredths.
    public static func recordingTempo(_ text: String) throws(ProfileProblem) -> Double {
        let trimmed = text.trimmingCharacters(in: .whitespaces)
        guard let tempo = RecordingTempo.parse(trimmed) else {
            throw ProfileProblem(
                field: .recordingTempo, template: N_("{value} is not a recording tempo: use a number from 0.5 to 2"), ["value": quoted(trimmed)])
        }
        return tempo
    }

    /// How many hints: full, short or off (`on` is full, as the hints were once on or off).
    public static func hintVerbosity(_ text: String) throws(ProfileProblem) -> HintVerbosity {
        let trimmed = text.trimmingCharacters(in: .whitespaces).lowercased()
        if let verbosity = HintVerbosity(rawValue: trimmed) { return verbosity }
        if ["on", "yes", "true"].contains(trimmed) { return .full }
        throw ProfileProblem(field: .hints, template: N_("{value} is not a hint setting: use full, short or off"), ["value": quoted(trimmed)])
    }

    public static func spacing(_ text: String) throws(ProfileProblem) -> TextSpacing {
        let trimmed = text.trimmingCharacters(in: .whitespaces).lowercased()
        guard let spacing = TextSpacing(rawValue: trimmed) else {
            throw ProfileProblem(field: .spacing, template: N_("{value} is not a spacing: use normal or wide"), ["value": quoted(trimmed)])
        }
        return spacing
    }

    /// An interface language named in itself, by its code or by a locale (`Español`, `es`,
    /// `es_ES`); nil for automatic (or empty).
    public static func language(_ text: String) throws(ProfileProblem) -> String? {
        let trimmed = text.trimmingCharacters(in: .whitespaces)
        if trimmed.isEmpty || ["auto", "automatic", "default"].contains(trimmed.lowercased()) { return nil }
        guard let code = InterfaceLanguage.code(of: trimmed) else {
            throw ProfileProblem(
                field: .language, template: N_("{value} is not a language here: use one of {choices}"),
                ["value": quoted(trimmed), "choices": ProfileField.language.choices?.joined(separator: ", ") ?? ""])
        }
        return code
    }

    /// `on`/`off` (also `yes`/`no`, `true`/`false`).
    public static func toggle(_ text: String, field: ProfileField) throws(ProfileProblem) -> Bool {
        switch text.trimmingCharacters(in: .whitespaces).lowercased() {
        case "on", "yes", "true", "y": return true
        case "off", "no", "false", "n": return false
        case let other: throw ProfileProblem(field: field, template: N_("{value} is not a choice: use on or off"), ["value": quoted(other)])
        }
    }

    /// The text shown for a toggle value.
    public static func toggleText(_ value: Bool) -> String { value ? "on" : "off" }

    private static func quoted(_ text: String) -> String {
        text.isEmpty ? "an empty value" : "\"\(Sanitizer.sanitizeLine(String(text.prefix(30))))\""
    }
}
