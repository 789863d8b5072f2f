/// Why the read-along coach cannot listen: its model is missing, the decoder refused a grammar,
/// or the audio given as the microphone is not 16 kHz mono 16-bit PCM.
public struct ListeningProblem: TranslatableError, Sendable, Hashable, CustomStringConvertible {
    public var text: CatalogText

    public init(_ template: String, _ values: [String: String] = [:]) {
        text = CatalogText(template, values)
    }

    public var description: String { text.english }
    public func localized(_ messages: MessageCatalog) -> String { text.localized(messages) }
}
