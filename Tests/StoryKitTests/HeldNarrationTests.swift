import Foundation
import StoryKitTestSupport
import Testing

@testable import StoryKit

/// The Session decides when a paused story goes on where the speech service holds it (a
/// recording at the very sample, synthesis at the word) and when it is read anew: the shell's
/// speech keeps no reading state of its own to guess it.
@Suite struct HeldNarrationTests {
    /// The Lighthouse Cat read by Maya, paused at a word of its second sentence.
    func paused() -> (Session, word: Int) {
        var session = Session(
            catalog: SessionFixtures.catalog, snapshot: SessionSnapshot(profiles: [ChildProfile(id: 1, name: "Maya", age: 5)]),
            profile: "Maya")
        _ = session.start()
        _ = session.handle(.command(.read("lighthouse")))
        _ = session.handle(.narration(.sentenceStarted(1)))
        let word = session.state.reader!.map.firstWord(ofSentence: 1) + 2
        _ = session.handle(.narration(.word(word)))
        #expect(session.handle(.key(.space)).first == .pauseNarration)
        return (session, word)
    }

    func narrated(_ effects: [Effect]) -> Int? {
        effects.lazy.compactMap { if case .narrate(_, let word, _, _) = $0 { word } else { nil } }.first
    }

    func resumes(_ effects: [Effect]) -> Bool {
        effects.contains { if case .resumeNarration = $0 { true } else { false } }
    }

    @Test func goingOnFromThePauseResumesWhatTheSpeechHolds() {
        var (session, word) = paused()
        let effects = session.handle(.key(.space))
        #expect(resumes(effects))
        #expect(narrated(effects) == nil, "not read anew")
        #expect(session.state.reader?.wordIndex == word)
        #expect(session.state.reader?.held == nil, "nothing is held once it goes on")
        // Paused and resumed again: held again, resumed again.
        #expect(session.handle(.key(.space)).first == .pauseNarration)
        #expect(resumes(session.handle(.key(.space))))
    }

    @Test func aWordMovedToWhilePausedIsReadAnewFromThere() {
        var (session, word) = paused()
        _ = session.handle(.key(.right))
        let effects = session.handle(.key(.space))
        #expect(!resumes(effects))
        #expect(narrated(effects) == word + 1)
    }

    @Test func aSentenceMoveIsANewPlaceEvenBackOntoTheSameWord() {
        var (session, _) = paused()
        // `]` while paused reads the next sentence: the held story is stopped, read anew.
        let moved = session.handle(.key(.character("]")))
        #expect(moved.contains(.stopNarration))
        #expect(narrated(moved) != nil)
        #expect(session.state.reader?.held == nil)
    }

    @Test func anotherVoiceChosenWhilePausedReadsAnew() {
        var (session, word) = paused()
        _ = session.handle(.command(.set(name: "voice", value: "en-us")))
        let effects = session.handle(.key(.space))
        #expect(!resumes(effects), "the service holds it in the voice it was read in")
        #expect(narrated(effects) == word)
    }

    @Test func theSyntheticVoiceChosenWhilePausedReadsAnew() {
        var (session, word) = paused()
        _ = session.handle(.command(.set(name: "narration", value: "synthetic")))
        let effects = session.handle(.key(.space))
        #expect(!resumes(effects), "the recording is held; the synthetic voice reads anew")
        #expect(narrated(effects) == word)
    }

    @Test func explainingAWordWhileReadingHoldsTheStoryAndResumesIt() {
        var (session, word) = paused()
        _ = session.handle(.key(.space))
        let effects = session.handle(.key(.character("e")))
        #expect(effects.first == .pauseNarration)
        #expect(resumes(effects))
        #expect(session.state.reader?.wordIndex == word)
    }
}
