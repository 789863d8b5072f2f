import ArgumentParser
import Foundation
import StoryKit
import StoryReader
import Synchronization

#if canImport(Glibc)
    import Glibc
#endif

/// `storyreader bench braille`: from a word heard to its cells marked on a braille display, along
/// the REPL's own path (the speech service's word event → Session → the braille line → BrlAPI →
/// BRLTTY → the display), the display played by BRLTTY's Virtual driver, whose `Braille` lines
/// are timed here as they arrive.
struct BrailleBenchmark: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "braille",
        abstract: helpMessages.tr("Time a word heard to its cells marked on a braille display (BRLTTY's Virtual driver; p50, p99).")
    )

    @OptionGroup var global: GlobalOptions

    @Option(help: ArgumentHelp(helpMessages.tr("Words to time.")))
    var words = 300

    @Option(help: ArgumentHelp(helpMessages.tr("Cells of the virtual display.")))
    var cells = 40

    func run() throws {
        guard let brltty = ["/usr/sbin/brltty", "/sbin/brltty", "/usr/bin/brltty"].first(where: FileManager.default.isExecutableFile(atPath:)) else {
            throw UserFailure(message: "bench braille needs BRLTTY and its Virtual driver: apt install brltty")
        }
        let library = global.loadLibrary()
        let catalog = StoryCatalog(library: library)
        guard !catalog.entries.isEmpty else { throw UserFailure(message: "no stories to read: use --stories DIR") }
        do { try EspeakEngine.shared.start() } catch { throw UserFailure(message: "\(error)") }
        let folder = FileManager.default.temporaryDirectory.appendingPathComponent("storyreader-bench-braille-\(getpid())")
        try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: folder) }
        let display = try VirtualDisplayPeer(path: folder.appendingPathComponent("display").path, cells: cells)
        // BrlAPI on a TCP port of its own (4101 + N), so that a BRLTTY already running is left alone.
        let brlapi = "127.0.0.1:\(20_000 + Int(getpid() % 20_000))"
        let process = Process()
        process.executableURL = URL(fileURLWithPath: brltty)
        process.arguments = [
            "-n", "-e", "-b", "vr", "-d", "client:" + display.path, "-x", "no", "-s", "no",
            "-A", "host=\(brlapi),auth=none", "-M", "10", "-f", "/dev/null", "-F", "/dev/null",
            "-Z", "-W", folder.path, "--start-message=", "--stop-message=",
        ]
        process.standardError = FileHandle.nullDevice
        process.standardOutput = FileHandle.nullDevice
        try process.run()
        defer {
            process.terminate()
            process.waitUntilExit()
        }
        let braille = ReplBraille(mode: .on, takesEveryKey: false, address: BrailleDisplay.Address(host: brlapi, auth: "none"))
        defer { braille.stop() }
        let deadline = monotonicNanoseconds() + 10_000_000_000
        while braille.cells == nil, monotonicNanoseconds() < deadline {
            _ = braille.takeEvents()
            usleep(10_000)
        }
        guard braille.cells != nil else { throw UserFailure(message: "BRLTTY's Virtual driver did not connect within 10 s") }

        let speech = ServiceSpeech(sink: PacedSilenceSink())
        speech.prepareVoices(["en"])
        var profile = ChildProfile(id: 1, name: "Bench", age: 6)
        profile.settings.speech.rate = SpeechSettings.rateRange.upperBound
        var session = Session(catalog: catalog, snapshot: SessionSnapshot(profiles: [profile]), profile: "Bench")
        _ = session.start()
        var samples: [Double] = []
        var stories = catalog.entries.map(\.id).makeIterator()
        while samples.count < words, let id = stories.next() {
            for effect in session.handle(.command(.read(id))) {
                _ = speech.perform(narration: effect, of: session, input: 1)
            }
            var reading = true
            while reading, samples.count < words {
                var descriptor = pollfd(fd: speech.wake.read, events: Int16(POLLIN), revents: 0)
                _ = poll(&descriptor, 1, 2000)
                let heard = monotonicNanoseconds()
                for event in speech.tick(now: heard) {
                    if case .word = event { braille.storyHeard() }
                    _ = session.handle(.narration(event))
                    if event == .finished { reading = false }
                    let before = display.received
                    let old = braille.shown
                    _ = braille.follow(session, code: .grade2, now: heard)
                    // Timed when the word changed the cells (the first word is marked as its sentence starts).
                    guard case .word = event, braille.shown != old, let arrived = display.waitForLine(after: before) else { continue }
                    samples.append(Double(arrived - heard) / 1_000_000)
                }
            }
            speech.stopStory()
        }
        print(
            "braille benchmark: \(samples.count) words heard (paced silence, \(profile.settings.speech.rate) words a minute), a \(cells)-cell display played by BRLTTY's Virtual driver, English grade 2"
        )
        print(
            String(
                format: "word heard → its cells marked on the display:  p50 %.3f ms  p99 %.3f ms  max %.3f ms",
                Percentile.of(samples, 0.5), Percentile.of(samples, 0.99), samples.max() ?? 0))
    }
}

/// The display end of BRLTTY's Virtual driver (`-d client:PATH`): answers `cells N`, and stamps
/// each `Braille` line as it arrives.
private final class VirtualDisplayPeer: Sendable {
    let path: String
    private let arrivals = LockedValue<[UInt64]>([])

    init(path: String, cells: Int) throws {
        self.path = path
        let server = socket(AF_UNIX, Int32(SOCK_STREAM.rawValue), 0)
        var address = sockaddr_un()
        address.sun_family = sa_family_t(AF_UNIX)
        let bytes = Array(path.utf8.prefix(MemoryLayout.size(ofValue: address.sun_path) - 1))
        withUnsafeMutableBytes(of: &address.sun_path) { raw in
            for (index, byte) in bytes.enumerated() { raw[index] = byte }
        }
        let bound = withUnsafePointer(to: &address) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { bind(server, $0, socklen_t(MemoryLayout<sockaddr_un>.size)) }
        }
        guard server >= 0, bound == 0, listen(server, 4) == 0 else { throw UserFailure(message: "cannot listen on \(path)") }
        let arrivals = self.arrivals
        Thread.detachNewThread {
            let connection = accept(server, nil, nil)
            guard connection >= 0 else { return }
            let hello = Array("cells \(cells)\n".utf8)
            _ = hello.withUnsafeBytes { write(connection, $0.baseAddress, $0.count) }
            var pending = [UInt8]()
            var buffer = [UInt8](repeating: 0, count: 4096)
            while true {
                let count = read(connection, &buffer, buffer.count)
                if count <= 0 { return }
                let now = monotonicNanoseconds()
                pending += buffer[0..<count]
                while let newline = pending.firstIndex(of: 0x0A) {
                    if pending[..<newline].starts(with: Array("Braille".utf8)) { arrivals.withLock { $0.append(now) } }
                    pending.removeSubrange(...newline)
                }
            }
        }
    }

    /// `Braille` lines received so far.
    var received: Int { arrivals.withLock(\.count) }

    /// When the line after the first `count` arrived, waiting up to a second for it.
    func waitForLine(after count: Int) -> UInt64? {
        let deadline = monotonicNanoseconds() + 1_000_000_000
        while monotonicNanoseconds() < deadline {
            if let time = arrivals.withLock({ $0.count > count ? $0[count] : nil }) { return time }
            usleep(50)
        }
        return nil
    }
}
