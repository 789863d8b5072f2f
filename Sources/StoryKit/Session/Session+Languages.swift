import Foundation

/// Every name in its own voice: what the session says is cut into runs by language, the
/// interface's words in the interface's language and each story's title, author and picture
/// descriptions in the story's.
extension Session {
    /// The texts in a language of their own that the session may say now: every story's title
    /// and author, and the picture descriptions of the story open or being read.
    func languageNames() -> [SpeechRun] {
        var names: [SpeechRun] = []
        var open: Set<String> = []
        for route in state.stack { if case .story(let id) = route { open.insert(id) } }
        if let reader = state.reader { open.insert(reader.story.id) }
        for entry in catalog.entries {
            let language = Self.speechLanguage(entry.language)
            names.append(SpeechRun(text: entry.title, language: language))
            // The product's own name is the interface's word, said in its voice ("Magical Stories."
            // at start), even where it is the bundled stories' author.
            if let author = entry.author, author != Self.productName { names.append(SpeechRun(text: author, language: language)) }
            if open.contains(entry.id) {
                names += entry.pictureDescriptions.map { SpeechRun(text: $0, language: language) }
            }
        }
        if let reader = state.reader, let word = reader.word {
            // A story's word quoted in a message ("En pausa en «the»") is the story's, said by its
            // voice: quoted as the interface quotes it, and as the source does.
            let language = Self.speechLanguage(reader.story.language)
            for quoted in Set([tr("‘{word}’", ["word": word]), "‘" + word + "’"]) { names.append(SpeechRun(text: quoted, language: language)) }
        }
        if let reader = state.reader, catalog.entry(id: reader.story.id) == nil {
            names.append(SpeechRun(text: reader.story.title, language: Self.speechLanguage(reader.story.language)))
        }
        // The chapter where-am-I names is the story's words ("Chapter one: A hundred and one steps").
        if let reader = state.reader, let chapter = reader.map.chapter(ofSentence: reader.sentence) {
            names.append(SpeechRun(text: chapter, language: Self.speechLanguage(reader.story.language)))
        }
        // Words one must type as they are, whatever the interface's language: the commands (the
        // command line knows them in English only) and the suggested interests (the bundled
        // stories' tags). Translated, they would be words that do nothing; said in the Spanish
        // voice, English words no Spanish child recognises; so they are said in the English voice.
        if state.route == .help || state.options.readsWholeHelp {
            names.append(SpeechRun(text: Screens.commandList(state), language: "en"))
        }
        if state.route == .profileForm { names.append(SpeechRun(text: ProfileField.exampleInterests, language: "en")) }
        return names
    }

    /// The program's name, as the bundled stories name their author.
    static let productName = "Magical Stories"

    /// A story's language as a voice's language: `en-us` → en (the interface's runs use codes).
    static func speechLanguage(_ language: String) -> String {
        let code = language.prefix { $0.isLetter }.lowercased()
        return code.isEmpty ? "en" : code
    }

    /// `effects` with each interface utterance cut into runs by language.
    func withLanguageRuns(_ effects: [Effect]) -> [Effect] {
        guard effects.contains(where: { if case .speak = $0 { true } else { false } }) else { return effects }
        let names = languageNames()
        let language = state.language
        return effects.map { effect in
            guard case .speak(var utterance) = effect, utterance.kind == .interface, utterance.runs.isEmpty else { return effect }
            utterance.runs = SpeechRun.runs(of: utterance.text, language: language, names: names)
            utterance.language = language
            return .speak(utterance)
        }
    }
}
