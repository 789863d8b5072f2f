import Foundation
import Synchronization

/// The titles of the stories of this machine's library, which the store sends with each read,
/// place and favourite (``SyncChange/storyTitle``) so that the site server's web page can name a
/// story as a grown-up knows it. The store itself keeps no title: a program that loaded no library
/// (`storyreader sync`) sends none, and the page then shows the story's id made readable.
public final class StoryTitles: Sendable {
    private let titles = Mutex<[String: String]>([:])

    public init() {}

    /// Takes the library's titles, by story id (each story's first, when two files share an id).
    public func know(_ stories: [(id: String, title: String)]) {
        var known: [String: String] = [:]
        for (id, title) in stories where known[id] == nil {
            // Only a title every machine takes travels (``SyncValidation`` checks it by ``problem(_:)``).
            let title = Sanitizer.sanitizeLine(title).trimmingCharacters(in: .whitespaces)
            if Self.problem(title) == nil { known[id] = title }
        }
        titles.withLock { $0.merge(known) { old, _ in old } }
    }

    /// The longest title a change may carry.
    public static let maximumLength = 200

    /// What is wrong with a title sent with a change: 1 to ``maximumLength`` characters, no controls.
    public static func problem(_ title: String) -> String? {
        if title.isEmpty || title.unicodeScalars.count > maximumLength || UnsafeCharacters.containsUnsafe(title) {
            return "a story title of \(title.unicodeScalars.count) characters is not 1 to \(maximumLength) characters without controls"
        }
        return nil
    }

    /// The title of `story`, if the library has it.
    public func title(of story: String) -> String? { titles.withLock { $0[story] } }
}
