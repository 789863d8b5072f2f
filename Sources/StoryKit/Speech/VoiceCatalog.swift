/// The voices eSpeak NG has installed: languages (`en`, `fr`, …) and variants (`f3`, `klatt`, …).
public struct VoiceCatalog: Sendable, Hashable, Codable {
    public struct Voice: Sendable, Hashable, Codable {
        public enum Gender: String, Sendable, Hashable, Codable { case male, female, unspecified }
        /// Display name (`English (Great Britain)`).
        public var name: String
        /// File identifier (`gmw/en`, `!v/f3`).
        public var identifier: String
        /// Language names the voice serves (`en-gb`, `en`).
        public var languages: [String]
        public var gender: Gender

        public init(name: String, identifier: String, languages: [String], gender: Gender) {
            self.name = name
            self.identifier = identifier
            self.languages = languages
            self.gender = gender
        }

        /// What to give `--voice`: the file name (`en` for `gmw/en`, `en-us` for `gmw/en-US`); for
        /// a variant, what goes after `+` (`f3` for `!v/f3`).
        public var selector: String {
            let name = identifier.split(separator: "/").last.map(String.init) ?? identifier
            return name.isEmpty ? (languages.first ?? identifier) : name.lowercased()
        }
    }

    public var languages: [Voice]
    public var variants: [Voice]

    public init(languages: [Voice], variants: [Voice]) {
        self.languages = languages
        self.variants = variants
    }

    /// True when some installed voice serves exactly `language` (`en`, `en-us`, `fr`).
    public func hasLanguage(_ language: String) -> Bool {
        let wanted = language.lowercased()
        return languages.contains { $0.languages.contains { $0.lowercased() == wanted } }
    }

    /// True when `name` (without `+`) is an installed variant.
    public func hasVariant(_ name: String) -> Bool {
        variants.contains { $0.selector.lowercased() == name.lowercased() }
    }

    /// How a requested voice was resolved.
    public struct Resolution: Sendable, Hashable {
        /// The eSpeak voice name to use.
        public var voice: String
        /// Set when the request could not be honoured as asked, for a notice on stderr.
        public var notice: String?

        public init(voice: String, notice: String? = nil) {
            self.voice = voice
            self.notice = notice
        }
    }

    /// The voice for `requested` (`en`, `en-us`, `fr`, `en+f3`): a language without a voice falls
    /// back to `fallback` with a notice; an unknown variant is dropped with a notice (eSpeak would
    /// accept it silently).
    public func resolve(_ requested: String, fallback: String = "en", messages: MessageCatalog = .english) -> Resolution {
        let parts = requested.split(separator: "+", maxSplits: 1).map(String.init)
        let language = parts.first ?? ""
        let variant = parts.count > 1 ? parts[1] : nil
        var notices: [String] = []
        var chosenLanguage = language
        if !hasLanguage(language) {
            // `en-GB`-style names: try the base language before the fallback.
            let base = String(language.split(separator: "-").first ?? "")
            if !base.isEmpty, base != language, hasLanguage(base) {
                chosenLanguage = base
                notices.append(messages.tr("no voice for language '{language}': reading with '{voice}'", ["language": language, "voice": base]))
            } else {
                chosenLanguage = fallback
                notices.append(
                    messages.tr("no voice for language '{language}': reading with the default voice '{voice}'", ["language": language, "voice": fallback]))
            }
        }
        var voice = chosenLanguage
        if let variant {
            if hasVariant(variant) {
                voice += "+" + variant
            } else {
                notices.append(messages.tr("no voice variant '{variant}': reading without it", ["variant": variant]))
            }
        }
        return Resolution(voice: voice, notice: notices.isEmpty ? nil : notices.joined(separator: "; "))
    }
}

extension EspeakEngine {
    /// The voice to read with for `wanted` (a story's language or a chosen voice): the voice itself
    /// when eSpeak has it, else a fallback with a notice for the person, in the language of
    /// `messages` (see `VoiceCatalog.resolve`).
    public func resolveVoice(_ wanted: String, messages: MessageCatalog = .english) throws -> VoiceCatalog.Resolution {
        // The common case first; listing every voice reads a few hundred files.
        if !wanted.contains("+"), try hasVoice(wanted) {
            return VoiceCatalog.Resolution(voice: wanted, notice: nil)
        }
        return try voices().resolve(wanted, messages: messages)
    }
}
