import Foundation
import StoryKit
import StoryKitTestSupport
import Testing

/// Outside text that an attacker or a careless user controls — file names, typed values, header
/// fields — run through the built binary as a user would (issue: "Bad input: seven defects").
@Suite struct BadInputTests {
    /// Whether `text` holds anything a terminal would act on: C0 controls but LF (and TAB, the
    /// separator of `list`'s plain output), DEL, C1.
    static func rawControls(in text: String) -> [String] {
        text.unicodeScalars.filter { scalar in
            let value = scalar.value
            return (value < 0x20 && value != 0x0A && value != 0x09) || (0x7F...0x9F).contains(value)
        }.map { String(format: "U+%04X", $0.value) }
    }

    @Test(arguments: [
        ("osc-title", "w\u{1B}]0;pwned\u{07}x.md", "w\\e]0;pwned\\x07x.md"),
        ("osc-52", "c\u{1B}]52;c;cHduZWQ=\u{07}.md", "c\\e]52;c;cHduZWQ=\\x07.md"),
        ("c1-csi", "k\u{9B}31mred.md", "k\\x9B31mred.md"),
        ("newline", "two\nlines.md", "two\\nlines.md"),
    ])
    func aFileNameWithEscapesIsShownVisiblyAndNeverRaw(_ label: String, _ name: String, _ shown: String) throws {
        let folder = try TemporaryFolder("bad-name-\(label)")
        defer { folder.remove() }
        // An unknown key makes a warning that names the file.
        try folder.write(name, "---\ntitle: W\ncolour: red\n---\n\nA dog ran.\n")
        let result = try StoryReaderProcess.run(["list", "--stories", folder.path])
        #expect(result.status == 0)
        #expect(Self.rawControls(in: result.standardOutput).isEmpty, "raw controls on stdout: \(Self.rawControls(in: result.standardOutput))")
        #expect(Self.rawControls(in: result.standardError).isEmpty, "raw controls on stderr: \(Self.rawControls(in: result.standardError))")
        // The person can still find the file: its name is shown, escaped.
        #expect(result.standardError.contains(folder.path + "/" + shown + ", line 3: warning: unknown key 'colour'"), "\(result.standardError)")
        // The story itself is loaded (its id cleaned).
        #expect(result.standardOutput.split(separator: "\n").count == 1, "\(result.standardOutput)")
    }

    @Test func anErrorAboutANamedFileNeverPrintsItsEscapes() throws {
        let result = try StoryReaderProcess.run(["show", "nothing", "--stories", "/nonexistent/\u{1B}]0;pwned\u{07}"])
        #expect(result.status != 0)
        #expect(Self.rawControls(in: result.standardError).isEmpty, "raw controls on stderr: \(Self.rawControls(in: result.standardError))")
        #expect(result.standardError.contains("\\e]0;pwned\\x07"), "\(result.standardError)")
    }

    @Test func aNameThatIsNotUTF8GetsItsTrueReason() throws {
        let folder = try TemporaryFolder("bad-utf8")
        defer { folder.remove() }
        try folder.write("good.txt", "Title: Good Name\n\nHello.\n")
        // Linux names are bytes: make one with 0xFF through the C API (Foundation cannot).
        var bytes = Array((folder.path + "/bad").utf8) + [0xFF] + Array("name.txt".utf8) + [0]
        let descriptor = bytes.withUnsafeMutableBufferPointer { buffer in
            buffer.baseAddress!.withMemoryRebound(to: CChar.self, capacity: buffer.count) { open($0, O_CREAT | O_WRONLY, 0o644) }
        }
        try #require(descriptor >= 0)
        let text = Array("Title: Bad Name\n\nHello.\n".utf8)
        _ = text.withUnsafeBytes { write(descriptor, $0.baseAddress, $0.count) }
        close(descriptor)
        let result = try StoryReaderProcess.run(["list", "--stories", folder.path])
        #expect(result.status == 0)
        // Not "cannot be read (No such file or directory)": the real reason, and the other story loads.
        #expect(!result.standardError.contains("No such file"), "\(result.standardError)")
        #expect(result.standardError.contains("/bad\\xFFname.txt: its file name is not valid UTF-8"), "\(result.standardError)")
        #expect(result.standardOutput.hasPrefix("good\tGood Name"), "\(result.standardOutput)")
    }

    @Test func aNegativeAgeIsRefusedWithFileAndLine() throws {
        let folder = try TemporaryFolder("negative-age")
        defer { folder.remove() }
        try folder.write("neg.md", "---\ntitle: Neg\nages: -1\n---\n\nA dog ran.\n")
        try folder.write("ok.md", "---\ntitle: Fine\nages: 1\n---\n\nA dog ran.\n")
        let result = try StoryReaderProcess.run(["list", "--stories", folder.path, "--age", "1"])
        // Like `ages: 7-4`: the file is not loaded and the run goes on with the others.
        #expect(result.status == 0)
        #expect(result.standardError == "storyreader: \(folder.path)/neg.md, line 3: ages '-1' is below zero: ages go from 0 to 18, like 4-7\n")
        #expect(result.standardOutput.split(separator: "\n").map { $0.split(separator: "\t").first.map(String.init) ?? "" } == ["ok"])
    }

    @Test(arguments: ["set pitch ", "set voice ", "profile ", "read "])
    func typedInputIsEchoedAsAShortQuote(_ command: String) throws {
        let long = String(repeating: "x", count: 10_000)
        let result = try StoryReaderProcess.run(["--no-audio"], input: command + long + "\nquit\n")
        #expect(result.status == 0, "\(result.standardError)")
        let lines = result.standardOutput.split(separator: "\n")
        #expect(lines.count >= 2)
        for line in lines { #expect(line.count < 200, "a caption of \(line.count) characters: \(line.prefix(120))…") }
        #expect(result.standardOutput.contains("xxxxxxxx…"), "the typed value is quoted, cut: \(result.standardOutput.prefix(400))")
    }

    @Test func aStoryOfEmojiOnlyIsReadAloudByTheirNames() throws {
        let folder = try TemporaryFolder("emoji-only")
        defer { folder.remove() }
        try folder.write("emoji.md", "---\ntitle: Emoji\n---\n\n🐰 🐶 ⭐ 🌙\n")
        // Listed and shown as today…
        let list = try StoryReaderProcess.run(["list", "--stories", folder.path])
        #expect(list.standardOutput.hasPrefix("emoji\tEmoji"), "\(list.standardOutput)")
        // …and read: each emoji is a word with its own event, said by name (time passes between them).
        let read = try StoryReaderProcess.run(["read", "emoji", "--stories", folder.path, "--no-audio", "--events", "json"])
        #expect(read.status == 0, "\(read.standardError)")
        let words = read.standardOutput.split(separator: "\n").filter { $0.contains("\"type\":\"word\"") }
        #expect(words.count == 4, "\(read.standardOutput)")
        let times = words.compactMap { line -> Int? in
            guard let range = line.range(of: "\"ms\":") else { return nil }
            return Int(line[range.upperBound...].prefix { $0.isNumber })
        }
        #expect(times.count == 4 && zip(times, times.dropFirst()).allSatisfy { $0 < $1 }, "each emoji takes time to say: \(times)")
    }

    @Test func aStoryOfFiftyThousandTinySentencesIsRefusedAtOnceWithTheSameMessageEverywhere() throws {
        let folder = try TemporaryFolder("tiny-sentences")
        defer { folder.remove() }
        let words = ["Dog.", "Cat ran.", "Sun.", "Hop!", "Yes."]
        let body = (0..<50_000).map { words[$0 % words.count] }.joined(separator: "\n\n")
        try folder.write("tiny.md", "---\ntitle: Tiny\n---\n\n" + body + "\n")
        try folder.write("ok.md", "---\ntitle: Fine\n---\n\nA dog ran.\n")
        let message = "\(folder.path)/tiny.md: has 50,000 sentences; a story can have at most 20,000: split it into several stories"
        let list = try StoryReaderProcess.run(["list", "--stories", folder.path])
        #expect(list.standardError.contains(message), "\(list.standardError)")
        #expect(!list.standardOutput.contains("tiny"))
        // Refused, not read for minutes (the export of such a file took minutes before).
        let read = try StoryReaderProcess.run(["read", "tiny", "--stories", folder.path, "--wav", folder.path + "/tiny.wav"])
        #expect(read.status == 1)
        #expect(read.standardError.contains(message), "\(read.standardError)")
        #expect(!FileManager.default.fileExists(atPath: folder.path + "/tiny.wav"))
    }

    @Test func underTmuxAFileNameNeitherRetitlesThePaneNorWritesThePasteBuffer() throws {
        guard TmuxSession.isInstalled(for: "the file-name test under tmux") else { return }
        let folder = try TemporaryFolder("bad-name-tmux")
        defer { folder.remove() }
        // OSC 0 (window title) and OSC 52 (clipboard) in file names, each with a warning naming it.
        try folder.write("t\u{1B}]0;pwned\u{07}x.md", "---\ntitle: T\ncolour: red\n---\n\nA dog ran.\n")
        try folder.write("c\u{1B}]52;c;cHduZWQ=\u{07}.md", "---\ntitle: C\ncolour: red\n---\n\nA cat sat.\n")
        let tmux = TmuxSession()
        defer { tmux.kill() }
        try tmux.tmux(["set-option", "-g", "set-clipboard", "on"], capture: false)
        try tmux.start(script: "\(TestPaths.binary.path) list --stories '\(folder.path)'; echo done-listing; sleep 30")
        let screen = try tmux.waitFor("done-listing")
        #expect(screen.contains("\\e]0;pwned\\x07x.md"), "the name is shown escaped: \(screen)")
        let title = try tmux.tmux(["display-message", "-p", "-t", tmux.name, "#{pane_title}"])
        #expect(!title.contains("pwned"), "the pane was retitled: \(title)")
        let buffers = (try? tmux.tmux(["list-buffers"])) ?? ""
        #expect(!buffers.contains("pwned"), "the paste buffer was written: \(buffers)")
    }
}
