// TEMPORARY until the real display width lands (helper-3).
public enum DisplayWidth {
    public static func of(_ character: Character) -> Int { 1 }
    public static func of(_ text: String) -> Int { text.count }
}
