public import Foundation

/// Parsed stories kept between runs, so a library of thousands of files opens quickly.
///
/// One file (`story-cache.v1` in the data folder); an entry is used only while its file keeps the
/// same size and modification time. A damaged or foreign cache is ignored and rewritten; a folder
/// that cannot be written simply means no cache.
public struct StoryCache: Sendable {
    public let url: URL

    public init(url: URL) { self.url = url }

    struct Record: Sendable, Hashable {
        var entry: StoryEntry
        var warnings: [StoryProblem]
        var size: Int
        var modified: Int
    }

    // Separators that the sanitizer removes from every text, so they never occur inside a field.
    private static let field: Unicode.Scalar = "\u{1F}"
    private static let list: Unicode.Scalar = "\u{1E}"
    private static let record: Unicode.Scalar = "\u{1D}"
    private static let problemField: Unicode.Scalar = "\u{1C}"

    /// A warning's template and values, kept beside its English message.
    private struct CachedTemplate: Codable {
        var template: String
        var values: [String: String]
    }

    /// JSON escapes every control character, so the record's separators never occur inside it.
    private static func encodedTemplate(_ problem: StoryProblem) -> String {
        guard problem.template != problem.message || !problem.values.isEmpty,
            let data = try? JSONEncoder().encode(CachedTemplate(template: problem.template, values: problem.values))
        else { return "" }
        return String(decoding: data, as: UTF8.self)
    }
    // Raised whenever the parser's rules or the entry's fields change (2: negative ages, emoji
    // words, the sentence limit; 3: page starts and picture descriptions; 4: book and part; 5: an
    // age range's problem keeps its template, to be translated; 6: the recording), so that files parsed under the
    // old rules are parsed again.
    private static let magic = "storyreader story cache 6\n"

    /// The records, by path; empty when the file is missing, damaged or foreign. Read as bytes:
    /// the separators are ASCII, so splitting the UTF-8 at them is splitting the text, and it
    /// costs a tenth of splitting a String of 10,000 records into Characters.
    func read() -> [String: Record] {
        guard let data = try? Data(contentsOf: url) else { return [:] }
        return data.withUnsafeBytes { raw in Self.records(in: raw.bindMemory(to: UInt8.self)) }
    }

    static func records(in bytes: UnsafeBufferPointer<UInt8>) -> [String: Record] {
        let magicBytes = Array(magic.utf8)
        guard bytes.count > magicBytes.count, bytes.starts(with: magicBytes) else { return [:] }
        let body = UnsafeBufferPointer(rebasing: bytes[magicBytes.count...])
        // Checked once, whole, so that each field is then made without a check of its own.
        guard String(validating: body, as: UTF8.self) != nil else { return [:] }
        var found: [Range<Int>] = []
        var start = 0
        for index in 0...body.count where index == body.count || body[index] == UInt8(Self.record.value) {
            if index > start { found.append(start..<index) }
            start = index + 1
        }
        let lines = found
        // Decoded on every core, a run of records each (most of a warm start is here).
        let decoded = parallelMap(count: lines.count, chunk: 256) { decodeRecord(UnsafeBufferPointer(rebasing: body[lines[$0]])) }
        var records: [String: Record] = [:]
        records.reserveCapacity(decoded.count)
        for record in decoded {
            guard let record else { return [:] }
            records[record.entry.path] = record
        }
        return records
    }

    /// One record, or nil when anything in it is damaged (the whole cache is then ignored).
    private static func decodeRecord(_ line: UnsafeBufferPointer<UInt8>) -> Record? {
        var fields: [String] = []
        fields.reserveCapacity(21)
        // A plain scan of the bytes: `split` on a slice of a buffer pointer is not specialized
        // here, and looked its element type up at run time for every byte.
        let separator = UInt8(Self.field.value)
        var start = 0
        for index in 0...line.count where index == line.count || line[index] == separator {
            // The whole file was found valid UTF-8, and no field ends inside a character (the separators are ASCII).
            fields.append(String(decoding: UnsafeBufferPointer(rebasing: line[start..<index]), as: UTF8.self))
            start = index + 1
        }
        guard fields.count == 21, let sentences = Int(fields[17]), let size = Int(fields[1]), let modified = Int(fields[2]),
            let words = Int(fields[10]), let pages = Int(fields[11]), let paragraphs = Int(fields[12]), let pictures = Int(fields[13])
        else { return nil }
        var ages: AgeRange?
        if !fields[6].isEmpty {
            let bounds = fields[6].split(separator: "-").compactMap { Int($0) }
            guard bounds.count == 2, bounds[0] <= bounds[1] else { return nil }
            ages = AgeRange(lower: bounds[0], upper: bounds[1])
        }
        var entry = StoryEntry.empty
        entry.path = fields[0]
        entry.id = fields[3]
        entry.title = fields[4]
        entry.author = fields[5].isEmpty ? nil : fields[5]
        entry.ages = ages
        entry.tags = fields[7].isEmpty ? [] : items(of: fields[7])
        entry.language = fields[8]
        entry.summary = fields[9].isEmpty ? nil : fields[9]
        entry.words = words
        entry.pages = pages
        entry.paragraphs = paragraphs
        entry.pictures = pictures
        let starts = items(of: fields[15]).map { Int($0) }
        guard !starts.contains(nil) else { return nil }
        entry.pageStarts = starts.compactMap { $0 }
        entry.sentences = sentences
        entry.book = fields[18].isEmpty ? nil : fields[18]
        entry.part = Int(fields[19])
        entry.recording = fields[20].isEmpty ? nil : fields[20]
        entry.pictureDescriptions = fields[16].isEmpty ? [] : items(of: fields[16], keepingEmpty: true)
        var warnings: [StoryProblem] = []
        for problem in items(of: fields[14]) {
            let parts = items(of: problem, at: Self.problemField, keepingEmpty: true)
            guard parts.count == 4, let kind = StoryProblem.Kind(rawValue: parts[0]) else { return nil }
            // Its template and values (third field, JSON) let the warning be shown in any language;
            // a record without them keeps its English message.
            let translatable = parts[2].isEmpty ? nil : try? JSONDecoder().decode(CachedTemplate.self, from: Data(parts[2].utf8))
            warnings.append(
                StoryProblem(
                    .warning, kind, path: entry.path, line: Int(parts[1]), translatable?.template ?? parts[3],
                    translatable?.values ?? [:]))
        }
        return Record(entry: entry, warnings: warnings, size: size, modified: modified)
    }

    /// The items of a list field, split at the ASCII separator's byte (the same as splitting the
    /// text: no character of the sanitized text holds that byte, and a control character always
    /// ends a grapheme).
    private static func items(of text: String, at separator: Unicode.Scalar = list, keepingEmpty: Bool = false) -> [String] {
        guard !text.isEmpty else { return keepingEmpty ? [""] : [] }
        return text.utf8.split(separator: UInt8(separator.value), omittingEmptySubsequences: !keepingEmpty).map { String(Substring($0)) }
    }

    func write(_ records: [String: Record]) {
        var text = Self.magic
        let forbidden: (String) -> Bool = { $0.unicodeScalars.contains { $0.value < 0x20 } }
        for (path, record) in records.sorted(by: { $0.key < $1.key }) where !forbidden(path) {
            let entry = record.entry
            let problems = record.warnings.map {
                [$0.kind.rawValue, $0.line.map(String.init) ?? "", Self.encodedTemplate($0), $0.message].joined(separator: String(Self.problemField))
            }.joined(separator: String(Self.list))
            let fields: [String] = [
                path, String(record.size), String(record.modified), entry.id, entry.title, entry.author ?? "",
                entry.ages.map { "\($0.lower)-\($0.upper)" } ?? "", entry.tags.joined(separator: String(Self.list)),
                entry.language, entry.summary ?? "", String(entry.words), String(entry.pages), String(entry.paragraphs),
                String(entry.pictures), problems,
                entry.pageStarts.map(String.init).joined(separator: String(Self.list)),
                entry.pictureDescriptions.joined(separator: String(Self.list)), String(entry.sentences),
                entry.book ?? "", entry.part.map(String.init) ?? "", entry.recording ?? "",
            ]
            text += fields.joined(separator: String(Self.field))
            text.unicodeScalars.append(Self.record)
        }
        let folder = url.deletingLastPathComponent()
        try? FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
        // Replaced whole, so a reader never sees half a cache; a cache that cannot be written is
        // only rebuilt next time.
        try? AtomicFile.write(Data(text.utf8), to: url)
    }
}

extension StoryEntry {
    static let empty = StoryEntry(story: Story(id: "", title: "", path: "", text: "", pages: []))
}
