/// Measuring rendered lines: escapes removed, double-size and scaled text counted at their size.
public enum TerminalText {
    /// The text of a rendered line without its escape sequences (SGR, `ESC #n`, OSC 66 framing).
    public static func stripEscapes(_ line: String) -> String {
        stripped(line).text
    }

    /// Columns a rendered line takes on screen: DEC double-size lines count twice, OSC 66 text at its scale.
    public static func visibleWidth(_ line: String) -> Int {
        stripped(line).width
    }

    /// Whether the line uses blinking (SGR 5 or 6), which reduced motion forbids.
    public static func blinks(_ line: String) -> Bool {
        sgrParameterLists(line).contains { list in
            // 38;5;n and 48;5;n are colours, not blinking.
            var index = 0
            let values = list
            while index < values.count {
                if values[index] == 38 || values[index] == 48, index + 1 < values.count {
                    index += values[index + 1] == 5 ? 3 : 5
                    continue
                }
                if values[index] == 5 || values[index] == 6 { return true }
                index += 1
            }
            return false
        }
    }

    static func sgrParameterLists(_ line: String) -> [[Int]] {
        var lists: [[Int]] = []
        let scalars = Array(line.unicodeScalars)
        var index = 0
        while index < scalars.count {
            if scalars[index] == "\u{1B}", index + 1 < scalars.count, scalars[index + 1] == "[" {
                var end = index + 2
                var parameters = ""
                while end < scalars.count, !(0x40...0x7E).contains(scalars[end].value) {
                    parameters.unicodeScalars.append(scalars[end])
                    end += 1
                }
                if end < scalars.count, scalars[end] == "m" {
                    lists.append(parameters.split(separator: ";", omittingEmptySubsequences: false).map { Int($0) ?? 0 })
                }
                index = end + 1
                continue
            }
            index += 1
        }
        return lists
    }

    private static func stripped(_ line: String) -> (text: String, width: Int) {
        var text = ""
        var width = 0
        var multiplier = 1
        var scalars = Substring(line).unicodeScalars[...]
        var plain = String.UnicodeScalarView()
        func flush(_ scale: Int) {
            let chunk = String(plain)
            text += chunk
            width += DisplayWidth.of(chunk) * scale
            plain = String.UnicodeScalarView()
        }
        while let scalar = scalars.first {
            scalars = scalars.dropFirst()
            guard scalar == "\u{1B}" else {
                plain.append(scalar)
                continue
            }
            guard let next = scalars.first else { break }
            scalars = scalars.dropFirst()
            switch next {
            case "[":
                while let final = scalars.first {
                    scalars = scalars.dropFirst()
                    if (0x40...0x7E).contains(final.value) { break }
                }
            case "#":
                if let kind = scalars.first {
                    scalars = scalars.dropFirst()
                    if kind == "3" || kind == "4" || kind == "6" { multiplier = 2 }
                }
            case "]":
                // OSC … BEL or ST; OSC 66 carries scaled text after its metadata.
                var body = String.UnicodeScalarView()
                while let character = scalars.first {
                    scalars = scalars.dropFirst()
                    if character == "\u{07}" { break }
                    if character == "\u{1B}" {
                        scalars = scalars.dropFirst()
                        break
                    }
                    body.append(character)
                }
                let parts = String(body).split(separator: ";", maxSplits: 2, omittingEmptySubsequences: false)
                if parts.count == 3, parts[0] == "66" {
                    flush(multiplier)
                    let scale =
                        parts[1].split(separator: ":").compactMap { item -> Int? in
                            item.hasPrefix("s=") ? Int(item.dropFirst(2)) : nil
                        }.first ?? 1
                    plain.append(contentsOf: parts[2].unicodeScalars)
                    flush(multiplier * scale)
                }
            default:
                break
            }
        }
        flush(multiplier)
        return (text, width)
    }
}
