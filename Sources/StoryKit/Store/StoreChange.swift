public import Foundation

/// A change the session asks the store to keep (`Effect.save`). Profiles are named by their
/// database id: only profiles the store has saved are saved to.
public enum StoreChange: Sendable, Hashable {
    /// The profile form's Save: adds the profile (no id) or replaces the one with its id. Needs the
    /// parent's authorization when a PIN is set; answered with `StoreReply.profileSaved`.
    case saveProfile(ChildProfile)
    /// A reading setting changed (settings screen, `set`, faster, slower): replaces the stored
    /// profile quietly. Needs the parent's authorization when a PIN is set.
    case saveSettings(ChildProfile)
    /// The story was read to the end: one more read and the position forgotten, in one transaction;
    /// answered with `StoreReply.readRecorded` and the store's count.
    case recordFinished(profileID: Int64, story: String)
    /// A read aloud with the coach ended: the child's tally kept apart from the finished reads
    /// (``StoryStore/recordCoachedRead(profileID:storyID:tally:at:)``); answered with nothing.
    case recordCoachedRead(profileID: Int64, story: String, CoachTally)
    /// The sentence (an index into `Story.sentences`) to resume the story from.
    case savePosition(profileID: Int64, story: String, sentence: Int)
    case setFavourite(profileID: Int64, story: String, Bool)
    /// A bookmark made, or its note changed (the same id): kept as it is given.
    case saveBookmark(profileID: Int64, Bookmark)
    /// The bookmark with this id is deleted.
    case removeBookmark(profileID: Int64, id: UUID)
}
