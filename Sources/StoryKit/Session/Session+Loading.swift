/// Stories read in off the loop. The Session reads no file: when an input needs a story the
/// catalog does not hold, `handle` puts the state back as it was, asks the shell for the story
/// (`Effect.loadStory`) and keeps the input; every input after it waits in line too, as it did when
/// the loop itself read the file. When the story comes (`Input.storyLoaded`) they are handled in
/// order, as if it had always been there.
extension Session {
    /// The story `id` if the catalog holds it; when it must still be read in, notes that the input
    /// being handled waits for it.
    mutating func story(id: String) -> Story? {
        if let story = catalog.story(id: id) { return story }
        if catalog.needsLoading(id) { storyWanted = id }
        return nil
    }

    /// The library read in: the greeting `start` held back, a word on files that could not be
    /// read (on a terminal nothing else would say it), then the inputs that waited, in order.
    mutating func libraryArrived(_ entries: [StoryEntry], unreadable: Int) -> [Effect] {
        catalog.arrived(entries)
        var effects: [Effect] = [.render]
        if greetingWaitsForLibrary {
            greetingWaitsForLibrary = false
            effects = withLanguageRuns(greet() + [.render])
        }
        if unreadable > 0 {
            effects.append(
                speak(
                    trn(
                        "{count} story file could not be read: 'storyreader list' says why.",
                        "{count} story files could not be read: 'storyreader list' says why.", unreadable),
                    .message))
        }
        let waiting = waitingForLibrary
        waitingForLibrary = []
        for input in waiting { effects += handle(input) }
        return effects
    }

    /// The story read in (nil: it could not be, and is said so where it was needed).
    mutating func storyArrived(_ id: String, _ story: Story?) -> [Effect] {
        catalog.hold(story, id: id)
        guard let waiting = waitingForStory, waiting.id == id else { return [] }
        waitingForStory = nil
        var effects: [Effect] = []
        for (index, input) in waiting.inputs.enumerated() {
            effects += handle(input)
            if waitingForStory != nil {
                // That input needs another story: the rest wait behind it.
                waitingForStory?.inputs += waiting.inputs[(index + 1)...]
                break
            }
        }
        return effects
    }
}

extension Input {
    /// Whether the input needs the library (a key, a command): while it is read in, these wait.
    /// The rest (time, the terminal's size, the shell's news, the end) is handled at once.
    var waitsForLibrary: Bool {
        switch self {
        case .key, .command, .invalid, .activity, .pinChecked, .pinLocked, .stored, .narration, .coach: true
        case .resize, .tick, .shutdown, .shell, .storyLoaded, .libraryLoaded: false
        }
    }
}
