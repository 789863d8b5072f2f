import Synchronization

/// The site server a joined kiosk's store was told to ask (`StoryStore.useSiteAuthority`, in Sync).
///
/// The store holds the choice but never uses it: the writes every kiosk must agree on are Sync's
/// (`writeAgreed`), one layer up. So the choice is kept here as an opaque value, which Sync gives and
/// takes back as its own `SiteAuthority`, and the store's folder names nothing of Sync's.
final class SiteChoice: Sendable {
    /// Whether one was chosen, and which (nil: none can be reached).
    private let chosen = Mutex<(isChosen: Bool, value: (any Sendable)?)>((false, nil))

    func choose(_ value: (any Sendable)?) {
        chosen.withLock { $0 = (true, value) }
    }

    /// Whether a value was chosen (`value` nil: none can be reached); when not, the caller's default applies.
    var choice: (isChosen: Bool, value: (any Sendable)?) { chosen.withLock { $0 } }
}
