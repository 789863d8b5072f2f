import Foundation
import StoryKit
import StoryKitTestSupport
import Testing

@testable import StoryReader

#if canImport(Glibc)
    import Glibc
#endif

/// The loop has one inbox and one door (issue 42): keys, script lines, the speech service's news,
/// time, signals and work done off the loop are all messages in one queue, and each reaches the
/// Session through `ReplShell.update`, in the order it came — whichever thread sent it.
@Suite(.serialized)
struct LoopInboxTests {
    @Test func everyKindOfMessageReachesTheSessionThroughTheOneDoorInTheOrderItCame() throws {
        let database = try TemporaryDatabase("inbox")
        defer { database.remove() }
        let store = try database.open()
        let library = StoryLibrary.load(folders: [TestPaths.stories.path])
        try EspeakEngine.shared.start()
        let sink = ManualClockSink()
        let shell = ReplShell(
            session: Session(catalog: StoryCatalog(library: library), snapshot: try store.sessionSnapshot()),
            store: store, interactive: false, presentation: try PresentationOptions.parse([]), scaling: .none,
            audio: ReplAudio(sink: sink))
        var captions: [String] = []
        shell.printCaption = {
            captions.append($0)
            return true
        }
        var reached: [Input] = []
        shell.observeUpdate = { reached.append($0) }

        // A script's line, then news from other threads: time (a kiosk's clock), a resize signal.
        shell.send(.line("read lighthouse"))
        #expect(reached == [.command(.read("lighthouse"))])
        let others = DispatchGroup()
        let inbox = shell.inbox
        DispatchQueue.global().async(group: others) {
            inbox.send(.input(.tick(7)))
            inbox.send(.signal(SIGWINCH))
            inbox.send(.input(.resize(columns: 60, rows: 20)))
        }
        others.wait()
        // The speech service reads the story on its own thread: the sink's clock moves until
        // the first word is heard, and what it reported comes in through the inbox too.
        let deadline = Date().addingTimeInterval(30)
        while !reached.contains(where: { if case .narration(.word) = $0 { true } else { false } }), Date() < deadline {
            sink.advance(milliseconds: 50)
            var wake = pollfd(fd: shell.inbox.wake.read, events: Int16(POLLIN), revents: 0)
            _ = poll(&wake, 1, 50)
            shell.deliverInbox()
        }
        shell.send(.keys([.space]))

        let sent = reached.filter { input in
            if case .narration = input { return false }
            return true
        }
        // In order: the line, the three messages of the other thread (the signal became the
        // terminal's size), then the key (the REPL tells the time first, for type-ahead).
        #expect(sent.count == 6)
        #expect(sent.first == .command(.read("lighthouse")))
        #expect(sent.dropFirst().first == .tick(7))
        if case .resize = sent[2] {} else { Issue.record("the signal reached the Session as \(sent[2])") }
        #expect(sent[3] == .resize(columns: 60, rows: 20))
        if case .tick = sent[4] {} else { Issue.record("the key's time reached the Session as \(sent[4])") }
        #expect(sent[5] == .key(.space))
        // The story's news: its first sentence started before its first word was heard, both
        // after the read command and before the key typed after them.
        let started = try #require(reached.firstIndex(of: .narration(.sentenceStarted(0))))
        let word = try #require(reached.firstIndex { if case .narration(.word) = $0 { true } else { false } })
        let key = try #require(reached.firstIndex(of: .key(.space)))
        #expect(0 < started && started < word && word < key)
        // The key paused the story: the Session answered it, and the caption says so.
        #expect(shell.session.state.reader?.status == .paused)
        #expect(captions.contains { $0.hasPrefix("Paused at") })
        shell.speech.silence()
    }
}
