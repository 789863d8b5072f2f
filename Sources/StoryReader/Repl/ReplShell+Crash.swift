import Foundation
import StoryKit

#if canImport(Glibc)
    import Glibc
#endif

/// The place a crash keeps: the sentence being heard, prepared for `CrashGuard` each time it
/// changes, so that a crash (which cannot write the database) leaves it where the next start finds it.
struct CrashPlace: Equatable {
    var profileID: Int64
    var story: String
    var sentence: Int
    var language: String
}

extension ReplShell {
    /// Prepares the place and the message again when the sentence heard, the story, the child or
    /// the interface's language changed (a few times a minute: each sentence).
    func keepPlaceForCrash() {
        var place: CrashPlace?
        if let reader = session.state.reader, reader.status == .playing || reader.status == .paused,
            session.state.profileName != nil, let id = session.state.profile.id
        {
            place = CrashPlace(profileID: id, story: reader.story.id, sentence: reader.sentence, language: session.state.language)
        }
        if place != crashPlace {
            crashPlace = place
            let record = place.flatMap { store.crashRecord(.savePosition(profileID: $0.profileID, story: $0.story, sentence: $0.sentence)) }
            CrashGuard.prepare(place: record, messages: session.state.messages)
        }
        if let trigger = crashTrigger, let place, place.sentence >= trigger.sentence { trigger.crash() }
    }
}

/// Tests only (README, "Testing a crash"; never in the help a user reads):
/// `STORYREADER_TEST_CRASH=SIGSEGV:3` makes the reader crash as sentence 3 is heard, to prove that
/// a crash keeps the place and restores the terminal. SIGSEGV is a real fault (a write to address
/// 16), SIGABRT a real `abort()`, SIGILL a real trap (Swift's `fatalError`); SIGBUS, SIGFPE and
/// SIGTRAP are raised.
struct CrashTrigger {
    let signal: Int32
    let sentence: Int

    init?(_ text: String?) {
        let names: [String: Int32] = ["SIGSEGV": SIGSEGV, "SIGBUS": SIGBUS, "SIGILL": SIGILL, "SIGTRAP": SIGTRAP, "SIGABRT": SIGABRT, "SIGFPE": SIGFPE]
        guard let parts = text?.split(separator: ":"), parts.count == 2, let signal = names[String(parts[0])], let sentence = Int(parts[1]) else {
            return nil
        }
        self.signal = signal
        self.sentence = sentence
    }

    func crash() {
        switch signal {
        case SIGSEGV: UnsafeMutablePointer<Int>(bitPattern: 16)!.pointee = 1
        case SIGABRT: abort()
        case SIGILL: fatalError("STORYREADER_TEST_CRASH")
        default: raise(signal)
        }
    }
}
