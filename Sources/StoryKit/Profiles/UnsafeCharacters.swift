/// Characters that must never be part of a name or an interest: they can hide text, move the
/// cursor, reorder what is shown, or drive the terminal.
enum UnsafeCharacters {
    /// Bidirectional controls: embeddings, overrides, isolates and marks (Trojan Source).
    static let bidiControls: Set<UInt32> = [
        0x061C, 0x200E, 0x200F, 0x202A, 0x202B, 0x202C, 0x202D, 0x202E, 0x2066, 0x2067, 0x2068, 0x2069,
    ]

    /// Whether `scalar` is a control character (C0, DEL, C1, including ESC), a bidi control, or an
    /// invisible format character. Zero-width joiners stay allowed: emoji sequences need them.
    static func isUnsafe(_ scalar: Unicode.Scalar) -> Bool {
        if bidiControls.contains(scalar.value) { return true }
        switch scalar.properties.generalCategory {
        case .control, .lineSeparator, .paragraphSeparator, .privateUse, .surrogate, .unassigned:
            return true
        case .format:
            return scalar.value != 0x200C && scalar.value != 0x200D
        default:
            return false
        }
    }

    /// Whether any scalar of `text` is unsafe.
    static func containsUnsafe(_ text: String) -> Bool {
        // Printable ASCII (every story id a kiosk syncs) is answered from its bytes: of ASCII only
        // C0 and DEL are unsafe, and Unicode's tables cost more than the rest of checking a change.
        if text.utf8.allSatisfy({ $0 >= 0x20 && $0 < 0x7F }) { return false }
        return text.unicodeScalars.contains(where: isUnsafe)
    }
}
