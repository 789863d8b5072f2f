// TEMPORARY: stands in for the lead's `Sanitizer` (Sources/StoryKit/Text/Sanitizer.swift) until it
// lands on main; delete this file after merging it.
enum Sanitizer {
    /// One line of untrusted text with control characters, escape sequences and bidi controls removed.
    static func sanitizeLine(_ text: String) -> String {
        String(String.UnicodeScalarView(text.unicodeScalars.filter { !UnsafeCharacters.isUnsafe($0) }))
    }
}
