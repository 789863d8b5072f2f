public import Foundation

/// A story's recorded narration: its clip list (the file a story's `recording:` names), pairing
/// stretches of the story's text with clips of audio files beside it.
///
/// One clip a line, fields separated by spaces or tabs, `#` starting a comment:
///
///     # block  text   audio             begin        end
///     3        0-42   audio/book.mp3    0:00:01.200  0:00:03.450
///     4        *      family/page2.ogg
///
/// `block` is the story's block (heading, paragraph or picture) counted from 1 in reading order;
/// `text` the scalar offsets `from-to` in that block's text (`*`: all of it); `audio` a file in the
/// story's folder or below it; `begin` and `end` SMIL clock values (`1:02.5`, `12.3s`, `450ms`…),
/// both optional: a clip without them is the whole file.
public struct StoryRecording: Sendable, Hashable {
    public struct Clip: Sendable, Hashable {
        /// 0-based index in `Story.blocks`.
        public var block: Int
        /// Scalar offsets in the block's text; nil for the whole block.
        public var text: Range<Int>?
        /// Relative to the story's folder, as written.
        public var audio: String
        /// Milliseconds into the audio file.
        public var begin: Int
        public var end: Int?

        public init(block: Int, text: Range<Int>?, audio: String, begin: Int = 0, end: Int? = nil) {
            self.block = block
            self.text = text
            self.audio = audio
            self.begin = begin
            self.end = end
        }
    }

    public var clips: [Clip]

    public init(clips: [Clip]) { self.clips = clips }

    /// A clip list larger than this is refused (a 60-minute book's word-level list is about 2 MB).
    public static let maximumBytes = 16 << 20

    /// The clip list as its file says it.
    public var fileText: String {
        var text = "# storyreader clip list: block, text (scalar offsets in the block), audio file, begin, end\n"
        for clip in clips {
            let range = clip.text.map { "\($0.lowerBound)-\($0.upperBound)" } ?? "*"
            text += "\(clip.block + 1)\t\(range)\t\(clip.audio)\t\(Self.clock(clip.begin))"
            if let end = clip.end { text += "\t\(Self.clock(end))" }
            text += "\n"
        }
        return text
    }

    /// Reads a clip list; a line it cannot read is an error naming the file, line and field.
    public static func parse(_ text: String, file: String) throws(RecordingProblem) -> StoryRecording {
        var clips: [Clip] = []
        for (number, rawLine) in text.split(separator: "\n", omittingEmptySubsequences: false).enumerated() {
            let line = rawLine.split(separator: "#", maxSplits: 1, omittingEmptySubsequences: false).first ?? ""
            let fields = line.split(whereSeparator: { $0 == " " || $0 == "\t" || $0 == "\r" }).map(String.init)
            guard !fields.isEmpty else { continue }
            func fail(_ template: String, _ value: String) -> RecordingProblem {
                RecordingProblem(template, ["file": file, "line": String(number + 1), "value": String(value.prefix(40))])
            }
            guard (3...5).contains(fields.count) else {
                throw RecordingProblem(
                    N_("{file}, line {line}: a clip is a block, a text range, an audio file and an optional begin and end"),
                    ["file": file, "line": String(number + 1)])
            }
            guard let block = Int(fields[0]), block >= 1, block <= 10_000_000 else {
                throw fail(N_("{file}, line {line}: the block '{value}' cannot be read"), fields[0])
            }
            var range: Range<Int>?
            if fields[1] != "*" {
                let bounds = fields[1].split(separator: "-").compactMap { Int($0) }
                guard bounds.count == 2, bounds[0] >= 0, bounds[1] > bounds[0] else {
                    throw fail(N_("{file}, line {line}: the text range '{value}' cannot be read"), fields[1])
                }
                range = bounds[0]..<bounds[1]
            }
            var begin = 0
            var end: Int?
            if fields.count > 3 {
                guard let value = clockValue(fields[3]) else { throw fail(N_("{file}, line {line}: the begin '{value}' cannot be read"), fields[3]) }
                begin = value
            }
            if fields.count > 4 {
                guard let value = clockValue(fields[4]), value > begin else {
                    throw fail(N_("{file}, line {line}: the end '{value}' cannot be read"), fields[4])
                }
                end = value
            }
            clips.append(Clip(block: block - 1, text: range, audio: fields[2], begin: begin, end: end))
        }
        return StoryRecording(clips: clips)
    }

    /// A SMIL 3.0 clock value in milliseconds: a full clock (`1:02:03.5`), a partial clock
    /// (`02:03.5`), or a timecount (`3.5`, `3.5s`, `350ms`, `1.5min`, `2h`); nil when it is none.
    public static func clockValue(_ text: String) -> Int? {
        let value = text.trimmingCharacters(in: .whitespaces)
        guard !value.isEmpty, value.count <= 32 else { return nil }
        func number(_ part: Substring) -> Double? {
            guard !part.isEmpty, part.allSatisfy({ $0.isASCII && ($0.isNumber || $0 == ".") }), let double = Double(part) else { return nil }
            return double
        }
        let seconds: Double
        if value.contains(":") {
            let parts = value.split(separator: ":", omittingEmptySubsequences: false)
            guard (2...3).contains(parts.count), let last = number(parts[parts.count - 1]), last < 60 else { return nil }
            var total = last
            guard let minutes = number(parts[parts.count - 2]), minutes == minutes.rounded(), parts.count == 2 || minutes < 60 else { return nil }
            total += minutes * 60
            if parts.count == 3 {
                guard let hours = number(parts[0]), hours == hours.rounded() else { return nil }
                total += hours * 3600
            }
            seconds = total
        } else {
            let units: [(String, Double)] = [("ms", 0.001), ("min", 60), ("h", 3600), ("s", 1)]
            let unit = units.first { value.hasSuffix($0.0) }
            guard let amount = number(value.dropLast(unit?.0.count ?? 0)) else { return nil }
            seconds = amount * (unit?.1 ?? 1)
        }
        guard seconds.isFinite, seconds < 1_000_000 else { return nil }
        return Int((seconds * 1000).rounded())
    }

    /// `0:01:02.345`.
    public static func clock(_ ms: Int) -> String {
        String(format: "%d:%02d:%02d.%03d", ms / 3_600_000, ms / 60_000 % 60, ms / 1000 % 60, ms % 1000)
    }

    // MARK: - Loading beside a story

    /// The story's recording, resolved against its narration: nil when the story names none.
    /// A clip list that is missing, too large, unreadable, or outside the story's folder is an
    /// error naming it; an audio file outside the folder is one too (it is never opened).
    public static func load(for story: Story, narration: Narration) throws(RecordingProblem) -> NarrationRecording? {
        guard let name = story.recording else { return nil }
        let folder = URL(fileURLWithPath: story.path).deletingLastPathComponent().standardizedFileURL.resolvingSymlinksInPath()
        let url = try inside(folder, name, N_("{file}: the clip list is outside the story's folder (not used)"))
        guard let attributes = try? FileManager.default.attributesOfItem(atPath: url.path), let size = attributes[.size] as? Int else {
            throw RecordingProblem(N_("{file}: the clip list is missing"), ["file": name])
        }
        guard size <= maximumBytes else {
            throw RecordingProblem(N_("{file}: a clip list larger than {size} MB"), ["file": name, "size": String(maximumBytes >> 20)])
        }
        guard let data = try? Data(contentsOf: url) else { throw RecordingProblem(N_("{file}: the clip list is missing"), ["file": name]) }
        let recording = try parse(String(decoding: data, as: UTF8.self), file: name)
        var audioPaths: [String: String] = [:]
        for clip in recording.clips where audioPaths[clip.audio] == nil {
            audioPaths[clip.audio] = try inside(folder, clip.audio, N_("{file}: the recording is outside the story's folder (not used)")).path
        }
        return NarrationRecording(story: story, narration: narration, recording: recording, audioPaths: audioPaths, folder: folder.path)
    }

    /// `relative` in `folder` (after symbolic links), or an error naming it.
    public static func inside(_ folder: URL, _ relative: String, _ outside: String) throws(RecordingProblem) -> URL {
        let url = folder.appendingPathComponent(relative).standardizedFileURL.resolvingSymlinksInPath()
        guard !relative.hasPrefix("/"), url.path.hasPrefix(folder.path + "/") else {
            throw RecordingProblem(outside, ["file": relative])
        }
        return url
    }
}

/// A recording resolved against a narration: for each sentence, the clips that say it (and the
/// clip of each word, when the recording is by words).
public struct NarrationRecording: Sendable, Hashable {
    /// A sentence's clip: its file, its times in it, where its words start, and its further
    /// clips. The speech service's events carry the same type for the clip heard (a word's has no
    /// words nor `more`; a sentence's `more` is its clips heard after it), with `end` filled in
    /// where a clip runs to its file's end.
    public struct Sentence: Sendable, Hashable {
        /// The audio file's absolute path.
        public var audio: String
        public var begin: Int
        public var end: Int?
        /// Where each word starts (word index in the sentence, milliseconds in the file), when the
        /// recording is by words.
        public var words: [Word]
        /// The sentence's further clips, heard after this one in order, each with its own words
        /// (and no `more`): its recording goes on in another file (a DAISY section over several
        /// files) or earlier in this one.
        public var more: [Sentence]

        public init(audio: String, begin: Int, end: Int?, words: [Word] = [], more: [Sentence] = []) {
            self.audio = audio
            self.begin = begin
            self.end = end
            self.words = words
            self.more = more
        }

        /// Its clips in the order heard: this one (without `more`), then each of `more`.
        public var parts: [Sentence] {
            var first = self
            first.more = []
            return [first] + more
        }

        /// A further clip of the sentence (a word, or its next stretch): the last clip runs on to
        /// it where it goes on in the same file, else it is heard after it.
        mutating func append(audio: String, begin: Int, end: Int?, word: Int?) {
            let words = word.map { [Word(word: $0, begin: begin)] } ?? []
            let last = more.last ?? self
            guard last.audio == audio, begin >= last.begin else {
                return more.append(Sentence(audio: audio, begin: begin, end: end, words: words))
            }
            if more.isEmpty {
                self.end = end
                self.words += words
            } else {
                more[more.count - 1].end = end
                more[more.count - 1].words += words
            }
        }
    }

    public struct Word: Sendable, Hashable {
        public var word: Int
        public var begin: Int

        public init(word: Int, begin: Int) {
            self.word = word
            self.begin = begin
        }
    }

    /// By narration item; nil where eSpeak NG reads.
    public var sentences: [Sentence?]
    /// The story's folder: every clip's audio is read from inside it, or not at all
    /// (`RecordingInput`); nil: each from inside the folder it is in.
    public var folder: String?

    public init(sentences: [Sentence?], folder: String? = nil) {
        self.sentences = sentences
        self.folder = folder
    }

    /// How many sentences have a clip.
    public var recordedCount: Int { sentences.lazy.compactMap { $0 }.count }

    /// How long the recording plays at its own pace, in milliseconds: every sentence's clips (one
    /// that runs to its file's end measured from the file; one whose file cannot be read counts 0).
    public var durationMilliseconds: Int {
        var fileLengths: [String: Int] = [:]
        return sentences.lazy.compactMap { $0 }.flatMap(\.parts).reduce(0) { total, sentence in
            let end =
                sentence.end
                ?? {
                    if let known = fileLengths[sentence.audio] { return known }
                    let length = AudioClipDecoder.durationMilliseconds(path: sentence.audio, folder: folder) ?? sentence.begin
                    fileLengths[sentence.audio] = length
                    return length
                }()
            return total + max(0, end - sentence.begin)
        }
    }

    /// The indices of the narration's items that overlap `range`, found by a binary search (for
    /// items in text order, start and end): a filter over all of them for each clip made a book of 32,000
    /// word clips quadratic.
    static func items(of narration: Narration, overlapping range: Range<Int>) -> [Int] {
        let items = narration.items
        var low = 0
        var high = items.count
        while low < high {
            let middle = (low + high) / 2
            if items[middle].range.end > range.lowerBound { high = middle } else { low = middle + 1 }
        }
        var found: [Int] = []
        var index = low
        while index < items.count, items[index].range.start < range.upperBound {
            if items[index].range.end > range.lowerBound { found.append(index) }
            index += 1
        }
        return found
    }

    /// Pairs every clip with the narration's sentences: a clip within a sentence (a word or the
    /// sentence) belongs to it; a clip over several sentences (a paragraph a family recorded) is
    /// shared among them by their length in letters, together with the clips right after it that
    /// say the same text (its audio going on in other files).
    init(story: Story, narration: Narration, recording: StoryRecording, audioPaths: [String: String], folder: String) {
        self.folder = folder
        let blocks = story.blocks
        var sentences = [Sentence?](repeating: nil, count: narration.items.count)
        var fileLengths: [String: Int?] = [:]
        /// A file's length, read once (each reading may take up to its deadline).
        func fileLength(_ audio: String) -> Int? {
            if let known = fileLengths[audio] { return known }
            let length = AudioClipDecoder.durationMilliseconds(path: audio, folder: folder)
            fileLengths[audio] = .some(length)
            return length
        }
        // Items in text order (as a narration makes them) are searched, not filtered.
        let ordered = zip(narration.items, narration.items.dropFirst()).allSatisfy {
            $0.range.start <= $1.range.start && $0.range.end <= $1.range.end
        }
        let clips = recording.clips
        var next = 0
        while next < clips.count {
            let clip = clips[next]
            next += 1
            guard clip.block < blocks.count, let audio = audioPaths[clip.audio] else { continue }
            let block = blocks[clip.block]
            let start = block.range.start + (clip.text?.lowerBound ?? 0)
            let end = clip.text.map { min(block.range.start + $0.upperBound, block.range.end) } ?? block.range.end
            guard end > start else { continue }
            let covered =
                ordered
                ? Self.items(of: narration, overlapping: start..<end)
                : narration.items.indices.filter { narration.items[$0].range.start < end && narration.items[$0].range.end > start }
            guard !covered.isEmpty else { continue }
            if covered.count == 1 {
                let index = covered[0]
                let item = narration.items[index]
                let isWord = start > item.range.start || end < item.range.end
                let word = isWord ? item.words.firstIndex(where: { $0.range.end > start }) : nil
                if var sentence = sentences[index] {
                    // A further word or stretch of the sentence, perhaps in another file.
                    sentence.append(audio: audio, begin: clip.begin, end: clip.end, word: word)
                    sentences[index] = sentence
                } else {
                    sentences[index] = Sentence(audio: audio, begin: clip.begin, end: clip.end, words: word.map { [Word(word: $0, begin: clip.begin)] } ?? [])
                }
                continue
            }
            // The clip's audio, and that of the clips after it for the same text, end to end.
            var stretches: [(audio: String, begin: Int, duration: Int)] = []
            var piece: (audio: String, clip: StoryRecording.Clip)? = (audio, clip)
            while let (audio, clip) = piece {
                if let end = clip.end ?? fileLength(audio), end > clip.begin { stretches.append((audio, clip.begin, end - clip.begin)) }
                piece = nil
                if next < clips.count, clips[next].block == clip.block, clips[next].text == clip.text, let audio = audioPaths[clips[next].audio] {
                    piece = (audio, clips[next])
                    next += 1
                }
            }
            // Shared by length: each sentence runs to the next one's start (the space between goes
            // with it), the last to the audio's end, over as many files as it takes.
            let total = stretches.reduce(0) { $0 + $1.duration }
            guard total > 0 else { continue }
            let length = Double(end - start)
            let begins = covered.map { index in Int(Double(max(narration.items[index].range.start, start) - start) / length * Double(total)) }
            for (position, index) in covered.enumerated() {
                let from = begins[position]
                let to = position + 1 < begins.count ? begins[position + 1] : total
                var parts: [Sentence] = []
                var offset = 0
                for stretch in stretches {
                    let low = max(from, offset)
                    let high = min(to, offset + stretch.duration)
                    if high > low {
                        parts.append(Sentence(audio: stretch.audio, begin: stretch.begin + low - offset, end: stretch.begin + high - offset))
                    }
                    offset += stretch.duration
                }
                guard var first = parts.first else { continue }
                first.more = Array(parts.dropFirst())
                sentences[index] = first
            }
        }
        self.sentences = sentences
    }
}
