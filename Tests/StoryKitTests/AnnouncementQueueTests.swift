import Testing

@testable import StoryKit

@Suite struct AnnouncementQueueTests {
    let story = Utterance.story("The Lighthouse Cat")

    @Test func anAnswerPausesTheStoryWhichGoesOnAfterIt() {
        var queue = AnnouncementQueue()
        #expect(queue.submit(story) == [.start(story)])
        let whereAmI = Utterance("The Lighthouse Cat, reading.", priority: .text)
        #expect(queue.submit(whereAmI) == [.interrupt(story), .start(whereAmI)])
        #expect(queue.pending == [story])
        #expect(queue.finished() == [.start(story)])
    }

    @Test func newsWaitsForTheStorysSentenceAndNotificationsAreDropped() {
        var queue = AnnouncementQueue()
        _ = queue.submit(story)
        let note = Utterance("Saved.", priority: .notification)
        #expect(queue.submit(note) == [.drop(note)])
        let message = Utterance("Sync finished.", priority: .message)
        #expect(queue.submit(message).isEmpty)
        #expect(queue.speaking == story)
        // At the end of a sentence the news goes first, then the story.
        #expect(queue.yieldStory() == [.interrupt(story), .start(message)])
        #expect(queue.finished() == [.start(story)])
        #expect(queue.yieldStory().isEmpty)
    }

    @Test func aNewerKeyCutsAnOlderKeysMessageButNotItsOwn() {
        var queue = AnnouncementQueue()
        var paused = Utterance("Paused at ‘island’.", priority: .message)
        paused.input = 1
        _ = queue.submit(paused)
        var sameKey = Utterance("Pause, button.", priority: .text)
        sameKey.input = 1
        #expect(queue.submit(sameKey).isEmpty)
        var goOn = Utterance.story("The Lighthouse Cat")
        goOn.input = 2
        #expect(queue.submit(goOn) == [.drop(sameKey), .interrupt(paused), .start(goOn)])
    }

    @Test func aNewerKeysAnswerDropsWhatEarlierKeysLeftWaitingButNeverAnError() {
        var queue = AnnouncementQueue()
        func stamped(_ text: String, _ priority: AnnouncementPriority, _ input: Int) -> Utterance {
            var utterance = Utterance(text, priority: priority)
            utterance.input = input
            return utterance
        }
        let notice = stamped("No sound device.", .message, 0)
        let greeting = stamped("Magical Stories.", .message, 0)
        let error = stamped("The store is read-only.", .important, 0)
        _ = queue.submit(notice)
        _ = queue.submit(greeting)
        let command = stamped("Command.", .text, 1)
        #expect(queue.submit(command) == [.drop(greeting), .interrupt(notice), .start(command)])
        #expect(queue.submit(error) == [.interrupt(command), .start(error)])
        // An error is never cut or dropped by a key: the letter waits for it.
        let letter = stamped("r", .text, 2)
        #expect(queue.submit(letter).isEmpty)
        #expect(queue.speaking == error)
        #expect(queue.finished() == [.start(letter)])
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
        let first = Utterance("One.", priority: .text)
        let second = Utterance("Two.", priority: .text)
        let third = Utterance("Three.", priority: .text)
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
        let one = Utterance("One.", priority: .message)
        let two = Utterance("Two.", priority: .message)
        _ = queue.submit(one)
        #expect(queue.submit(two).isEmpty)
        #expect(queue.finished() == [.start(two)])
    }

    @Test func importantIsNotInterruptedByImportant() {
        var queue = AnnouncementQueue()
        let one = Utterance("One.", priority: .important)
        let two = Utterance("Two.", priority: .important)
        _ = queue.submit(one)
        #expect(queue.submit(two).isEmpty)
        #expect(queue.finished() == [.start(two)])
    }

    @Test func progressKeepsOnlyTheNewest() {
        var queue = AnnouncementQueue()
        let message = Utterance("Busy.", priority: .message)
        _ = queue.submit(message)
        let p1 = Utterance("10 percent.", priority: .progress)
        let p2 = Utterance("20 percent.", priority: .progress)
        _ = queue.submit(p1)
        #expect(queue.submit(p2) == [.drop(p1)])
        #expect(queue.finished() == [.start(p2)])
    }

    @Test func pausingTheStoryWhileItWaitsForAnAnswerTakesItOutOfTheQueue() {
        var queue = AnnouncementQueue()
        _ = queue.submit(story)
        let focus = Utterance("Stop, button.", priority: .text)
        #expect(queue.submit(focus) == [.interrupt(story), .start(focus)])
        #expect(queue.removeStory() == [.drop(story)])
        #expect(!queue.hasStory)
        #expect(queue.finished().isEmpty)
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
