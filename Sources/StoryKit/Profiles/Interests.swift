/// A child's interests: words from a documented list, plus free words.
///
/// Unknown words are **accepted as free words** (a child may love "trains"): each is lower-cased and
/// must be one word of letters, digits or hyphens, at most ``maximumWordLength`` characters. Anything
/// else (spaces inside a word, punctuation, control characters) is refused with a message naming
/// the word. See `docs/profiles.md`.
public enum Interests {
    /// The suggested interests, shown in the form's hint; they match the bundled stories' tags.
    public static let known: [String] = [
        "animals", "space", "friendship", "magic", "nature", "bedtime", "funny", "adventure",
        "dinosaurs", "ocean", "music", "family", "robots", "dragons", "feelings", "school",
    ]
    public static let maximumCount = 10
    public static let maximumWordLength = 24

    /// Parses a list typed as words separated by commas and/or spaces: lower-cased, duplicates
    /// dropped, order kept.
    ///
    /// - Throws: ``ProfileProblem`` for the `interests` field.
    public static func parse(_ text: String) throws(ProfileProblem) -> [String] {
        let words = text.split(whereSeparator: { $0 == "," || $0 == " " || $0 == "\t" }).map(String.init)
        var result: [String] = []
        // Duplicates are found in a set: a list of 40,000 words once took 13 s to check, word by
        // word against the list (a kiosk's upload could hold the site's server that long).
        var seen = Set<String>()
        for word in words {
            let lowered = word.lowercased()
            if UnsafeCharacters.containsUnsafe(lowered) || !lowered.allSatisfy({ $0.isLetter || $0.isNumber || $0 == "-" }) {
                let shown = Sanitizer.quote(lowered)
                throw ProfileProblem(
                    field: .interests,
                    template: N_("{value} is not a word: use letters, digits and hyphens, separated by commas, such as animals, space, trains"),
                    ["value": "\"\(shown.prefix(30))\""])
            }
            if lowered.count > maximumWordLength {
                throw ProfileProblem(
                    field: .interests,
                    template: N_("{value} is {length} characters long: use at most {most} characters per interest"),
                    ["value": "\"\(lowered.prefix(30))…\"", "length": String(lowered.count), "most": String(maximumWordLength)])
            }
            if seen.insert(lowered).inserted { result.append(lowered) }
        }
        if result.count > maximumCount {
            throw ProfileProblem(
                field: .interests,
                template: N_("{count} interests given: choose at most {most}"), ["count": String(result.count), "most": String(maximumCount)])
        }
        return result
    }
}
