public import Foundation

/// What `import` did (or, in a dry run, would do) with one story.
public struct ImportResult: Encodable, Sendable {
    public enum Status: String, Encodable, Sendable {
        case imported
        case wouldImport = "would-import"
        case refused
    }

    public var file: String
    public var status: Status
    public var id: String?
    public var title: String?
    public var author: String?
    public var language: String?
    public var words: Int?
    /// The pictures' spoken descriptions.
    public var pictures: [String]?
    /// The book a story comes from (an EPUB or Project Gutenberg book), and its kind.
    public var book: String?
    public var kind: String?
    public var warnings: [String] = []
    /// Why it was refused.
    public var message: String?

    public init(file: String, status: Status, story: Story? = nil, book: String? = nil, kind: String? = nil, warnings: [String] = [], message: String? = nil) {
        self.file = file
        self.status = status
        self.id = story?.id
        self.title = story?.title
        self.author = story?.author
        self.language = story?.language
        self.words = story?.words.count
        self.pictures = story.map { $0.pictures.map(\.text) }
        // A book's title and warnings come from the file: made safe for the terminal.
        self.book = book.map(Sanitizer.sanitizeLine)
        self.kind = kind
        self.warnings = warnings.map(Sanitizer.sanitizeLine)
        self.message = message
    }

    /// The lines printed for people: each story a dry run would import (with its pictures), and
    /// what was imported, a book in one line.
    public static func summary(_ results: [ImportResult], dryRun: Bool, destination: String, messages: MessageCatalog = .english) -> [String] {
        var lines: [String] = []
        var booksSaid = Set<String>()
        for result in results where result.status != .refused {
            guard let title = result.title, let id = result.id else { continue }
            if dryRun {
                let values = [
                    "title": title, "id": id, "language": result.language ?? "en",
                    "words": messages.trn("{count} word", "{count} words", result.words ?? 0),
                ]
                if let book = result.book {
                    lines.append(
                        messages.tr(
                            "Would import “{title}” ({id}), {language}, {words}, {pictures}, from “{book}”",
                            values.merging([
                                "pictures": messages.trn("{count} picture", "{count} pictures", result.pictures?.count ?? 0), "book": book,
                            ]) { $1 }))
                } else {
                    lines.append(messages.tr("Would import “{title}” ({id}), {language}, {words}", values))
                }
                for picture in result.pictures ?? [] { lines.append("  " + messages.tr("picture: {description}", ["description": picture])) }
                for warning in result.warnings { lines.append("  " + messages.tr("warning: {warning}", ["warning": warning])) }
            } else if let book = result.book, let kind = result.kind {
                // One line for all the stories of a book.
                guard booksSaid.insert(result.file).inserted else { continue }
                let count = results.filter { $0.file == result.file && $0.status == .imported }.count
                lines.append(
                    messages.trn(
                        "Imported {count} story from “{book}” ({kind}) into {folder}", "Imported {count} stories from “{book}” ({kind}) into {folder}",
                        count, ["book": book, "kind": kind, "folder": destination]))
            } else {
                lines.append(messages.tr("Imported “{title}” ({id}) into {folder}", ["title": title, "id": id, "folder": destination]))
            }
        }
        if dryRun { lines.append(dryRunTotal(results, messages: messages)) }
        return lines
    }

    /// The dry run's last line: what the listed stories come to ("In all: 284 stories, 51,230
    /// words, 3 pictures, 2 warnings"), so a long list need not be counted by hand.
    public static func dryRunTotal(_ results: [ImportResult], messages: MessageCatalog = .english) -> String {
        let stories = results.filter { $0.status == .wouldImport }
        let words = stories.reduce(0) { $0 + ($1.words ?? 0) }
        let pictures = stories.reduce(0) { $0 + ($1.pictures?.count ?? 0) }
        let warnings = stories.reduce(0) { $0 + $1.warnings.count }
        return messages.tr(
            "In all: {stories}, {words}, {pictures}, {warnings}",
            [
                "stories": messages.trn("{count} story", "{count} stories", stories.count),
                "words": messages.trn("{count} word", "{count} words", words),
                "pictures": messages.trn("{count} picture", "{count} pictures", pictures),
                "warnings": messages.trn("{count} warning", "{count} warnings", warnings),
            ])
    }
}

/// Imports files into the user's stories folder: a story file is checked and copied with its
/// pictures; a book (EPUB, Project Gutenberg) is turned into stories of our own format, each
/// checked by the story parser before it is written. Nothing is written in a dry run.
public struct StoryImporter {
    public let destination: URL
    public let existing: StoryLibrary
    public let replace: Bool
    public let dryRun: Bool
    /// For EPUBs: nil guesses, true splits a collection, false keeps one story.
    public let split: Bool?
    /// Shows a progress line, rewritten in place ("" clears it); nil shows none (the command
    /// sets it only for a person at a terminal).
    public var showStatus: ((String) -> Void)?
    /// Refusals and warnings on standard error (a benchmark keeps quiet).
    public var reportsProblems = true
    /// The language of the refusals and of the summary.
    public var messages: MessageCatalog = .english
    public private(set) var results: [ImportResult] = []

    public init(destination: URL, existing: StoryLibrary, replace: Bool, dryRun: Bool, split: Bool?) {
        self.destination = destination
        self.existing = existing
        self.replace = replace
        self.dryRun = dryRun
        self.split = split
    }

    /// - Throws: `ImportFailure` when a file cannot be written (what is refused is in `results`).
    public mutating func importFile(_ file: String) throws {
        let name = (file as NSString).lastPathComponent
        let ext = (name as NSString).pathExtension.lowercased()
        var isFolder: ObjCBool = false
        let exists = FileManager.default.fileExists(atPath: file, isDirectory: &isFolder)
        if isFolder.boolValue, ext != "epub" {
            if DAISYBook.isBook(folder: file) {
                importDAISY(file)
            } else {
                refuse(
                    file,
                    messages.tr(
                        "not imported: a folder is imported only when it is a DAISY book (with ncc.html, or an .opf package); import its story files by name"))
            }
        } else if ext == "zip" {
            importDAISY(file)
        } else if ext == "epub", !exists || isFolder.boolValue {
            refuse(file, isFolder.boolValue ? messages.tr("not imported: a folder, not an EPUB file") : messages.tr("not imported: no such file"))
        } else if ext == "epub" {
            importEPUB(file)
        } else if !StoryParser.storyExtensions.contains(ext) {
            refuse(file, messages.tr("not imported: a story file ends in .md, .markdown or .txt, a book in .epub, a DAISY book is a folder or a .zip"))
        } else if !exists {
            refuse(file, messages.tr("cannot be read: there is no such file; check its name and folder (not imported)"))
        } else if ext == "txt", let data = FileManager.default.contents(atPath: file),
            case let text = GutenbergBook.decode(data), GutenbergBook.isGutenberg(text)
        {
            let book = GutenbergBook(text: text, fallbackTitle: (name as NSString).deletingPathExtension)
            importBook(book.stories(bookID: BookStory.slug(book.title)), title: book.title, kind: "Project Gutenberg", file: file, warnings: [])
        } else {
            try importStoryFile(file)
        }
    }

    private mutating func importEPUB(_ file: String) {
        let name = (file as NSString).lastPathComponent
        let messages = messages
        let showStatus = showStatus
        let split = split
        let progress: ((Int, Int) -> Void)? = showStatus.map { show in
            { done, total in
                // A big book must not look frozen; the line is cleared when done.
                show(
                    done < total
                        ? messages.tr(
                            "Reading {file}: {done} of {total} documents",
                            [
                                "file": Sanitizer.sanitizeLine(name), "done": String(done), "total": String(total),
                            ]) : "")
            }
        }
        importRecordedBook(file) { () throws(BookProblem) in
            let book = try EPUBBook(url: URL(fileURLWithPath: file), split: split, progress: progress)
            let audioFiles = book.audioFiles()
            return (
                book.stories(bookID: BookStory.slug(book.title)), book.title, "EPUB", book.problems,
                { path throws(BookProblem) in try audioFiles.data(path) }
            )
        }
    }

    /// A DAISY talking book (a folder or a zip): one story that plays its recording.
    private mutating func importDAISY(_ file: String) {
        importRecordedBook(file) { () throws(BookProblem) in
            let book = try DAISYBook(url: URL(fileURLWithPath: file))
            return (book.stories(bookID: BookStory.slug(book.title)), book.title, book.kind, book.problems, book.audio)
        }
    }

    /// A book read by `read` (its stories, title, kind, what was not used, and its audio files),
    /// imported with its recording; one that cannot be read is refused with why.
    private mutating func importRecordedBook(
        _ file: String,
        _ read: () throws(BookProblem) -> (
            stories: [BookStory], title: String, kind: String, problems: [BookProblem], audio: (String) throws(BookProblem) -> Data
        )
    ) {
        do throws(BookProblem) {
            let book = try read()
            let warnings = book.problems.map { $0.localized(messages) }
            for warning in warnings { report(warning) }
            importBook(book.stories, title: book.title, kind: book.kind, file: file, warnings: warnings, audio: book.audio)
        } catch {
            showStatus?("")
            refuse(file, messages.tr("{problem} (not imported)", ["problem": error.localized(messages)]), named: false)
        }
    }

    /// Whether `entry` is the file an import of `id` writes (a story imported before).
    private func isOurs(_ entry: StoryEntry, id: String) -> Bool {
        URL(fileURLWithPath: entry.path).standardizedFileURL == destination.appendingPathComponent(id + ".md").standardizedFileURL
    }

    /// `id-2`, `id-3`, …: the first that no other file has (an earlier import of the same book
    /// under it is ours, and is replaced with `--replace` as ever).
    private func freeID(_ id: String) -> String {
        var number = 2
        while let other = existing.entries.first(where: { $0.id == "\(id)-\(number)" }), !isOurs(other, id: other.id) { number += 1 }
        return "\(id)-\(number)"
    }

    /// Stories made from a book, each checked by the story parser, then written beside and renamed.
    private mutating func importBook(
        _ stories: [BookStory], title: String, kind: String, file: String, warnings: [String],
        audio: ((String) throws(BookProblem) -> Data)? = nil
    ) {
        var createdFolder = false
        for (number, var story) in stories.enumerated() {
            // A book made from a story the library has in another file (a read-along book exported
            // from a bundled story) is imported beside it under a free id, and the message says so:
            // refused, it could not be imported at all (`--replace` replaces only our own files).
            var renamed: String?
            if let same = existing.entries.first(where: { $0.id == story.id }), !isOurs(same, id: story.id) {
                let free = freeID(story.id)
                renamed = messages.tr(
                    "“{title}”: the story '{other}' has the id '{id}' already, so it is imported as '{new}'",
                    ["title": story.title, "other": same.title, "id": story.id, "new": free])
                story.id = free
            }
            let target = destination.appendingPathComponent(story.id + ".md")
            // A recorded narration is kept beside the story: its audio files in `ID.audio/`, its
            // clip list in `ID.clips` (docs/story-format.md).
            var audioNames: [String: String] = [:]
            if audio != nil, !story.clips.isEmpty {
                story.recordingFile = story.id + ".clips"
                for path in story.clips.map(\.audio) where audioNames[path] == nil {
                    audioNames[path] = "\(story.id).audio/\(audioNames.count + 1)-" + Self.safeFileName((path as NSString).lastPathComponent)
                }
            }
            let markdown = story.markdown
            let parsed: ParsedStory
            do {
                parsed = try StoryParser.parse(text: markdown, path: target.path)
            } catch {
                refuse(
                    file,
                    messages.tr(
                        "{file}: {problem}", ["file": story.id, "problem": messages.tr("{problem} (not imported)", ["problem": error.localized(messages)])]))
                continue
            }
            // The book's warnings go with its first story (a dry run lists them there).
            var bookWarnings = number == 0 ? warnings : []
            if let renamed {
                report(renamed)
                bookWarnings.append(renamed)
            }
            if let same = existing.entries.first(where: { $0.id == parsed.story.id }),
                URL(fileURLWithPath: same.path).standardizedFileURL != target.standardizedFileURL || !replace
            {
                let values = ["title": parsed.story.title, "other": same.title, "id": same.id]
                var message =
                    dryRun
                    ? messages.tr("“{title}” would not be imported: the story '{other}' has the same id '{id}'", values)
                    : messages.tr("“{title}” not imported: the story '{other}' has the same id '{id}'", values)
                if !replace { message += ": " + messages.tr("pass --replace to replace it") }
                refuse(file, message, story: parsed.story)
                continue
            }
            if dryRun {
                results.append(ImportResult(file: file, status: .wouldImport, story: parsed.story, book: title, kind: kind, warnings: bookWarnings))
                continue
            }
            do {
                if !createdFolder {
                    try FileManager.default.createDirectory(at: destination, withIntermediateDirectories: true)
                    createdFolder = true
                }
                if let audio, let clipFile = story.recordingFile {
                    try keepRecording(story, parsed: parsed.story, audioNames: audioNames, clipFile: clipFile, audio: audio)
                }
                try Self.writeReplacing(Data(markdown.utf8), to: target)
                results.append(ImportResult(file: file, status: .imported, story: parsed.story, book: title, kind: kind, warnings: bookWarnings))
            } catch {
                refuse(file, Self.writeFailure(target.path, error, messages), story: parsed.story)
            }
        }
    }

    /// Writes a book story's audio files and clip list beside it; an audio file the book lacks is
    /// a warning (its sentences are read by eSpeak NG, with one notice when read).
    private func keepRecording(
        _ story: BookStory, parsed: Story, audioNames: [String: String], clipFile: String,
        audio: (String) throws(BookProblem) -> Data
    ) throws {
        let (recording, dropped) = story.recording(for: parsed, audioNames: audioNames)
        if dropped > 0 {
            report(
                messages.trn(
                    "{file}: {count} clip of the recording points at text that was not found: eSpeak NG reads it",
                    "{file}: {count} clips of the recording point at text that was not found: eSpeak NG reads it",
                    dropped, ["file": story.id, "count": String(dropped)]))
        }
        for (path, name) in audioNames.sorted(by: { $0.value < $1.value }) {
            let data: Data
            do throws(BookProblem) { data = try audio(path) } catch {
                report(messages.tr("{file}: {problem}", ["file": story.id, "problem": error.localized(messages)]))
                continue
            }
            let target = destination.appendingPathComponent(name)
            try FileManager.default.createDirectory(at: target.deletingLastPathComponent(), withIntermediateDirectories: true)
            try Self.writeReplacing(data, to: target)
        }
        try Self.writeReplacing(Data(recording.fileText.utf8), to: destination.appendingPathComponent(clipFile))
    }

    /// A story file's recording goes with it: its clip list and the audio files it names, each
    /// checked to be in the story's folder (one that is not, or is missing, is a warning: eSpeak NG
    /// reads what it would have said).
    private func copyRecording(of story: Story, from file: String) throws {
        guard let clips = story.recording else { return }
        let folder = URL(fileURLWithPath: file).deletingLastPathComponent().standardizedFileURL.resolvingSymlinksInPath()
        let recording: StoryRecording
        do throws(RecordingProblem) {
            let list = try StoryRecording.inside(folder, clips, N_("{file}: the clip list is outside the story's folder (not used)"))
            guard let data = FileManager.default.contents(atPath: list.path), data.count <= StoryRecording.maximumBytes else {
                throw RecordingProblem(N_("{file}: the clip list is missing"), ["file": clips])
            }
            recording = try StoryRecording.parse(String(decoding: data, as: UTF8.self), file: clips)
            try Self.copyInside(list, folder: folder, relative: clips, to: destination)
        } catch {
            report(messages.tr("{problem}: eSpeak NG reads the story", ["problem": error.localized(messages)]))
            return
        }
        for audio in Set(recording.clips.map(\.audio)).sorted() {
            do throws(RecordingProblem) {
                let source = try StoryRecording.inside(folder, audio, N_("{file}: the recording is outside the story's folder (not used)"))
                guard FileManager.default.fileExists(atPath: source.path) else {
                    throw RecordingProblem(N_("{file}: the recording is missing"), ["file": audio])
                }
                try Self.copyInside(source, folder: folder, relative: audio, to: destination)
            } catch {
                report(messages.tr("{file}: {problem}", ["file": story.id, "problem": error.localized(messages)]))
            }
        }
    }

    /// Copies `source` (`relative` in `folder`) to the same place under `destination`.
    private static func copyInside(_ source: URL, folder: URL, relative: String, to destination: URL) throws(RecordingProblem) {
        let target = destination.appendingPathComponent(String(source.path.dropFirst(folder.path.count + 1)))
        do {
            try FileManager.default.createDirectory(at: target.deletingLastPathComponent(), withIntermediateDirectories: true)
            try copyReplacing(source, to: target)
        } catch {
            throw RecordingProblem(N_("{file}: could not be copied ({reason})"), ["file": relative, "reason": ImportWriteError.reason(error)])
        }
    }

    /// A file name from a book: letters, digits, `.`, `-` and `_` only, never hidden.
    static func safeFileName(_ name: String) -> String {
        let kept = String(
            name.unicodeScalars.map { scalar -> Character in
                scalar.isASCII && (scalar.properties.isAlphabetic || ("0"..."9").contains(scalar) || "._-".unicodeScalars.contains(scalar))
                    ? Character(scalar) : "_"
            }.prefix(80))
        return kept.hasPrefix(".") ? "_" + kept.dropFirst() : kept
    }

    private mutating func importStoryFile(_ file: String) throws {
        let name = (file as NSString).lastPathComponent
        let parsed: ParsedStory
        do {
            parsed = try StoryParser.parse(contentsOf: URL(fileURLWithPath: file), path: file)
        } catch {
            let problem = error.localized(messages)
            refuse(
                file,
                dryRun
                    ? messages.tr("{problem} (would not be imported)", ["problem": problem])
                    : messages.tr("{problem} (not imported)", ["problem": problem]), named: false)
            return
        }
        let warnings = parsed.warnings.map { $0.localized(messages) }
        for warning in warnings { report(warning) }
        let target = destination.appendingPathComponent(name)
        let sameID = existing.entries.first {
            $0.id == parsed.story.id && URL(fileURLWithPath: $0.path).standardizedFileURL != target.standardizedFileURL
        }
        if let sameID {
            refuse(
                file,
                messages.tr(
                    "not imported: the story '{title}' ({path}) has the same id '{id}': rename the file",
                    [
                        "title": sameID.title, "path": Sanitizer.sanitizeLine(sameID.path), "id": parsed.story.id,
                    ]), story: parsed.story)
            return
        }
        if FileManager.default.fileExists(atPath: target.path), !replace {
            refuse(
                file,
                messages.tr("not imported: {path} already exists", ["path": Sanitizer.sanitizeLine(target.path)]) + ": "
                    + messages.tr("pass --replace to replace it"), story: parsed.story)
            return
        }
        if dryRun {
            results.append(ImportResult(file: file, status: .wouldImport, story: parsed.story, warnings: warnings))
            return
        }
        do {
            try FileManager.default.createDirectory(at: destination, withIntermediateDirectories: true)
            try Self.copyReplacing(URL(fileURLWithPath: file), to: target)
            for case .picture(let picture?) in parsed.story.pictures.map(\.kind) {
                let source = URL(fileURLWithPath: file).deletingLastPathComponent().appendingPathComponent(picture)
                let pictureTarget = destination.appendingPathComponent(picture)
                try FileManager.default.createDirectory(at: pictureTarget.deletingLastPathComponent(), withIntermediateDirectories: true)
                try Self.copyReplacing(source, to: pictureTarget)
            }
            try copyRecording(of: parsed.story, from: file)
        } catch {
            if let error = error as? ImportWriteError, error.isDiskFull { throw ImportFailure(message: Self.writeFailure(error.path, error, messages)) }
            throw ImportFailure(
                message: messages.tr(
                    "could not copy {file} into {folder}: {reason}. Check that the folder is writable, or choose another with --data-dir",
                    [
                        "file": Sanitizer.sanitizeLine(file), "folder": destination.path, "reason": ImportWriteError.reason(error),
                    ]))
        }
        results.append(ImportResult(file: file, status: .imported, story: parsed.story, warnings: warnings))
    }

    private mutating func refuse(_ file: String, _ message: String, story: Story? = nil, named: Bool = true) {
        report(named ? messages.tr("{file}: {problem}", ["file": Sanitizer.sanitizeLine(file), "problem": message]) : message)
        results.append(ImportResult(file: file, status: .refused, story: story, message: message))
    }

    private func report(_ line: String) {
        guard reportsProblems else { return }
        FileHandle.standardError.write(Data("storyreader: \(Sanitizer.visibleLines(line))\n".utf8))
    }

    /// What to say when writing `path` failed: a full disk says so (nothing half-written was left
    /// behind); other reasons, that the folder must be writable.
    public static func writeFailure(_ path: String, _ error: any Error, _ messages: MessageCatalog) -> String {
        let values = ["path": Sanitizer.sanitizeLine(path), "reason": ImportWriteError.reason(error)]
        if (error as? ImportWriteError)?.isDiskFull == true {
            return messages.tr(
                "could not write {path}: {reason}; nothing half-written was left behind: free some space and import again, or choose another folder with --data-dir",
                values)
        }
        return messages.tr("could not write {path}: {reason}. Check that the folder is writable, or choose another with --data-dir", values)
    }

    /// Replaced whole (AtomicFile): a failed write never leaves half a story, nor its temporary
    /// file (`.NAME.import` was left behind on a full disk before).
    private static func writeReplacing(_ data: Data, to target: URL) throws {
        do { try AtomicFile.write(data, to: target) } catch { throw ImportWriteError(path: target.path, error) }
    }

    private static func copyReplacing(_ source: URL, to target: URL) throws {
        do { try AtomicFile.copy(source, to: target) } catch { throw ImportWriteError(path: target.path, error) }
    }
}

/// A story could not be written into the stories folder: the message says which and why (in the
/// importer's language); nothing half-written is left.
public struct ImportFailure: Error, Sendable {
    public var message: String
}

/// Writing an imported file failed: the file it was for, and the system's reason.
struct ImportWriteError: Error {
    var path: String
    var code: Int32?
    var underlying: any Error

    init(path: String, _ error: any Error) {
        self.path = path
        underlying = error
        code = Self.posixCode(error)
    }

    var isDiskFull: Bool { code == ENOSPC || code == EDQUOT }

    /// The POSIX error under a Foundation one (or the one `AtomicFile` named), when it says one.
    static func posixCode(_ error: any Error) -> Int32? {
        if let written = error as? FileWriteError {
            return [ENOSPC, EDQUOT].first { String(cString: strerror($0)) == written.reason }
        }
        var error = error as NSError
        while true {
            if error.domain == NSPOSIXErrorDomain { return Int32(error.code) }
            guard let next = error.userInfo[NSUnderlyingErrorKey] as? NSError else { break }
            error = next
        }
        if error.domain == NSCocoaErrorDomain, error.code == CocoaError.fileWriteOutOfSpace.rawValue { return ENOSPC }
        return nil
    }

    /// The system's words for `error` ("No space left on device"), else Foundation's.
    static func reason(_ error: any Error) -> String {
        if let error = error as? ImportWriteError { return error.code.map { String(cString: strerror($0)) } ?? error.underlying.localizedDescription }
        return posixCode(error).map { String(cString: strerror($0)) } ?? error.localizedDescription
    }
}
