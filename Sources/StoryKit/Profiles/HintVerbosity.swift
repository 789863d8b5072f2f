/// How much of the keys' hints a child hears ("Press Enter to open."), per child.
public enum HintVerbosity: String, Sendable, Hashable, Codable, CaseIterable {
    /// Every item says its hint after its label and state.
    case full
    /// A screen's first item says its hint when the screen opens; moving item to item says only
    /// the label and state; "where am I" says the hint on request.
    case short
    /// No hints, except on request ("where am I").
    case off

    /// The order a picker steps them in: Right and + give more hints, as they turn a setting up.
    public static let fewestFirst: [HintVerbosity] = [.off, .short, .full]
}
