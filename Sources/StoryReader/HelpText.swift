/// `--help`'s long descriptions, written as their paragraphs: each paragraph is one message of
/// `helpMessages` (one line in the sources, so that the catalog test finds it), and commands or
/// examples stay as typed between them.

/// Paragraphs, separated by a blank line.
package func helpParagraphs(_ paragraphs: String...) -> String { paragraphs.joined(separator: "\n\n") }

/// Lines of one paragraph (a heading and its examples), one under the other.
package func helpLines(_ lines: String...) -> String { lines.joined(separator: "\n") }
