import Foundation
import StoryKit
import StoryKitTestSupport
import Testing

/// Print page numbers in the real program (issue 46): the fixture DAISY 2.02 book (three print
/// pages) imported, then `page 3` in a script and `g 3 Enter` under tmux, judged by what is said.
@Suite(.serialized)
struct PrintPagesCommandTests {
    static let pip = TestPaths.fixtures.appendingPathComponent("daisy/pip-202")

    /// The book imported into `data`: its stories folder.
    func importPip(_ data: String) throws -> String {
        let imported = try StoryReaderProcess.run(["import", Self.pip.path], dataDirectory: data)
        #expect(imported.status == 0 && imported.standardError.isEmpty, "\(imported.standardError)")
        return data + "/stories"
    }

    /// `page 3` goes to the first sentence of print page 3 and `where` says "print page 3"; a page
    /// the book does not have is said with the pages it has; `show` lists the pages, and the
    /// numbers are never read.
    @Test func pageThreeInAScriptGoesToItsFirstSentence() throws {
        let folder = try TemporaryFolder("print-pages")
        defer { folder.remove() }
        let data = folder.path + "/data"
        let stories = try importPip(data)
        let script = "read pip the snail\npage 3\nwait 1\nwhere\npage 40\npage xii\nquit\n"
        let repl = try StoryReaderProcess.run(["--no-audio", "--stories", stories], input: script, dataDirectory: data)
        #expect(repl.status == 0, "\(repl.standardError)")
        let lines = repl.standardOutput.split(separator: "\n").map(String.init)
        let went = try #require(lines.firstIndex { $0.contains("Print page 3.") }, "\(repl.standardOutput)")
        #expect(lines[went...].dropFirst().first { !$0.isEmpty }?.contains("The sun came out.") == true, "\(lines[went...])")
        #expect(lines.contains { $0.contains(" of 8, print page 3, paragraph 3 of 3") }, "where: \(repl.standardOutput)")
        #expect(lines.contains { $0.contains("There is no print page 40; pages go from 1 to 3.") }, "\(repl.standardOutput)")
        #expect(lines.contains { $0.contains("There is no print page xii; pages go from 1 to 3.") }, "\(repl.standardOutput)")

        let show = try StoryReaderProcess.run(["show", "pip the snail", "--stories", stories], dataDirectory: data)
        #expect(show.standardOutput.contains("Print pages: 3 (1 to 3)"), "\(show.standardOutput)")
        let text = try StoryReaderProcess.run(["show", "pip the snail", "--text", "--stories", stories], dataDirectory: data)
        #expect(!text.standardOutput.split(separator: "\n").contains { ["1", "2", "3"].contains($0.trimmingCharacters(in: .whitespaces)) })
    }

    /// `g`, `3`, Enter in the reader under tmux: the prompt and the digit are said, then "Print
    /// page 3." and reading goes on with that page's first sentence, highlighted on the screen.
    @Test func gThreeEnterGoesThereUnderTmux() throws {
        guard TmuxSession.isInstalled(for: "the print page prompt's tmux test") else { return }
        let fixture = try ReplFixture(withProfiles: true)
        // Tall enough for the story, the reading screen's buttons and its progress line at once.
        var tmux = TmuxSession()
        tmux.rows = 32
        defer {
            tmux.kill()
            fixture.remove()
        }
        let stories = try importPip(fixture.data)
        let logging = "STORYREADER_SPEECH_LOG=\(fixture.folder.path)/speech.log; export STORYREADER_SPEECH_LOG; "
        try tmux.start(script: logging + fixture.paneScript(extra: "--stories '\(stories)' --profile Maya"))
        try tmux.waitFor("Hello Maya.")
        try tmux.command("read pip the snail")
        try tmux.waitFor("print page 1")
        try tmux.send("g")
        try tmux.waitFor("Go to print page:")
        try tmux.send("3")
        try tmux.send("Enter")
        try tmux.waitFor("print page 3")
        // Page 3 starts at "The sun came out.", the story's sentence 7 (its headings counted).
        fixture.waitForSpeechLog("page 3's first sentence") { $0.contains { $0.hasPrefix("story sentence 7: recording 2-chapter2.mp3 ") } }
        let log = fixture.speechLog()
        let said = log.compactMap { line -> String? in
            guard line.hasPrefix("start "), let colon = line.firstIndex(of: ":") else { return nil }
            return String(line[line.index(colon, offsetBy: 2)...])
        }
        #expect(said.contains("Go to print page: Type the page's number and press Enter; Escape cancels."), "\(log)")
        #expect(said.contains("3"), "the digit is said as typed: \(log)")
        let page = try #require(said.firstIndex(of: "Print page 3."), "\(log)")
        #expect(!said[page...].contains { $0.hasPrefix("There is no") }, "\(log)")
        let styled = try tmux.tmux(["capture-pane", "-p", "-e", "-t", tmux.name])
        #expect(styled.contains("print page 3"), "\(styled)")
        // The word heard is underlined: a word of page 3's paragraph (the text between SGR 4 and
        // the next reset; buttons aside).
        var underlined: [String] = []
        var on = false
        for chunk in styled.components(separatedBy: "\u{1B}[").dropFirst() {
            guard let end = chunk.firstIndex(where: \.isLetter) else { continue }
            let parameters = chunk[..<end].split(separator: ";")
            if parameters.contains("0") || parameters.contains("24") || parameters.isEmpty { on = false }
            if parameters.contains("4") { on = true }
            let text = chunk[chunk.index(after: end)...].trimmingCharacters(in: .whitespacesAndNewlines)
            // The focused button (`[Pause]`) is underlined too.
            if on, !text.isEmpty, !text.hasPrefix("[") { underlined.append(text) }
        }
        let pageThree: Set<String> = ["The", "sun", "came", "out", "out.", "Pip", "went", "home", "to", "sleep", "sleep."]
        #expect(!underlined.isEmpty && underlined.allSatisfy { pageThree.contains($0) }, "\(underlined)\n\(styled)")
        try tmux.send("C-q")
        try tmux.waitFor("DONE")
    }
}
