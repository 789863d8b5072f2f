import Foundation
import StoryKit

/// The read-along coach's ears in the REPL, the kiosk and `read --coach` (`Effect.listen`): the one
/// loop that takes the microphone to the coach. The ALSA capture handle is owned as every C
/// library's is (docs/architecture.md, "Owning a C library"): a `HandleOwner` named
/// `storyreader.microphone` loads the speech model, then opens the microphone (never before the
/// child pressed `r`), and reads it a tenth of a second at a time, one job per read, each feeding
/// the coach; the coach's news goes into the loop's one inbox. `stop` never waits: the job reading
/// sees it as its read returns (a tenth of a second on a real microphone), closes the device and
/// ends the owner's thread.
///
/// Privacy: the samples live in memory only, on their way to the decoder; nothing is written.
final class ReplListening: Sendable {
    /// What the microphone's thread holds: the coach (its model loaded there, first) and the
    /// capture device once opened. Touched only by the owner's jobs.
    private final class Ears {
        var coach: ReadingCoach?
        var microphone: Microphone?
        /// Chunks still fed as silence after the program stopped speaking (its last sound is
        /// still leaving the speaker and the capture device's buffer).
        var echoChunks = 0
    }

    private struct Flags {
        var stopped = false
        var programSpeaks = false
    }

    /// A tenth of a second, as a microphone gives it.
    static let chunk = ReadingCoach.sampleRate / 10
    /// After the program's own speech: 0.3 s more of the microphone is not the child's (the
    /// speaker's last samples, the capture's buffer).
    static let echoChunks = 3

    private let flags = LockedValue(Flags())
    private let owner: HandleOwner<Ears>

    /// Starts listening for `request` on the ALSA capture device `device`; `post` takes the news
    /// (from the listening threads).
    init(_ request: CoachListening, device: String, post: @escaping @Sendable (CoachNews) -> Void) {
        let owner = HandleOwner<Ears>(
            name: "storyreader.microphone", open: { Ears() },
            free: { ears in
                ears.microphone?.close()
                ears.microphone = nil
                ears.coach = nil
            })
        self.owner = owner
        let flags = self.flags
        let id = request.listening
        Self.submit(owner) { ears in
            // The model first (about a second, while "Your turn" is said): the microphone is
            // opened after it, so it does not hear the program's own words.
            do throws(ListeningProblem) {
                ears.coach = try ReadingCoach(
                    sentences: request.sentences, settings: .init(waitMilliseconds: request.waitMilliseconds)
                ) { event in
                    if !flags.withLock({ $0.stopped }) { post(.event(event, listening: id)) }
                }
                guard !flags.withLock({ $0.stopped }) else { return false }
                ears.microphone = try Microphone(device: device)
            } catch {
                post(.failed(error, listening: id))
                return false
            }
            return true
        } next: { ears in
            Self.hear(ears, flags: flags)
        }
    }

    /// Runs `first` on the owner's thread, then `next` as one job per read while it says to go on;
    /// once either says to stop, the device is closed and the thread ends (without waiting for it).
    private static func submit(_ owner: HandleOwner<Ears>, first: @escaping @Sendable (Ears) -> Bool, next: @escaping @Sendable (Ears) -> Bool) {
        do {
            try owner.submit { ears in
                if first(ears) {
                    submit(owner, first: next, next: next)
                } else {
                    owner.shutDown()
                }
            }
        } catch {
            // Shut down already (stopped as it started): nothing is open.
        }
    }

    /// One read of the microphone, fed to the coach; false once listening is over. The
    /// microphone ended (or the last word was read): the words passed over and the end are told,
    /// unless the child stopped first.
    private static func hear(_ ears: Ears, flags: LockedValue<Flags>) -> Bool {
        guard let coach = ears.coach, let microphone = ears.microphone else { return false }
        guard !flags.withLock({ $0.stopped }), !coach.isDone else { return false }
        var samples = microphone.read(chunk)
        let (stopped, speaks) = flags.withLock { ($0.stopped, $0.programSpeaks) }
        if stopped { return false }
        if samples.isEmpty {
            microphone.close()
            _ = coach.finish()
            return false
        }
        // While the program speaks (the help word in the story's voice, the tally, a key's
        // answer) and just after, the microphone hears the speaker, not the child. Those samples
        // are fed as silence rather than dropped: the coach's clock is the audio's (the silence
        // before help is counted in samples, and the events' "ms"), and a gap of silence is what
        // the decoder hears between words anyway.
        if speaks { ears.echoChunks = echoChunks }
        if speaks || ears.echoChunks > 0 {
            if !speaks { ears.echoChunks -= 1 }
            samples = [Int16](repeating: 0, count: samples.count)
        }
        coach.feed(samples)
        return true
    }

    /// The program is speaking (true) or has stopped (false): what the microphone hears meanwhile
    /// is not the child's reading. The loop's thread tells it as its speech starts and ends.
    func programSpeaks(_ speaks: Bool) {
        flags.withLock { $0.programSpeaks = speaks }
    }

    /// The coach stops listening; the microphone is closed by its thread as its read returns.
    func stop() {
        flags.withLock { $0.stopped = true }
    }
}
