import Testing
@testable import StoryKit

@Suite struct AnnouncementQueueTests {
    let story = Utterance.story("The Lighthouse Cat")

    @Test func chatterNeverCutsTheStory() {
        var queue = AnnouncementQueue()
        #expect(queue.submit(story) == [.start(story)])
        let focus = Utterance("Settings, button.", priority: .text)
        #expect(queue.submit(focus).isEmpty)
        #expect(queue.speaking == story)
        let note = Utterance("Saved.", priority: .notification)
        #expect(queue.submit(note) == [.drop(note)])
        let message = Utterance("Profile saved.", priority: .message)
        #expect(queue.submit(message).isEmpty)
        #expect(queue.speaking == story)
    }

    @Test func anErrorInterruptsAndTheStoryGoesOnAfter() {
        var queue = AnnouncementQueue()
        _ = queue.submit(story)
        let error = Utterance("No story is called x.", priority: .important)
        #expect(queue.submit(error) == [.interrupt(story), .start(error)])
        #expect(queue.finished() == [.start(story)])
    }

    @Test func aNewerFocusMoveReplacesAnOlderOne() {
        var queue = AnnouncementQueue()
        let first = Utterance("One.", priority: .text), second = Utterance("Two.", priority: .text), third = Utterance("Three.", priority: .text)
        #expect(queue.submit(first) == [.start(first)])
        #expect(queue.submit(second) == [.interrupt(first), .start(second)])
        // Behind a message, a waiting focus move is replaced, not queued.
        var busy = AnnouncementQueue()
        let message = Utterance("The end.", priority: .message)
        _ = busy.submit(message)
        _ = busy.submit(second)
        #expect(busy.submit(third) == [.drop(second)])
        #expect(busy.pending == [third])
    }

    @Test func messagesWaitAndAreNeverDropped() {
        var queue = AnnouncementQueue()
        let one = Utterance("One.", priority: .message), two = Utterance("Two.", priority: .message)
        _ = queue.submit(one)
        #expect(queue.submit(two).isEmpty)
        #expect(queue.finished() == [.start(two)])
    }

    @Test func importantIsNotInterruptedByImportant() {
        var queue = AnnouncementQueue()
        let one = Utterance("One.", priority: .important), two = Utterance("Two.", priority: .important)
        _ = queue.submit(one)
        #expect(queue.submit(two).isEmpty)
        #expect(queue.finished() == [.start(two)])
    }

    @Test func progressKeepsOnlyTheNewest() {
        var queue = AnnouncementQueue()
        let message = Utterance("Busy.", priority: .message)
        _ = queue.submit(message)
        let p1 = Utterance("10 percent.", priority: .progress), p2 = Utterance("20 percent.", priority: .progress)
        _ = queue.submit(p1)
        #expect(queue.submit(p2) == [.drop(p1)])
        #expect(queue.finished() == [.start(p2)])
    }

    @Test func pausingTheStoryLetsWaitingChatterSpeak() {
        var queue = AnnouncementQueue()
        _ = queue.submit(story)
        let focus = Utterance("Stop, button.", priority: .text)
        _ = queue.submit(focus)
        #expect(queue.removeStory() == [.interrupt(story), .start(focus)])
        #expect(!queue.hasStory)
    }

    @Test func theStoryWaitsForAnAnnouncementButReplacesChatter() {
        var queue = AnnouncementQueue()
        let message = Utterance("Reading The Lighthouse Cat.", priority: .message)
        _ = queue.submit(message)
        #expect(queue.submit(story).isEmpty)
        #expect(queue.finished() == [.start(story)])
        var chatty = AnnouncementQueue()
        let focus = Utterance("Read, button.", priority: .text)
        _ = chatty.submit(focus)
        #expect(chatty.submit(story) == [.interrupt(focus), .start(story)])
    }
}
