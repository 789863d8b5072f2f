import Foundation

/// How urgent an utterance is, after speech-dispatcher's priorities.
public enum AnnouncementPriority: Int, Sendable, Hashable, Codable, Comparable, CaseIterable {
    /// Errors and warnings: interrupts anything (a story pauses and resumes after it), never dropped.
    case important
    /// Announcements (a profile saved, a story finished): wait for what the same key (or news)
    /// is saying, and cut what earlier keys are still saying; left waiting when a newer key is
    /// answered, they are dropped as stale. While a story is read, they wait for its sentence's end.
    case message
    /// Interface chatter and answers to keys (where focus went, "where am I", a new rate): a newer
    /// one replaces an older unspoken one and interrupts an older one being spoken; one from a newer
    /// key also cuts an older key's message. While a story is read it pauses the story at the word,
    /// and the story goes on from that word once it is said.
    case text
    /// Spoken only when nothing else is waiting or being spoken; otherwise dropped.
    case notification
    /// Like a notification, but the newest one waits instead of being dropped.
    case progress

    public static func < (lhs: Self, rhs: Self) -> Bool { lhs.rawValue < rhs.rawValue }
}

/// One thing to say.
public struct Utterance: Sendable, Hashable {
    public enum Kind: Sendable, Hashable {
        /// Said by the interface (focus, announcements): its caption is the text.
        case interface
        /// The story being read aloud (one narration, which pauses when interrupted).
        case story
    }

    public var text: String
    public var priority: AnnouncementPriority
    public var kind: Kind
    /// A word said letter by letter (eSpeak NG's SSML `say-as characters`); `text` is its caption.
    public var spelling: String?
    /// `text` cut where its language changes ("Story: " in English, then a Spanish title), each
    /// part said in its language's voice; empty: all of it in the interface's voice.
    public var runs: [SpeechRun] = []
    /// The interface's language when this was said (its voice's language when the profile names
    /// no voice); nil: English, as before languages.
    public var language: String?
    /// Which input (a key, a typed command) this answers, counted by the shell: an answer to a newer
    /// input cuts what an older one is still saying. 0: none counted.
    public var input: Int = 0

    public init(_ text: String, priority: AnnouncementPriority = .text, kind: Kind = .interface, spelling: String? = nil) {
        self.text = text
        self.priority = priority
        self.kind = kind
        self.spelling = spelling
    }

    public static func story(_ title: String) -> Utterance { Utterance(title, priority: .message, kind: .story) }
}

/// A stretch of an utterance in one language.
public struct SpeechRun: Sendable, Hashable {
    public var text: String
    /// A language code (`en`, `es`, …), as an eSpeak NG voice names it.
    public var language: String

    public init(text: String, language: String) {
        self.text = text
        self.language = language
    }

    /// `text` cut into runs: each of `names` found in it (whole words; the longest first) in the
    /// name's language, the rest in `language`; neighbours of one language joined. Joined again,
    /// the runs are `text`.
    public static func runs(of text: String, language: String, names: [SpeechRun]) -> [SpeechRun] {
        let scalars = Array(text.unicodeScalars)
        var owner = [String?](repeating: nil, count: scalars.count)
        func isWordScalar(_ index: Int) -> Bool {
            scalars.indices.contains(index) && (CharacterSet.alphanumerics.contains(scalars[index]))
        }
        for name in names.sorted(by: { $0.text.unicodeScalars.count > $1.text.unicodeScalars.count }) {
            let needle = Array(name.text.unicodeScalars)
            guard !needle.isEmpty, needle.count <= scalars.count else { continue }
            var start = 0
            while start + needle.count <= scalars.count {
                if scalars[start] == needle[0], Array(scalars[start..<start + needle.count]) == needle,
                    !isWordScalar(start - 1) || !isWordScalar(start), !isWordScalar(start + needle.count) || !isWordScalar(start + needle.count - 1),
                    owner[start..<start + needle.count].allSatisfy({ $0 == nil })
                {
                    for index in start..<start + needle.count { owner[index] = name.language }
                    start += needle.count
                } else {
                    start += 1
                }
            }
        }
        var runs: [SpeechRun] = []
        for (index, scalar) in scalars.enumerated() {
            let runLanguage = owner[index] ?? language
            if let last = runs.last, last.language == runLanguage {
                runs[runs.count - 1].text.unicodeScalars.append(scalar)
            } else {
                runs.append(SpeechRun(text: String(scalar), language: runLanguage))
            }
        }
        // A run with no letter or digit (", " or ".") says nothing of its own: it joins its neighbour.
        var merged: [SpeechRun] = []
        for run in runs {
            if !merged.isEmpty, !run.text.unicodeScalars.contains(where: CharacterSet.alphanumerics.contains) {
                merged[merged.count - 1].text += run.text
            } else if let last = merged.last, last.language == run.language {
                merged[merged.count - 1].text += run.text
            } else if let last = merged.last, !last.text.unicodeScalars.contains(where: CharacterSet.alphanumerics.contains) {
                merged[merged.count - 1] = SpeechRun(text: last.text + run.text, language: run.language)
            } else {
                merged.append(run)
            }
        }
        return merged
    }
}

/// What the audio side must do after the queue decided.
public enum SpeechCommand: Sendable, Hashable {
    /// Start saying this now (nothing else is speaking).
    case start(Utterance)
    /// Stop the utterance being spoken; a story is only paused (it is back in the queue).
    case interrupt(Utterance)
    /// Never spoken (replaced or dropped); its caption was shown all the same.
    case drop(Utterance)
}

/// The queue of things to say: one speaking at a time, the rest waiting, with priorities.
///
/// A pure value: `submit` and `finished` return what the audio side must do.
public struct AnnouncementQueue: Sendable, Hashable {
    public private(set) var speaking: Utterance?
    public private(set) var pending: [Utterance] = []

    public init() {}

    /// Adds `utterance` and returns what to do now.
    public mutating func submit(_ utterance: Utterance) -> [SpeechCommand] {
        var commands: [SpeechCommand] = []
        switch (utterance.kind, utterance.priority) {
        case (.story, _):
            // A story replaces interface chatter (speaking or waiting) and what an earlier key is
            // still saying or was to say (Space after "Paused at…" goes on at once), but waits for
            // errors and for announcements of the same moment.
            commands += removePending { $0.kind == .interface && ($0.priority >= .text || Self.isStale($0, for: utterance)) }
            if let current = speaking, current.kind == .interface,
                current.priority >= .text || (current.priority == .message && current.input < utterance.input)
            {
                commands.append(.interrupt(current))
                speaking = nil
            }
            if let current = speaking, current.kind == .story {
                commands.append(.drop(current))
                speaking = nil
            }
            commands += removePending { $0.kind == .story }
            insert(utterance)
        case (.interface, .important):
            if let current = speaking, current.priority != .important {
                commands.append(.interrupt(current))
                speaking = nil
                if current.kind == .story { insert(current) }
            }
            insert(utterance)
        case (.interface, .message):
            // An announcement cuts what earlier keys are still saying or left waiting.
            commands += removePending {
                $0.kind == .interface
                    && ($0.priority >= .notification || ($0.priority >= .text && $0.input < utterance.input) || Self.isStale($0, for: utterance))
            }
            if let current = speaking, current.kind == .interface,
                current.priority >= .notification || (current.priority != .important && current.input < utterance.input)
            {
                commands.append(.interrupt(current))
                speaking = nil
            }
            // While a story is read, news waits for the end of its sentence (`yieldStory`).
            insert(utterance)
        case (.interface, .text):
            // A key's answer: what earlier keys were still to say is stale now.
            commands += removePending { $0.kind == .interface && ($0.priority >= .text || Self.isStale($0, for: utterance)) }
            if let current = speaking {
                if current.kind == .story {
                    // An answer to a key: the story pauses at the word and goes on after it.
                    commands.append(.interrupt(current))
                    speaking = nil
                    insert(current)
                } else if current.priority >= .text || (current.priority == .message && current.input < utterance.input) {
                    commands.append(.interrupt(current))
                    speaking = nil
                }
            }
            insert(utterance)
        case (.interface, .notification):
            if speaking != nil || !pending.isEmpty { return [.drop(utterance)] }
            insert(utterance)
        case (.interface, .progress):
            commands += removePending { $0.priority == .progress }
            if let current = speaking, current.priority == .progress {
                commands.append(.interrupt(current))
                speaking = nil
            }
            insert(utterance)
        }
        return commands + startNext()
    }

    /// An announcement an earlier input left waiting, once a newer input is answered: dropped
    /// rather than said late (errors are never stale).
    private static func isStale(_ waiting: Utterance, for newer: Utterance) -> Bool {
        waiting.priority == .message && waiting.input < newer.input
    }

    /// The story reached the end of a sentence while news waits: the news is said, then the story
    /// goes on (from its next sentence).
    public mutating func yieldStory() -> [SpeechCommand] {
        guard let current = speaking, current.kind == .story,
            pending.contains(where: { $0.kind == .interface && $0.priority <= .message })
        else { return [] }
        speaking = nil
        insert(current)
        return [.interrupt(current)] + startNext()
    }

    /// The utterance being spoken has ended; returns what to start next.
    public mutating func finished() -> [SpeechCommand] {
        speaking = nil
        return startNext()
    }

    /// The story stopped or paused by the person: it leaves the queue; waiting chatter may start.
    public mutating func removeStory() -> [SpeechCommand] {
        var commands = removePending { $0.kind == .story }
        if let current = speaking, current.kind == .story {
            commands.append(.interrupt(current))
            speaking = nil
        }
        return commands + startNext()
    }

    /// Everything stops (leaving the program).
    public mutating func clear() -> [SpeechCommand] {
        var commands = pending.map { SpeechCommand.drop($0) }
        if let speaking { commands.insert(.interrupt(speaking), at: 0) }
        speaking = nil
        pending = []
        return commands
    }

    /// Whether the story is being spoken or waits to go on.
    public var hasStory: Bool { speaking?.kind == .story || pending.contains { $0.kind == .story } }

    private mutating func insert(_ utterance: Utterance) {
        // Keep order by rank; same rank: first come first.
        let rank = Self.rank(utterance)
        let index = pending.firstIndex { Self.rank($0) > rank } ?? pending.endIndex
        pending.insert(utterance, at: index)
    }

    /// Errors, then announcements, then answers to keys, then the story, then the rest: a story
    /// waiting to go on lets every answer be said first.
    private static func rank(_ utterance: Utterance) -> Int {
        if utterance.kind == .story { return 3 }
        switch utterance.priority {
        case .important: return 0
        case .message: return 1
        case .text: return 2
        case .notification: return 4
        case .progress: return 5
        }
    }

    private mutating func removePending(where predicate: (Utterance) -> Bool) -> [SpeechCommand] {
        let removed = pending.filter(predicate)
        pending.removeAll(where: predicate)
        return removed.map { .drop($0) }
    }

    private mutating func startNext() -> [SpeechCommand] {
        guard speaking == nil, !pending.isEmpty else { return [] }
        let next = pending.removeFirst()
        speaking = next
        return [.start(next)]
    }
}

extension SpeechCommand {
    /// The speech log's line (`$STORYREADER_SPEECH_LOG`, read by scripts and tests): `start|interrupt|drop KIND: text`.
    public var logLine: String {
        func name(_ utterance: Utterance) -> String {
            (utterance.kind == .story ? "story" : "\(utterance.priority)") + ": " + utterance.text
        }
        switch self {
        case .start(let utterance): return "start " + name(utterance)
        case .interrupt(let utterance): return "interrupt " + name(utterance)
        case .drop(let utterance): return "drop " + name(utterance)
        }
    }

    /// The speech log's lines: `logLine`, then for an utterance started in several languages its
    /// runs, each with the language whose voice says it (`runs en[Story: ] es[El dragón…]`).
    public var logLines: [String] {
        guard case .start(let utterance) = self, !utterance.runs.isEmpty else { return [logLine] }
        return [logLine, "runs " + utterance.runs.map { "\($0.language)[\($0.text)]" }.joined(separator: " ")]
    }
}
