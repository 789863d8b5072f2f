public import Foundation
public import Testing

/// The one golden-file check of the test suite: preview screens, command output, caption
/// transcripts and block-letter glyphs are all compared with files in the repository by this.
///
/// After a deliberate change, rewrite the files with the one record switch
///
///     UPDATE_SNAPSHOTS=1 swift test --filter SomeTests
///
/// and read `git diff` before committing: a snapshot is only as good as the look it got. A missing
/// file fails (it is never written silently), and a difference names its first differing line.
public enum Snapshot {
    /// The record switch: with `UPDATE_SNAPSHOTS=1` in the environment, files are written, not compared.
    public static let recording = ProcessInfo.processInfo.environment["UPDATE_SNAPSHOTS"] == "1"

    /// Compares `text` with the file `name` in `folder` (or writes it when recording).
    public static func assertMatches(
        _ text: String, named name: String, in folder: URL,
        sourceLocation: SourceLocation = #_sourceLocation
    ) {
        let file = folder.appendingPathComponent(name)
        if recording {
            do {
                try FileManager.default.createDirectory(at: file.deletingLastPathComponent(), withIntermediateDirectories: true)
                try Data(text.utf8).write(to: file)
            } catch {
                Issue.record("could not write \(file.path): \(error)", sourceLocation: sourceLocation)
            }
            return
        }
        guard let expected = try? String(contentsOf: file, encoding: .utf8) else {
            Issue.record(
                "no snapshot \(name) in \(folder.lastPathComponent)/: run UPDATE_SNAPSHOTS=1 swift test --filter … to make it",
                sourceLocation: sourceLocation)
            return
        }
        guard text != expected else { return }
        let actualLines = text.components(separatedBy: "\n")
        let expectedLines = expected.components(separatedBy: "\n")
        let first =
            zip(actualLines, expectedLines).enumerated().first { $0.element.0 != $0.element.1 }?.offset
            ?? min(actualLines.count, expectedLines.count)
        let got = first < actualLines.count ? actualLines[first] : "(end: \(actualLines.count) lines)"
        let wanted = first < expectedLines.count ? expectedLines[first] : "(end: \(expectedLines.count) lines)"
        Issue.record(
            """
            \(name) differs from its snapshot at line \(first + 1) (UPDATE_SNAPSHOTS=1 to accept a deliberate change):
              expected: \(wanted)
              actual:   \(got)
            """, sourceLocation: sourceLocation)
    }
}
