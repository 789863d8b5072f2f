import StoryKitTestSupport
import Testing

@testable import StoryKit

/// The bedtime timer (issue 46): it stops at the end of the story, of the chapter, or of the
/// sentence once the minutes are up; says so when set and says good night when it ends.
@Suite struct BedtimeTests {
    func maya(bedtime: Bedtime = .off) -> SessionSnapshot {
        var settings = ReadingSettings.default
        settings.bedtime = bedtime
        return SessionSnapshot(profiles: [ChildProfile(id: 1, name: "Maya", age: 5, settings: settings)], pinIsSet: false)
    }

    func spoken(_ effects: [Effect]) -> [String] {
        effects.compactMap { if case .speak(let utterance) = $0 { utterance.text } else { nil } }
    }

    /// Hears sentences `range` to their end; returns the effects of the last one's end.
    func hear(_ session: inout Session, _ sentences: [Int]) -> [Effect] {
        var last: [Effect] = []
        for index in sentences {
            _ = session.handle(.narration(.sentenceStarted(index)))
            last = session.handle(.narration(.sentenceFinished(index)))
        }
        return last
    }

    @Test func bedtimesAreReadAsTyped() {
        #expect(Bedtime(loose: "story") == .story)
        #expect(Bedtime(loose: " Chapter ") == .chapter)
        #expect(Bedtime(loose: "end of the chapter") == .chapter)
        #expect(Bedtime(loose: "20") == .minutes(20))
        #expect(Bedtime(loose: "20 minutes") == .minutes(20))
        #expect(Bedtime(loose: "45m") == .minutes(45))
        #expect(Bedtime(loose: "off") == .off)
        #expect(Bedtime(loose: "0") == nil)
        #expect(Bedtime(loose: "181") == nil)
        #expect(Bedtime(loose: "soon") == nil)
        #expect(Bedtime.choices.allSatisfy { Bedtime(loose: $0.text) == $0 })
    }

    @Test func theChapterTimerStopsWhereTheChapterEndsAndKeepsThePlace() throws {
        var session = Session(catalog: SessionFixtures.catalog, snapshot: maya(), profile: "Maya")
        #expect(spoken(session.handle(.command(.bedtime("chapter")))) == ["Bedtime: stop at the end of this chapter."])
        let opening = session.handle(.command(.read("lighthouse cat")))
        #expect(!spoken(opening).contains { $0.hasPrefix("Bedtime") }, "said once, when set: \(spoken(opening))")
        let reader = try #require(session.state.reader)
        let map = reader.map
        let last = try #require(map.spokenSentences.first { map.endsChapter($0) })
        let next = try #require(map.spokenSentences.first { $0 > last })
        // The narration is told from its start to wait after the chapter's last sentence.
        #expect(session.bedtimeLastSentence == last)
        #expect(map.chapter(ofSentence: next) != map.chapter(ofSentence: last), "the next sentence is the next chapter's heading")
        // Every sentence before the chapter's last reads on.
        _ = hear(&session, map.spokenSentences.filter { $0 < last })
        #expect(session.state.reader?.status == .playing)
        let end = hear(&session, [last])
        #expect(spoken(end) == ["Good night, Maya. We stopped at the end of the chapter; your place is kept."])
        #expect(end.contains(.stopNarration))
        #expect(end.contains(.save(.savePosition(profileID: 1, story: reader.story.id, sentence: next))))
        #expect(session.state.route == .story(reader.story.id))
        #expect(session.state.reading(reader.story.id).sentenceIndex == next)
        // Done for tonight: reading again goes on without stopping at the next chapter.
        _ = session.handle(.command(.read("lighthouse cat")))
        let nextLast = try #require(map.spokenSentences.first { $0 > next && map.endsChapter($0) })
        _ = hear(&session, map.spokenSentences.filter { $0 >= next && $0 <= nextLast })
        #expect(session.state.reader?.status == .playing)
    }

    @Test func theStoryTimerSaysGoodNightAfterTheEnd() throws {
        var session = Session(catalog: SessionFixtures.catalog, snapshot: maya(), profile: "Maya")
        _ = session.handle(.command(.bedtime("story")))
        _ = session.handle(.command(.read("pip")))
        let map = try #require(session.state.reader?.map)
        _ = hear(&session, map.spokenSentences)
        #expect(session.state.reader?.status == .playing, "a story without chapters is not stopped before its end")
        let finished = session.handle(.narration(.finished))
        #expect(finished.contains(.save(.recordFinished(profileID: 1, story: "pip-and-the-puddle"))))
        let answer = session.handle(.stored(.readRecorded(story: "pip-and-the-puddle", count: 2)))
        #expect(
            spoken(answer) == [
                "The end. Maya, you have read Pip and the Puddle 2 times.", "Good night, Maya. We stopped at the end of the story.",
            ])
        #expect(session.state.route == .story("pip-and-the-puddle"))
    }

    @Test func aTimerSetWhileReadingTellsTheNarrationWhereToWait() throws {
        var session = Session(catalog: SessionFixtures.catalog, snapshot: maya(), profile: "Maya")
        _ = session.handle(.command(.read("lighthouse cat")))
        let map = try #require(session.state.reader?.map)
        let last = try #require(map.spokenSentences.first { map.endsChapter($0) })
        #expect(session.handle(.command(.bedtime("chapter"))).contains(.holdNarration(afterSentence: last)))
        #expect(session.handle(.command(.bedtime("off"))).contains(.holdNarration(afterSentence: nil)))
    }

    @Test func aChapterTimerOnAStoryWithoutChaptersSaysItStopsAtTheEnd() {
        var session = Session(catalog: SessionFixtures.catalog, snapshot: maya(), profile: "Maya")
        _ = session.handle(.command(.read("pip")))
        #expect(spoken(session.handle(.command(.bedtime("chapter")))) == ["Bedtime: this story has no chapters, so stop at the end of this story."])
    }

    @Test func theMinutesStopAtTheEndOfTheSentenceBeingRead() throws {
        var session = Session(catalog: SessionFixtures.catalog, snapshot: maya(), profile: "Maya")
        session.setBedtimeForRun(.minutes(1))
        #expect(session.bedtimeCounts)
        let opening = session.handle(.command(.read("pip")))
        #expect(spoken(opening) == ["Reading Pip and the Puddle.", "Bedtime: stop after 1 minute, at the end of the sentence."])
        let map = try #require(session.state.reader?.map)
        let spokenSentences = map.spokenSentences
        _ = session.handle(.tick(100))
        #expect(spoken(hear(&session, [spokenSentences[0]])).isEmpty)
        _ = session.handle(.tick(159))
        #expect(spoken(hear(&session, [spokenSentences[1]])).isEmpty, "59 seconds are not a minute")
        // Time is up: the narration is told to wait after the sentence it is reading.
        #expect(session.handle(.tick(160)) == [.holdNarration(afterSentence: spokenSentences[2])])
        #expect(!session.bedtimeCounts)
        // Time is up in the middle of a sentence: it is read to its end.
        _ = session.handle(.narration(.sentenceStarted(spokenSentences[2])))
        #expect(session.state.reader?.status == .playing)
        let end = session.handle(.narration(.sentenceFinished(spokenSentences[2])))
        #expect(spoken(end) == ["Good night, Maya. We stopped at the end of the sentence; your place is kept."])
        #expect(session.state.reading("pip-and-the-puddle").sentenceIndex == spokenSentences[3])
    }

    @Test func aProfilesDefaultIsSaidWhenReadingStarts() {
        var session = Session(catalog: SessionFixtures.catalog, snapshot: maya(bedtime: .story), profile: "Maya")
        let opening = session.handle(.command(.read("pip")))
        #expect(spoken(opening) == ["Reading Pip and the Puddle.", "Bedtime: stop at the end of this story."])
        // This run's choice wins over the default.
        #expect(spoken(session.handle(.command(.bedtime("off")))) == ["The bedtime timer is off."])
        _ = session.handle(.narration(.finished))
        #expect(!spoken(session.handle(.stored(.readRecorded(story: "pip-and-the-puddle", count: 1)))).contains { $0.hasPrefix("Good night") })
    }

    @Test func readAloneEndsTheProgramWithTheGoodNight() throws {
        var session = Session(catalog: SessionFixtures.catalog, snapshot: maya(), profile: "Maya")
        session.setBedtimeForRun(.chapter)
        let opening = session.startReadingAlone("the-lighthouse-cat")
        #expect(spoken(opening).contains("Bedtime: stop at the end of this chapter."))
        let map = try #require(session.state.reader?.map)
        let last = try #require(map.spokenSentences.first { map.endsChapter($0) })
        let end = hear(&session, map.spokenSentences.filter { $0 <= last })
        #expect(end.contains(.exit))
        #expect(spoken(end) == ["Good night, Maya. We stopped at the end of the chapter; your place is kept."])
    }

    @Test func aWrongBedtimeSaysWhatToType() {
        var session = Session(catalog: SessionFixtures.catalog, snapshot: maya(), profile: "Maya")
        #expect(
            spoken(session.handle(.command(.bedtime("soon")))) == [
                "soon is not a bedtime: use story, chapter, off or a number of minutes from 1 to 180, like bedtime 20."
            ])
        #expect(session.state.bedtime == nil)
    }
}
