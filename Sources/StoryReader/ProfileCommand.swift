import ArgumentParser
import Foundation
import StoryKit

/// `storyreader profile add|list|show|edit|remove`.
struct ProfileCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "profile",
        abstract: helpMessages.tr("Add, list, show, edit and remove child profiles."),
        discussion: helpMessages.tr(
            "A profile holds a child's name, age, interests and reading settings. While a parental PIN is set (`storyreader pin set`), adding, editing and removing a profile asks for it."
        ),
        subcommands: [Add.self, List.self, Show.self, Edit.self, Remove.self]
    )
}

/// The profile fields as command-line flags; every value is checked by the same form as the
/// interactive one, so the messages are the same.
struct ProfileFieldOptions: ParsableArguments {
    @Option(help: ArgumentHelp(helpMessages.tr("The child's name, 1 to 40 characters."))) var name: String?
    @Option(help: ArgumentHelp(helpMessages.tr("The child's age, 2 to 12."))) var age: String?
    @Option(
        help: ArgumentHelp(
            helpMessages.tr("Up to 10 interests separated by commas (animals, space, friendship, magic, nature, bedtime, funny, adventure, or your own words).")
        ))
    var interests: String?
    @Option(help: ArgumentHelp(helpMessages.tr("The eSpeak voice (en, en-us, es, fr, de, en+f3); empty for each story's language."))) var voice: String?
    @Option(help: ArgumentHelp(helpMessages.tr("Words per minute, 80 to 450."))) var rate: String?
    @Option(help: ArgumentHelp(helpMessages.tr("Pitch, 0 to 100."))) var pitch: String?
    @Option(help: ArgumentHelp(helpMessages.tr("Volume, 0 to 200."))) var volume: String?
    @Option(name: .customLong("text-size"), help: "xSmall, small, medium, large, xLarge, xxLarge, xxxLarge, accessibility1 … accessibility5.")
    var textSize: String?
    @Option(name: .customLong("reduced-motion"), help: ArgumentHelp(helpMessages.tr("on, off or auto."))) var reducedMotion: String?
    @Option(help: "default, dark, light, high-contrast-dark, high-contrast-light.") var theme: String?
    @Option(help: ArgumentHelp(helpMessages.tr("Spoken hints: on or off."))) var hints: String?
    @Option(name: .customLong("step-mode"), help: ArgumentHelp(helpMessages.tr("Wait for a key after each sentence: on or off."))) var stepMode: String?
    @Option(
        name: .customLong("line-focus"),
        help: ArgumentHelp(helpMessages.tr("Lines shown in full around the word being read, the others dimmed: off, 1, 3 or 5."))) var lineFocus: String?
    // A flag, as the display option and config.toml's `syllables = true` spell it.
    @Flag(inversion: .prefixedNo, help: ArgumentHelp(helpMessages.tr("Show words split into syllables (but·ter·fly)."))) var syllables: Bool?
    @Option(help: ArgumentHelp(helpMessages.tr("Space between words and lines: normal or wide."))) var spacing: String?
    @Option(
        name: .customLong("braille-code"),
        help: ArgumentHelp(helpMessages.tr("Braille code on a braille display: computer, grade-1 (uncontracted) or grade-2 (contracted)."))) var brailleCode:
        String?
    @Option(
        help: ArgumentHelp(helpMessages.tr("A story with its own recording: recording (the book's narrator, the default) or synthetic (always eSpeak NG).")))
    var narration: String?
    @Option(name: .customLong("recording-tempo"), help: ArgumentHelp(helpMessages.tr("The tempo of a book's recording, 0.5–2 (1 is its own pace).")))
    var recordingTempo: String?
    @Option(
        help: ArgumentHelp(
            helpMessages.tr("The bedtime timer's default: off, story, chapter, or a number of minutes (1–180) then the end of the sentence.")))
    var bedtime: String?
    @Option(
        name: .customLong("coach-wait"),
        help: ArgumentHelp(
            helpMessages.tr("Seconds of silence, 2–8, before the reading coach says the next word for this child (default 3)."),
            valueName: "seconds"))
    var coachWait: String?

    /// The flags given, by field.
    var values: [(ProfileField, String)] {
        let all: [(ProfileField, String?)] = [
            (.name, name), (.age, age), (.interests, interests), (.voice, voice), (.rate, rate), (.pitch, pitch),
            (.volume, volume), (.textSize, textSize), (.motion, reducedMotion), (.theme, theme), (.hints, hints),
            (.stepMode, stepMode), (.lineFocus, lineFocus), (.syllables, syllables.map { $0 ? "on" : "off" }), (.spacing, spacing),
            (.brailleCode, brailleCode), (.narration, narration), (.recordingTempo, recordingTempo),
            (.bedtime, bedtime), (.coachWait, coachWait),
        ]
        return all.compactMap { field, value in value.map { (field, $0) } }
    }

    static func flag(for field: ProfileField) -> String {
        switch field {
        case .textSize: "--text-size"
        case .motion: "--reduced-motion"
        case .stepMode: "--step-mode"
        case .lineFocus: "--line-focus"
        case .brailleCode: "--braille-code"
        case .recordingTempo: "--recording-tempo"
        default: "--\(field.rawValue)"
        }
    }
}

/// Fills a form the three ways: from flags, field by field on a terminal, one line per field from a pipe.
enum ProfileFormDriver {
    /// Runs the form and returns the profile to save, or `nil` when the parent cancelled.
    static func run(
        _ form: inout ProfileForm, flags: ProfileFieldOptions, prompter: Prompter,
        messages: MessageCatalog = .english
    ) throws -> ChildProfile? {
        let given = flags.values
        if !given.isEmpty {
            for (field, value) in given { form.setText(value, for: field) }
            switch form.save() {
            case .valid(let profile): return profile
            case .invalid(let problems):
                let lines = problems.map {
                    messages.tr(
                        "{field} ({flag}): {problem}",
                        [
                            "field": messages.tr($0.field.label), "flag": ProfileFieldOptions.flag(for: $0.field),
                            "problem": $0.message(in: messages),
                        ])
                }
                throw StoreCommandSupport.fail(messages.tr("nothing was saved:") + "\n" + lines.joined(separator: "\n"))
            }
        }
        return prompter.isTerminal
            ? try interactive(&form, prompter: prompter, messages: messages)
            : try piped(&form, prompter: prompter, messages: messages)
    }

    /// From a pipe: one answer per line in focus order; an empty line keeps the shown value, and the
    /// end of input keeps the rest. The first bad line stops it, named by its number, and nothing is
    /// saved (a later answer never moves into another field).
    static func piped(_ form: inout ProfileForm, prompter: Prompter, messages: MessageCatalog = .english) throws -> ChildProfile? {
        for (index, field) in ProfileField.inputs.enumerated() {
            guard let line = prompter.ask("") else { break }
            if line.isEmpty { continue }
            form.focus(on: field)
            form.enter(line)
            if case .moved(_, let problem?) = form.submit() {
                throw StoreCommandSupport.fail(
                    messages.tr(
                        "nothing was saved: line {line} ({field}): {problem}",
                        [
                            "line": String(index + 1), "field": messages.tr(field.label), "problem": problem.message(in: messages),
                        ]))
            }
        }
        switch form.save() {
        case .valid(let profile): return profile
        case .invalid(let problems):
            throw StoreCommandSupport.fail(messages.tr("nothing was saved:") + "\n" + problems.map { $0.description(in: messages) }.joined(separator: "\n"))
        }
    }

    /// On a terminal: each field with its label, hint, constraint and value; Enter keeps the value;
    /// a problem is said at once and the field is asked again; then Save or Cancel.
    static func interactive(_ form: inout ProfileForm, prompter: Prompter, messages: MessageCatalog = .english) throws -> ChildProfile? {
        Prompter.writeError(messages.tr("Type a value and press Enter; press Enter alone to keep the value shown.") + "\n")
        form.focus(on: .name)
        while true {
            let field = form.focus
            if field.isInput {
                let current = form.text(of: field)
                let prompt =
                    messages.tr(
                        "{field}, {hint} ({rule})",
                        [
                            "field": messages.tr(field.label), "hint": field.hint(in: messages),
                            "rule": field.constraint(in: messages),
                        ])
                    + (current.isEmpty ? "" : " [\(StoreCommandSupport.safe(current))]") + ": "
                guard let answer = prompter.ask(prompt) else { return nil }
                if !answer.isEmpty { form.enter(answer) }
                if case .moved(_, let problem?) = form.submit() {
                    Prompter.writeError(problem.description(in: messages) + "\n")
                    // Asked again with the value it had, not the bad one: Enter must not repeat the error.
                    form.setText(current, for: field)
                    form.focus(on: field)
                }
                continue
            }
            guard let answer = prompter.ask(messages.tr("Save or Cancel? (save/cancel) [save]:") + " ") else { return nil }
            let choice = answer.trimmingCharacters(in: .whitespaces).lowercased()
            if choice.isEmpty || choice == "save" || choice == "s" {
                form.focus(on: .save)
                switch form.save() {
                case .valid(let profile): return profile
                case .invalid(let problems):
                    Prompter.writeError(messages.tr("Not saved yet:") + "\n" + problems.map { $0.description(in: messages) }.joined(separator: "\n") + "\n")
                }
            } else if choice == "cancel" || choice == "c" {
                form.focus(on: .cancel)
                switch form.cancel() {
                case .cancelled: return nil
                case .needsConfirmation(let question):
                    if prompter.confirm(messages.tr(question), messages: messages) {
                        _ = form.confirmCancel()
                        return nil
                    }
                    form.keepEditing()
                    form.focus(on: .name)
                }
            } else {
                Prompter.writeError(messages.tr("Type save or cancel.") + "\n")
            }
        }
    }
}

/// A profile as printed by `--json`.
struct ProfileJSON: Encodable {
    var name: String
    var age: Int
    var interests: [String]
    var voice: String?
    var rate: Int
    var pitch: Int
    var volume: Int
    var textSize: String
    var reducedMotion: String
    var theme: String
    var hints: Bool
    var stepMode: Bool
    var lineFocus: String
    var syllables: Bool
    var spacing: String
    var language: String?
    var brailleCode: String
    var narration: String
    var recordingTempo: Double
    var readCount: Int?
    var favourites: [String]?

    init(_ profile: ChildProfile, readCount: Int? = nil, favourites: [String]? = nil) {
        let settings = profile.settings
        name = profile.name
        age = profile.age
        interests = profile.interests
        voice = settings.speech.voice
        rate = settings.speech.rate
        pitch = settings.speech.pitch
        volume = settings.speech.volume
        textSize = settings.textSize.rawValue
        reducedMotion = settings.motion.rawValue
        theme = settings.theme.rawValue
        hints = settings.hints
        stepMode = settings.stepMode
        lineFocus = settings.aids.lineFocus.rawValue
        syllables = settings.aids.syllables
        spacing = settings.aids.spacing.rawValue
        language = settings.interfaceLanguage
        brailleCode = settings.brailleCode.rawValue
        narration = settings.narration.rawValue
        recordingTempo = settings.recordingTempo
        self.readCount = readCount
        self.favourites = favourites
    }
}

extension ProfileCommand {
    struct Add: ParsableCommand {
        static let configuration = CommandConfiguration(
            abstract: helpMessages.tr("Add a child profile."),
            discussion: helpMessages.tr(
                "With --name, --age and other flags it saves without asking. Without flags on a terminal it opens the REPL's profile form, spoken (arrows move, Control S saves, Escape cancels); from a pipe it reads one answer per line in focus order (name, age, interests, voice, rate, pitch, volume, text size, reduced motion, theme, hints, step mode; an empty line keeps the default). While a PIN is set, the PIN comes first."
            ))
        @OptionGroup var global: GlobalOptions
        @OptionGroup var fields: ProfileFieldOptions

        func run() throws {
            // On a terminal without flags: the REPL's form, spoken (`ProfileCommand+Form.swift`).
            if fields.values.isEmpty, TerminalMode.isInteractive() { return try ProfileFormSession.add(global: global) }
            let store = try StoreCommandSupport.openStore(global)
            let prompter = Prompter()
            let authorization = try StoreCommandSupport.authorize(store, prompter: prompter, messages: global.messages)
            do {
                var form = ProfileForm(existingNames: try store.profiles().map(\.name))
                let messages = global.messages
                guard let profile = try ProfileFormDriver.run(&form, flags: fields, prompter: prompter, messages: messages) else {
                    print(messages.tr("Cancelled: no profile was added."))
                    return
                }
                let saved = try store.addProfile(profile, authorization: authorization)
                print(messages.tr("Added {name}, age {age}.", ["name": saved.name, "age": String(saved.age)]))
            } catch let error as StoreError {
                throw StoreCommandSupport.fail(error, global.messages)
            }
        }
    }

    struct List: ParsableCommand {
        static let configuration = CommandConfiguration(abstract: helpMessages.tr("List the child profiles."))
        @OptionGroup var global: GlobalOptions
        @Flag(help: ArgumentHelp(helpMessages.tr("Print JSON."))) var json = false

        func run() throws {
            let store = try StoreCommandSupport.openStore(global, readOnly: true)
            do {
                let profiles = try store.profiles()
                if json { return try StoreCommandSupport.printJSON(profiles.map { ProfileJSON($0) }) }
                let messages = global.messages
                for profile in profiles {
                    let values = ["name": profile.name, "age": String(profile.age), "interests": profile.interests.joined(separator: ", ")]
                    print(profile.interests.isEmpty ? messages.tr("{name}, age {age}", values) : messages.tr("{name}, age {age}, likes {interests}", values))
                }
            } catch let error as StoreError {
                throw StoreCommandSupport.fail(error, global.messages)
            }
        }
    }

    struct Show: ParsableCommand {
        static let configuration = CommandConfiguration(abstract: helpMessages.tr("Show one profile and its reading settings."))
        @OptionGroup var global: GlobalOptions
        @Argument(help: ArgumentHelp(helpMessages.tr("The profile's name (case does not matter).")), completion: ShellCompletion.profiles) var name: String
        @Flag(help: ArgumentHelp(helpMessages.tr("Print JSON."))) var json = false

        func run() throws {
            let store = try StoreCommandSupport.openStore(global, readOnly: true)
            do {
                let profile = try store.requireProfile(named: name)
                let id = profile.id ?? 0
                let reads = try store.readCounts(profileID: id).values.reduce(0, +)
                let favourites = try store.favourites(profileID: id).sorted()
                if json { return try StoreCommandSupport.printJSON(ProfileJSON(profile, readCount: reads, favourites: favourites)) }
                let texts = ProfileForm.texts(of: profile)
                let messages = global.messages
                for field in ProfileField.inputs {
                    let value = texts[field] ?? ""
                    let shown = value.isEmpty ? (field == .voice ? messages.tr("each story's language") : messages.tr("none")) : value
                    print(messages.tr("{field}: {value}", ["field": messages.tr(field.label), "value": shown]))
                }
                print(messages.tr("Finished reads: {count}", ["count": String(reads)]))
                print(messages.tr("Favourites: {stories}", ["stories": favourites.isEmpty ? messages.tr("none") : favourites.joined(separator: ", ")]))
            } catch let error as StoreError {
                throw StoreCommandSupport.fail(error, global.messages)
            }
        }
    }

    struct Edit: ParsableCommand {
        static let configuration = CommandConfiguration(
            abstract: helpMessages.tr("Edit a child profile and its reading settings."),
            discussion: helpMessages.tr("The same three ways as `profile add`: flags, the form on a terminal, or one line per field from a pipe."))
        @OptionGroup var global: GlobalOptions
        @Argument(help: ArgumentHelp(helpMessages.tr("The profile's name (case does not matter).")), completion: ShellCompletion.profiles) var profileName:
            String
        @OptionGroup var fields: ProfileFieldOptions

        func run() throws {
            let store = try StoreCommandSupport.openStore(global)
            let prompter = Prompter()
            do {
                let profile = try store.requireProfile(named: profileName)
                let authorization = try StoreCommandSupport.authorize(store, prompter: prompter, messages: global.messages)
                let others = try store.profiles().filter { $0.id != profile.id }.map(\.name)
                var form = ProfileForm(editing: profile, existingNames: others)
                let messages = global.messages
                guard let edited = try ProfileFormDriver.run(&form, flags: fields, prompter: prompter, messages: messages) else {
                    print(messages.tr("Cancelled: {name} was not changed.", ["name": profile.name]))
                    return
                }
                let saved = try store.updateProfile(edited, authorization: authorization)
                print(messages.tr("Saved {name}.", ["name": saved.name]))
            } catch let error as StoreError {
                throw StoreCommandSupport.fail(error, global.messages)
            }
        }
    }

    struct Remove: ParsableCommand {
        static let configuration = CommandConfiguration(
            abstract: helpMessages.tr("Remove a child profile with its reads, positions and favourites."),
            discussion: helpMessages.tr("Asks first (from a pipe, reads yes or no from a line) unless --yes is given."))
        @OptionGroup var global: GlobalOptions
        @Argument(help: ArgumentHelp(helpMessages.tr("The profile's name (case does not matter).")), completion: ShellCompletion.profiles) var name: String
        @Flag(help: ArgumentHelp(helpMessages.tr("Do not ask."))) var yes = false

        func run() throws {
            let store = try StoreCommandSupport.openStore(global)
            let prompter = Prompter()
            do {
                let profile = try store.requireProfile(named: name)
                let authorization = try StoreCommandSupport.authorize(store, prompter: prompter, messages: global.messages)
                let summary = try store.removalSummary(of: profile)
                let messages = global.messages
                if !yes,
                    !prompter.confirm(
                        messages.tr("Remove {what}? Nothing of {name} is kept", ["what": summary.localized(messages), "name": profile.name]),
                        messages: messages)
                {
                    print(messages.tr("Not removed: {name} is kept.", ["name": profile.name]))
                    return
                }
                let removed = try store.removeProfile(profile, authorization: authorization)
                print(messages.tr("Removed {what}.", ["what": removed.localized(messages)]))
            } catch let error as StoreError {
                throw StoreCommandSupport.fail(error, global.messages)
            }
        }
    }
}
