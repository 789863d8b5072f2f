/// Text made safe inside an XML element or attribute (eSpeak NG's SSML, a read-along book's
/// XHTML and SMIL): `& < > "` escaped; the characters XML 1.0 forbids (C0 and C1 controls,
/// U+FFFE, U+FFFF) dropped; tabs and line breaks made spaces, as they would be read anyway.
public enum XMLText {
    public static func escaped(_ text: String) -> String {
        var out = ""
        out.reserveCapacity(text.utf8.count)
        for scalar in text.unicodeScalars {
            switch scalar {
            case "&": out += "&amp;"
            case "<": out += "&lt;"
            case ">": out += "&gt;"
            case "\"": out += "&quot;"
            case "\t", "\n", "\r": out.unicodeScalars.append(" ")
            case _ where scalar.value < 0x20 || (0x7F...0x9F).contains(scalar.value) || scalar.value == 0xFFFE || scalar.value == 0xFFFF:
                continue
            default: out.unicodeScalars.append(scalar)
            }
        }
        return out
    }
}
