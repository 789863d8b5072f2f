/// Why a story's recording (its clip list, or a clip of it) cannot be used, naming the file (and
/// line and field).
public struct RecordingProblem: TranslatableError, Sendable, Hashable, CustomStringConvertible {
    public var text: CatalogText

    public init(_ template: String, _ values: [String: String] = [:]) {
        text = CatalogText(template, values)
    }

    public var description: String { text.english }
    public func localized(_ messages: MessageCatalog) -> String { text.localized(messages) }
}
