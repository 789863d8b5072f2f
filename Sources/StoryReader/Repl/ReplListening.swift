import Foundation
import StoryKit

/// The read-along coach's ears in the REPL, the kiosk and `read` on a terminal (`Effect.listen`):
/// a thread of its own loads the speech model, opens the microphone (never before the child
/// pressed `r`), and feeds it to the coach a tenth of a second at a time; the coach's news goes
/// into the loop's one inbox. `stop` closes the microphone: at once when the thread is between
/// reads, else as the read it waits in returns (a tenth of a second on a real microphone).
///
/// Privacy: the samples live in memory only, on their way to the decoder; nothing is written.
final class ReplListening: Sendable {
    private let stopped = LockedValue(false)

    /// Starts listening for `request` on the ALSA capture device `device`; `post` takes the news
    /// (from the listening threads).
    init(_ request: CoachListening, device: String, post: @escaping @Sendable (CoachNews) -> Void) {
        let stopped = self.stopped
        let id = request.listening
        let thread = Thread {
            // The model first (about a second, while "Your turn" is said): the microphone is
            // opened after it, so it does not hear the program's own words.
            let coach: ReadingCoach
            do throws(ListeningProblem) {
                coach = try ReadingCoach(
                    sentences: request.sentences, settings: .init(waitMilliseconds: request.waitMilliseconds)
                ) { event in
                    if !stopped.withLock({ $0 }) { post(.event(event, listening: id)) }
                }
            } catch {
                post(.failed(error, listening: id))
                return
            }
            guard !stopped.withLock({ $0 }) else { return }
            let microphone: Microphone
            do throws(ListeningProblem) {
                microphone = try Microphone(device: device)
            } catch {
                post(.failed(error, listening: id))
                return
            }
            let chunk = ReadingCoach.sampleRate / 10
            while !stopped.withLock({ $0 }), !coach.isDone {
                let samples = microphone.read(chunk)
                if samples.isEmpty || stopped.withLock({ $0 }) { break }
                coach.feed(samples)
            }
            microphone.close()
            // The microphone ended (or the last word was read): the words passed over and the
            // end are told, unless the child stopped first.
            if !stopped.withLock({ $0 }) { _ = coach.finish() }
        }
        thread.name = "storyreader.listening"
        thread.start()
    }

    /// The coach stops listening; the microphone is closed by its thread.
    func stop() {
        stopped.withLock { $0 = true }
    }
}
