// TEMPORARY until the real sanitizer lands (helper-3).
public enum Sanitizer {
    public static func sanitize(_ text: String) -> String {
        String(String.UnicodeScalarView(text.replacingOccurrences(of: "\r\n", with: "\n").unicodeScalars.filter { $0.value >= 0x20 || $0 == "\n" }))
    }
    public static func sanitizeLine(_ text: String) -> String {
        sanitize(text).split(whereSeparator: { $0.isWhitespace }).joined(separator: " ")
    }
}
