/// Makes untrusted text (story files, titles, names) safe to draw on a terminal and to speak.
///
/// A story can carry bytes that a terminal obeys instead of drawing: escape sequences that clear
/// the screen, rewrite earlier lines, set the window title, write the clipboard or ask the
/// terminal to type a reply; carriage returns and backspaces that overwrite what came before;
/// bidi overrides that reorder what the reader sees (kubectl CVE-2021-25743, git CVE-2024-52005,
/// wall CVE-2024-28085, scp CVE-2019-6109). `Sanitizer` removes all of them in one pass over the
/// Unicode scalars (see `shared/design/TERMINAL.md`, "Untrusted text").
///
/// Removed:
/// - escape sequences, whole: CSI (`ESC [` or 8-bit U+009B, then parameter bytes 0x30–0x3F,
///   intermediate bytes 0x20–0x2F and a final byte 0x40–0x7E); OSC, DCS, SOS, PM and APC
///   (`ESC ]`, `ESC P`, `ESC X`, `ESC ^`, `ESC _`) up to ST (`ESC \` or U+009C), BEL, CAN or SUB,
///   and to the end of the text when unterminated; `ESC` + intermediate bytes + a final byte
///   (`ESC # 3`, `ESC ( 0`); two-byte escapes (`ESC c`, `ESC 7`, `ESC M`). A scalar that cannot
///   continue a sequence ends it and is then treated as ordinary text;
/// - every other C0 control, DEL and every C1 control U+0080–U+009F (NEL included). The 8-bit
///   introducers of OSC, DCS, SOS, PM and APC are dropped alone rather than swallowing text up to
///   a terminator: with the introducer gone nothing after it can be read as a sequence, and text
///   decoded from Windows-1252 as Latin-1 has such scalars where it meant `˜`, `ž` or `Ÿ`;
/// - bidi embeddings, overrides and isolates U+202A–U+202E and U+2066–U+2069;
/// - tag characters U+E0000–U+E007F.
///
/// Changed: CR LF, a lone CR, U+2028 and U+2029 become LF; TAB becomes four spaces (a fixed
/// number rather than tab stops, because the sanitizer cannot know the columns the text will be
/// drawn at).
///
/// Kept: everything else, including LRM and RLM, combining marks, ZWJ, variation selectors,
/// emoji, CJK and U+FEFF.
///
/// The result holds no control but LF and nothing that starts a sequence, so sanitizing it again
/// changes nothing: `sanitize(sanitize(x)) == sanitize(x)`.
public enum Sanitizer {
    /// Makes untrusted text safe to draw on a terminal and to speak.
    ///
    /// - Parameter text: text from outside the program: a story file, a title, a name.
    /// - Returns: the text without terminal controls, with LF as its only line break.
    public static func sanitize(_ text: String) -> String {
        let scalars = text.unicodeScalars
        let end = scalars.endIndex
        var output = ""
        var changed = false
        var state = State.text
        var index = scalars.startIndex
        // Most text has nothing to remove: untouched scalars are copied in runs, not one by one.
        var runStart = index

        while index < end {
            let value = scalars[index].value
            switch state {
            case .text:
                if passesThrough(value) {
                    scalars.formIndex(after: &index)
                    continue
                }
                if !changed {
                    changed = true
                    output.reserveCapacity(text.utf8.count)
                }
                output.append(contentsOf: Substring(scalars[runStart..<index]))
                scalars.formIndex(after: &index)
                switch value {
                case 0x0D:  // CR: a lone CR and CR LF both become one LF.
                    output.append("\n")
                    if index < end, scalars[index] == "\n" { scalars.formIndex(after: &index) }
                case 0x2028, 0x2029:
                    output.append("\n")
                case 0x09:
                    output.append("    ")
                case 0x1B:
                    state = .escape
                case 0x9B:
                    state = .controlSequence
                default:
                    break  // every other control, bidi control and tag character is dropped
                }
                runStart = index
                continue

            case .escape:
                switch value {
                case 0x5B:  // [
                    state = .controlSequence
                case 0x5D, 0x50, 0x58, 0x5E, 0x5F:  // ] P X ^ _
                    state = .controlString
                case 0x20...0x2F:
                    state = .escapeIntermediate
                case 0x30...0x7E:
                    state = .text
                default:
                    state = .text
                    runStart = index
                    continue  // not part of the sequence: read it again as text
                }

            case .escapeIntermediate:
                switch value {
                case 0x20...0x2F:
                    break
                case 0x30...0x7E:
                    state = .text
                default:
                    state = .text
                    runStart = index
                    continue
                }

            case .controlSequence:
                switch value {
                case 0x20...0x3F:
                    break
                case 0x40...0x7E:
                    state = .text
                default:
                    state = .text
                    runStart = index
                    continue
                }

            case .controlString:
                switch value {
                case 0x07, 0x18, 0x1A, 0x9C:  // BEL, CAN, SUB, ST
                    state = .text
                case 0x1B:
                    state = .controlStringEscape
                default:
                    break
                }

            case .controlStringEscape:
                switch value {
                case 0x5C, 0x07, 0x18, 0x1A, 0x9C:  // \ (so ESC \ is ST), BEL, CAN, SUB, ST
                    state = .text
                case 0x1B:
                    break
                default:
                    // Only a terminator ends a control string; anything else is still inside it.
                    state = .controlString
                }
            }
            scalars.formIndex(after: &index)
            runStart = index
        }

        guard changed else { return text }
        output.append(contentsOf: Substring(scalars[runStart..<end]))
        return output
    }

    /// Makes untrusted text safe for a single-line field (titles, names).
    ///
    /// Sanitizes like ``sanitize(_:)``, then every run of white space (line breaks, tabs, no-break
    /// and ideographic spaces: Unicode White_Space) becomes one U+0020, and white space at either
    /// end is trimmed, so a name typed with plain spaces matches.
    public static func sanitizeLine(_ text: String) -> String {
        var line = String.UnicodeScalarView()
        var pendingSpace = false
        for scalar in sanitize(text).unicodeScalars {
            if scalar.properties.isWhitespace {
                pendingSpace = !line.isEmpty
                continue
            }
            if pendingSpace {
                line.append(" ")
                pendingSpace = false
            }
            line.append(scalar)
        }
        return String(line)
    }

    /// A short, safe quote of what someone typed, for a message that repeats it ("Pitch cannot be
    /// …"): sanitized like ``sanitizeLine(_:)`` and cut to `limit` characters with "…", so that
    /// 10,000 typed characters never come back as a 10,000-character caption or utterance.
    public static func quote(_ text: String, limit: Int = 40) -> String {
        let line = sanitizeLine(text)
        guard line.count > limit else { return line }
        return String(line.prefix(max(1, limit - 1))) + "…"
    }

    /// Makes outside text that a person must still be able to find — a path, a file name — safe to
    /// print, by showing each control visibly instead of dropping it: ESC as `\e`, other C0, DEL
    /// and C1 controls as `\xNN`, line breaks as `\n`/`\r`, bidi controls and tag characters as
    /// `\u{…}`. Unlike ``sanitize(_:)`` nothing is removed, so `d/w\e]0;pwned\x07x.md` still names
    /// the file, and no byte of a sequence reaches the terminal.
    public static func visible(_ text: String) -> String {
        visibleLines(text, keepLineBreaks: false)
    }

    /// ``visible(_:)`` for a message of several lines: LF stays a line break, every other control is
    /// shown visibly. The last guard on what is printed to standard output and standard error.
    public static func visibleLines(_ text: String, keepLineBreaks: Bool = true) -> String {
        guard text.unicodeScalars.contains(where: { !passesThrough($0.value) || (!keepLineBreaks && $0.value == 0x0A) }) else { return text }
        var output = ""
        for scalar in text.unicodeScalars {
            let value = scalar.value
            if passesThrough(value) && (keepLineBreaks || value != 0x0A) {
                output.unicodeScalars.append(scalar)
                continue
            }
            switch value {
            case 0x1B: output += "\\e"
            case 0x0A: output += "\\n"
            case 0x0D: output += "\\r"
            case 0x09: output += "\\t"
            case ..<0x100: output += "\\x" + String(value, radix: 16, uppercase: true).leftPadded(to: 2)
            default: output += "\\u{" + String(value, radix: 16, uppercase: true) + "}"
            }
        }
        return output
    }

    /// Where the scanner is: in text, or inside a sequence whose scalars are all dropped.
    private enum State {
        /// Ordinary text.
        case text
        /// After ESC.
        case escape
        /// After ESC and one or more intermediate bytes (`ESC #`, `ESC (`).
        case escapeIntermediate
        /// Inside a CSI sequence, before its final byte.
        case controlSequence
        /// Inside OSC, DCS, SOS, PM or APC, before its terminator.
        case controlString
        /// After an ESC inside a control string: `\` makes the pair ST.
        case controlStringEscape
    }

    /// Whether a scalar in text is copied as it is: everything but C0 controls other than LF, DEL,
    /// C1 controls, U+2028–U+202E, U+2066–U+2069 and tag characters.
    @inline(__always)
    private static func passesThrough(_ value: UInt32) -> Bool {
        if (value >= 0x20 && value < 0x7F) || value == 0x0A { return true }
        if value < 0xA0 { return false }
        if value < 0x2028 { return true }
        if value <= 0x202E { return false }
        if value >= 0x2066 && value <= 0x2069 { return false }
        if value >= 0xE0000 && value <= 0xE007F { return false }
        return true
    }
}

extension String {
    fileprivate func leftPadded(to width: Int) -> String {
        count >= width ? self : String(repeating: "0", count: width - count) + self
    }
}
