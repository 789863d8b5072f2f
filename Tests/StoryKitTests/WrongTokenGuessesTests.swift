import Foundation
import Testing

@testable import StoryKit

/// The server's count of wrong kiosk tokens per address (issue 43): slowed past the limit, for
/// that address only, until its window ends, in a table of bounded size.
@Suite struct WrongTokenGuessesTests {
    @Test func anAddressPastTheLimitWaitsUntilItsWindowEnds() {
        let guesses = WrongTokenGuesses(limit: 3, windowSeconds: 60, capacity: 100)
        for second in 0..<3 {
            #expect(guesses.retryAfter("10.0.0.1", now: 1000 + Double(second)) == nil)
            guesses.failed("10.0.0.1", now: 1000 + Double(second))
        }
        #expect(guesses.retryAfter("10.0.0.1", now: 1002.5) == 58)
        #expect(guesses.retryAfter("10.0.0.1", now: 1059.5) == 1)
        #expect(guesses.retryAfter("10.0.0.2", now: 1002.5) == nil)
        // The window ended: the address starts again from nothing.
        #expect(guesses.retryAfter("10.0.0.1", now: 1060) == nil)
        #expect(guesses.failed("10.0.0.1", now: 1061) == 1)
    }

    @Test func failuresInAnEndedWindowStartANewOne() {
        let guesses = WrongTokenGuesses(limit: 3, windowSeconds: 60, capacity: 100)
        guesses.failed("a", now: 0)
        guesses.failed("a", now: 59)
        #expect(guesses.failed("a", now: 61) == 1)
        #expect(guesses.retryAfter("a", now: 62) == nil)
    }

    @Test func theTableNeverHoldsMoreThanItsCapacity() {
        let guesses = WrongTokenGuesses(limit: 2, windowSeconds: 60, capacity: 50)
        // A blocked address stays counted while others, older, make room.
        guesses.failed("blocked", now: 500)
        guesses.failed("blocked", now: 500)
        for index in 0..<1000 { guesses.failed("10.1.\(index / 256).\(index % 256)", now: 501 + Double(index) / 100) }
        #expect(guesses.count == 50)
        // The oldest window went first: "blocked" was dropped once 50 newer ones arrived.
        #expect(guesses.retryAfter("blocked", now: 512) == nil)
        // Ended windows are dropped before any live one.
        let ended = WrongTokenGuesses(limit: 2, windowSeconds: 10, capacity: 3)
        ended.failed("old", now: 0)
        ended.failed("live1", now: 15)
        ended.failed("live2", now: 16)
        ended.failed("new", now: 17)
        #expect(ended.count == 3)
        ended.failed("live1", now: 18)
        #expect(ended.retryAfter("live1", now: 18) == 7)
    }
}
