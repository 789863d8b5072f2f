import Foundation
import StoryKitTestSupport
import Testing

@testable import StoryKit

/// The Session reads no file: a story it does not hold is asked for (`Effect.loadStory`), and the
/// input that needed it, with every input after it, waits until the shell hands it in.
@Suite struct StoryLoadingTests {
    static let snapshot = SessionSnapshot(
        profiles: [ChildProfile(id: 1, name: "Maya", age: 5, interests: ["animals"])],
        readings: ["Maya": ["the-lighthouse-cat": ReadingRecord(readCount: 1, sentenceIndex: 3)]],
        inProgress: ["Maya": "the-lighthouse-cat"])

    /// What a child does: read a story, keys while it opens, a move, pause, another story, back.
    static let inputs: [Input] = [
        .command(.read("pip")), .key(.right), .narration(.sentenceStarted(0)), .narration(.word(1)),
        .key(.space), .command(.read("lighthouse")), .key(.right), .key(.escape), .command(.read("pip")),
    ]

    /// Runs `inputs` on a session whose catalog holds no story, answering each `loadStory` from
    /// `library` only after `delay` more inputs came (the shell's worker is slower than the keys).
    func runLazily(
        _ inputs: [Input], delay: Int,
        answer: (String) -> Story? = { id in
            SessionFixtures.library.entries.first { $0.id == id }.flatMap { try? SessionFixtures.library.loadStory($0) }
        }
    ) -> (session: Session, effects: [Effect], loads: [String]) {
        var session = Session(catalog: StoryCatalog(entries: SessionFixtures.library.entries), snapshot: Self.snapshot, profile: "Maya")
        var effects = session.start()
        var loads: [String] = []
        var due: [(at: Int, id: String)] = []
        func take(_ produced: [Effect], at index: Int) {
            for effect in produced {
                if case .loadStory(let id) = effect {
                    loads.append(id)
                    due.append((index + delay, id))
                } else {
                    effects.append(effect)
                }
            }
        }
        for (index, input) in inputs.enumerated() {
            take(session.handle(input), at: index)
            while let first = due.first, first.at <= index {
                due.removeFirst()
                take(session.handle(.storyLoaded(id: first.id, answer(first.id))), at: index)
            }
        }
        while !due.isEmpty {
            let first = due.removeFirst()
            take(session.handle(.storyLoaded(id: first.id, answer(first.id))), at: inputs.count)
        }
        return (session, effects, loads)
    }

    @Test(arguments: [0, 1, 3])
    func aStoryReadInOffTheLoopChangesNothingTheChildHearsOrSees(delay: Int) {
        var eager = Session(catalog: SessionFixtures.catalog, snapshot: Self.snapshot, profile: "Maya")
        var expected = eager.start()
        for input in Self.inputs { expected += eager.handle(input) }
        #expect(expected.contains { if case .narrate = $0 { true } else { false } }, "the flow reads aloud")
        #expect(eager.state.reader?.story.id == "pip-and-the-puddle")

        let lazy = runLazily(Self.inputs, delay: delay)
        #expect(lazy.loads == ["pip-and-the-puddle", "the-lighthouse-cat"], "each story is asked for once, when first needed")
        #expect(lazy.effects == expected)
        #expect(lazy.session.state == eager.state)
        #expect(lazy.session.waitingForStory == nil)
    }

    @Test func inputsWaitInOrderBehindTheStoryTheyCameAfter() {
        var session = Session(catalog: StoryCatalog(entries: SessionFixtures.library.entries), snapshot: Self.snapshot, profile: "Maya")
        _ = session.start()
        #expect(session.handle(.command(.read("pip"))) == [.loadStory("pip-and-the-puddle")])
        let before = session.state
        #expect(session.handle(.key(.space)).isEmpty, "a key while the story is read in waits")
        #expect(session.state == before, "nothing moved before the story came")
        let story = try? SessionFixtures.library.loadStory(#require(SessionFixtures.catalog.entry(id: "pip-and-the-puddle")))
        let effects = session.handle(.storyLoaded(id: "pip-and-the-puddle", story))
        #expect(session.state.reader?.story.id == "pip-and-the-puddle")
        #expect(session.state.reader?.status == .paused, "the space that waited paused the story that opened")
        #expect(effects.contains { if case .narrate = $0 { true } else { false } })
    }

    @Test func aStoryWhoseFileCannotBeReadIsSaidSoOnce() {
        let lazy = runLazily([.command(.read("pip")), .command(.read("pip"))], delay: 0, answer: { _ in nil })
        #expect(lazy.loads == ["pip-and-the-puddle"], "a story that could not be read is not asked for again")
        let said = lazy.effects.compactMap { if case .speak(let utterance) = $0 { utterance.text } else { nil } }
        #expect(said.filter { $0 == "That story could not be opened. It may have been moved." }.count == 2)
        #expect(lazy.session.state.reader == nil)
    }
}

/// On a terminal the library itself is read off the loop: the first screen is drawn at once,
/// and what needs the stories waits for them.
@Suite struct LibraryLoadingTests {
    @Test(arguments: [0, 2, 5])
    func aLibraryReadInOffTheLoopChangesNothingTheChildHears(arrivesAfter: Int) {
        let inputs = StoryLoadingTests.inputs
        var eager = Session(catalog: StoryCatalog(entries: SessionFixtures.library.entries), snapshot: StoryLoadingTests.snapshot, profile: "Maya")
        var expected = eager.start()
        for input in inputs { expected += eager.handle(input) }

        var lazy = Session(catalog: .loading, snapshot: StoryLoadingTests.snapshot, profile: "Maya")
        var effects = lazy.start()
        let opening = effects
        #expect(lazy.screen.title == "Library")
        #expect(lazy.screen.elements.contains { $0.id == "loading" && $0.label == "Loading the stories…" }, "the screen says what it waits for")
        for (index, input) in inputs.enumerated() {
            if index == arrivesAfter { effects += lazy.handle(.libraryLoaded(SessionFixtures.library.entries, unreadable: 0)) }
            let answered = lazy.handle(input)
            if index < arrivesAfter { #expect(answered.isEmpty, "input \(index) waits for the library") }
            effects += answered
        }
        if arrivesAfter >= inputs.count { effects += lazy.handle(.libraryLoaded(SessionFixtures.library.entries, unreadable: 0)) }
        // "Magical Stories." at once; the greeting (it names the story left midway) when the
        // library came; then every input, in order, as if it had always been there.
        #expect(opening.first == expected.first)
        #expect(effects.filter(\.isSpoken) == expected.filter(\.isSpoken))
        #expect(lazy.state == eager.state)
    }

    @Test func theProfilesAreGreetedAtOnceAndTheLibraryWaits() {
        let snapshot = SessionSnapshot(
            profiles: [ChildProfile(id: 1, name: "Maya", age: 5), ChildProfile(id: 2, name: "Sam", age: 9)], readings: [:], inProgress: [:])
        let inputs: [Input] = [.key(.enter), .key(.tab)]
        var eager = Session(catalog: StoryCatalog(entries: SessionFixtures.library.entries), snapshot: snapshot)
        let eagerStart = eager.start()
        var expected = eagerStart
        for input in inputs { expected += eager.handle(input) }

        var lazy = Session(catalog: .loading, snapshot: snapshot)
        #expect(lazy.start() == eagerStart, "who is reading is asked at once, the focus on the first profile")
        var effects = eagerStart
        for input in inputs { effects += lazy.handle(input) }
        effects += lazy.handle(.libraryLoaded(SessionFixtures.library.entries, unreadable: 0))
        #expect(effects.filter(\.isSpoken) == expected.filter(\.isSpoken))
        #expect(lazy.state == eager.state)
    }

    @Test func filesThatCouldNotBeReadAreSaidOnce() {
        var session = Session(catalog: .loading, snapshot: StoryLoadingTests.snapshot, profile: "Maya")
        _ = session.start()
        let effects = session.handle(.libraryLoaded(SessionFixtures.library.entries, unreadable: 2))
        let spoken = effects.compactMap { if case .speak(let utterance) = $0 { utterance.text } else { nil } }
        #expect(spoken.filter { $0 == "2 story files could not be read: 'storyreader list' says why." }.count == 1, "\(spoken)")
        #expect(spoken.first?.hasPrefix("Welcome back Maya") == true, "\(spoken)")
    }
}

extension Effect {
    /// Something said aloud (what a blind child judges by).
    fileprivate var isSpoken: Bool {
        switch self {
        case .speak, .tell, .echo, .narrate, .speakWith, .preview: true
        default: false
        }
    }
}
