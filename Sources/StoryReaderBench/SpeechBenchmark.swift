import ArgumentParser
import Foundation
import StoryKit
import StoryReader
import Synchronization

/// `storyreader bench speech`: the read-aloud engine's figures, each beside its anchor.
struct SpeechBenchmark: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "speech",
        abstract: helpMessages.tr("Time the speech engine: first audio, stopping, WAV export against espeak-ng, peak memory, word alignment."),
        discussion: helpMessages.tr(
            "Build with -c release for real figures. Needs Tests/Fixtures/corpus (or --corpus) and the espeak-ng command for the anchors."))

    @Option(help: ArgumentHelp(helpMessages.tr("The corpus folder (default: Tests/Fixtures/corpus of the package).")))
    var corpus: String?

    @Option(help: ArgumentHelp(helpMessages.tr("Utterances for the first-audio latency.")))
    var utterances = 300

    @Option(help: ArgumentHelp(helpMessages.tr("The story for the WAV and memory figures (its id in the corpus).")))
    var story = "17-the-cat-that-walked-by-himself"

    @Flag(help: ArgumentHelp(helpMessages.tr("Skip the corpus-wide word alignment (about a minute).")))
    var skipAlignment = false

    func run() throws {
        guard let corpus = corpusFolder() else {
            throw UserFailure(message: "no corpus folder: pass --corpus DIR")
        }
        let library = StoryLibrary.load(folders: [corpus], cache: nil, missingFoldersAreProblems: true)
        let stories = library.entries.compactMap { try? library.loadStory($0) }
        guard let longest = stories.first(where: { $0.id == story }) else {
            throw UserFailure(message: "no story '\(story)' in \(corpus)")
        }
        let espeak = ["/usr/bin/espeak-ng", "/usr/local/bin/espeak-ng"].first { FileManager.default.isExecutableFile(atPath: $0) }
        print(
            "speech benchmark: \(ProcessInfo.processInfo.activeProcessorCount) cores, \(stories.count) corpus stories, eSpeak buffer \(EspeakEngine.bufferMilliseconds) ms"
        )

        // 1. Peak RSS and wall time of `read --wav` on the longest story, in a child process (first,
        //    so that RUSAGE_CHILDREN's peak is that child's).
        let folder = URL(fileURLWithPath: NSTemporaryDirectory()).appendingPathComponent("storyreader-bench-speech-\(getpid())")
        try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: folder) }
        let ourWAV = folder.appendingPathComponent("ours.wav").path
        let readArguments = ["read", "--stories", corpus, story, "--wav", ourWAV]
        let firstRead = try timeProcess(executablePath(), readArguments)
        var usage = rusage()
        getrusage(RUSAGE_CHILDREN.rawValue, &usage)
        print(
            String(
                format: "peak RSS of 'storyreader read %@ --wav' (%d words): %.1f MB (aim ≤ 40 MB)",
                story, longest.wordCount, Double(usage.ru_maxrss) / 1024))
        let noAudioArguments = ["read", "--stories", corpus, story, "--no-audio", "--events", "json"]
        _ = try timeProcess(executablePath(), noAudioArguments, discardOutput: true)
        getrusage(RUSAGE_CHILDREN.rawValue, &usage)
        print(String(format: "peak RSS of either run, also 'read --no-audio --events json': %.1f MB", Double(usage.ru_maxrss) / 1024))

        // 2. read --wav against espeak-ng -w -f, wall time (median of 5 runs each, interleaved, after a first run).
        if let espeak {
            let textFile = folder.appendingPathComponent("story.txt")
            try longest.text.write(to: textFile, atomically: true, encoding: .utf8)
            let referenceWAV = folder.appendingPathComponent("reference.wav").path
            _ = firstRead
            var ours: [Double] = []
            var theirs: [Double] = []
            var oursCPU: [Double] = []
            var theirsCPU: [Double] = []
            for _ in 0..<5 {
                var before = childCPUSeconds()
                ours.append(try timeProcess(executablePath(), readArguments))
                oursCPU.append(childCPUSeconds() - before)
                before = childCPUSeconds()
                theirs.append(try timeProcess(espeak, ["-w", referenceWAV, "-s", "140", "-p", "55", "-a", "80", "-v", "en", "-f", textFile.path]))
                theirsCPU.append(childCPUSeconds() - before)
            }
            let oursMedian = Percentile.median(ours)
            let theirsMedian = Percentile.median(theirs)
            print(
                String(
                    format: "read --wav CPU time (user+sys): %.3f s; espeak-ng -w -f: %.3f s; ratio %.2f (less sensitive to other load than wall time)",
                    Percentile.median(oursCPU), Percentile.median(theirsCPU), Percentile.median(oursCPU) / Percentile.median(theirsCPU)))
            let ourSize = (try? FileManager.default.attributesOfItem(atPath: ourWAV)[.size] as? Int) ?? 0
            let theirSize = (try? FileManager.default.attributesOfItem(atPath: referenceWAV)[.size] as? Int) ?? 0
            print(
                String(
                    format: "read --wav: %.3f s; espeak-ng -w -f: %.3f s; ratio %.2f (aim ≤ 1.1); audio %.1f s vs %.1f s",
                    oursMedian, theirsMedian, oursMedian / theirsMedian,
                    Double(ourSize - 44) / 2 / 22050, Double(theirSize - 44) / 2 / 22050))
        } else {
            print("read --wav against espeak-ng: skipped (no espeak-ng command)")
        }

        // 3. Request → first PCM sample, in-process, against spawning espeak-ng.
        let engine = EspeakEngine.shared
        try engine.start()
        let sentences = stories.filter { $0.language == "en" }.flatMap(\.sentences).map(\.text).filter { $0.count > 20 }
        var settings = SpeechSettings.storyDefaults
        settings.voice = "en"
        var latencies: [Double] = []
        for index in 0..<utterances {
            let text = sentences[index % max(1, sentences.count)]
            let firstSample = Mutex<ContinuousClock.Instant?>(nil)
            let start = ContinuousClock.now
            _ = try engine.synthesize(SpeechUtterance(text: text, settings: settings), stop: nil) { chunk in
                if !chunk.samples.isEmpty { firstSample.withLock { if $0 == nil { $0 = .now } } }
                return .proceed
            }
            if let first = firstSample.withLock({ $0 }) { latencies.append(milliseconds(first - start)) }
        }
        print(
            String(
                format: "request → first PCM sample over %d utterances: p50 %.3f ms, p99 %.3f ms (aim p50 ≤ 2 ms, p99 ≤ 10 ms)",
                latencies.count, Percentile.of(latencies, 0.5), Percentile.of(latencies, 0.99)))
        if let espeak {
            var spawns: [Double] = []
            for index in 0..<20 {
                spawns.append(try timeToFirstByte(espeak, ["--stdout", "-s", "140", "-v", "en", sentences[index % sentences.count]]))
            }
            print(
                String(
                    format: "anchor: spawning espeak-ng → first audio byte on stdout: p50 %.1f ms, p99 %.1f ms (20 spawns)",
                    Percentile.of(spawns, 0.5), Percentile.of(spawns, 0.99)))
        }

        // 4. Stop request → synthesis stopped (callback returns 1), on a whole story as one utterance.
        var stopLatencies: [Double] = []
        var extraSamples: [Int] = []
        for _ in 0..<50 {
            let token = StopToken()
            let requested = Mutex<ContinuousClock.Instant?>(nil)
            let lastCall = Mutex<ContinuousClock.Instant?>(nil)
            let samplesAfter = Atomic<Int>(0)
            let chunks = Atomic<Int>(0)
            _ = try engine.synthesize(SpeechUtterance(text: longest.text, settings: settings), stop: token) { chunk in
                if requested.withLock({ $0 }) != nil {
                    samplesAfter.add(chunk.samples.count, ordering: .relaxed)
                }
                lastCall.withLock { $0 = .now }
                if chunks.add(1, ordering: .relaxed).newValue == 20 {
                    // Another thread asks for the stop, as the terminal would.
                    let asked = DispatchSemaphore(value: 0)
                    Thread.detachNewThread {
                        requested.withLock { $0 = .now }
                        token.stop()
                        asked.signal()
                    }
                    asked.wait()
                }
                return .proceed
            }
            let stopped = ContinuousClock.now
            if let requestedAt = requested.withLock({ $0 }) {
                stopLatencies.append(milliseconds(stopped - requestedAt))
                extraSamples.append(samplesAfter.load(ordering: .relaxed))
            }
        }
        print(
            String(
                format:
                    "stop request → synthesis stopped (espeak_Synth returned): p50 %.3f ms, p99 %.3f ms; samples delivered after the request: max %d (aim ≤ 1 ms)",
                Percentile.of(stopLatencies, 0.5), Percentile.of(stopLatencies, 0.99), extraSamples.max() ?? 0))

        // 5. Stop request → silence at the device, through the player.
        let narration = try Narration(story: longest)
        let output = AudioOutput.open(device: ALSASink.deviceName(option: nil))
        let deviceName =
            output.sink is ALSASink ? "ALSA device '\(ALSASink.deviceName(option: nil))'" : "paced silence (no audio device: \(output.notice ?? ""))"
        output.sink.drop()
        var silenceLatencies: [Double] = []
        var heardAfter: [Double] = []
        for round in 0..<5 {
            let sink = output.sink
            let heard = Atomic<Int>(0)
            let player = NarrationPlayer(
                narration: narration, engine: engine, sink: sink, settings: settings,
                hooks: .init(onEvent: { event in if case .word = event.kind { heard.add(1, ordering: .relaxed) } }))
            player.start(sentence: round * 3)
            while heard.load(ordering: .relaxed) < 4 { usleep(1_000) }
            usleep(UInt32(50_000 + round * 37_000))
            let playedAtRequest = sink.framesPlayed
            let start = ContinuousClock.now
            player.send(.stop)
            player.wait()
            silenceLatencies.append(milliseconds(.now - start))
            heardAfter.append(Double(sink.framesPlayed - playedAtRequest) / Double(max(1, sink.bufferFrames)))
        }
        print(
            String(
                format:
                    "stop request → silence at the device (%@, buffer %d frames = %.0f ms): p50 %.2f ms; audio heard after the request: max %.2f buffers (aim ≤ 1)",
                deviceName, output.sink.bufferFrames, Double(output.sink.bufferFrames) * 1000 / 22050,
                Percentile.of(silenceLatencies, 0.5), heardAfter.max() ?? 0))
        try? output.sink.close()

        // 6. Word alignment over the whole corpus.
        if !skipAlignment {
            var total = NarrationAlignment()
            var perLanguage: [String: NarrationAlignment] = [:]
            let catalog = try engine.voices()
            for story in stories {
                guard let narration = try? Narration(story: story) else { continue }
                var settings = SpeechSettings.storyDefaults
                settings.voice = catalog.resolve(story.language).voice
                let report = try NarrationAlignment.measure(narration, engine: engine, settings: settings)
                total = total + report
                perLanguage[story.language, default: NarrationAlignment()] = perLanguage[story.language, default: NarrationAlignment()] + report
            }
            print("word alignment, whole corpus (\(stories.count) stories): \(total)")
            for (language, report) in perLanguage.sorted(by: { $0.key < $1.key }) { print("  \(language): \(report)") }
        }
        var status = rusage()
        getrusage(RUSAGE_SELF.rawValue, &status)
        print(String(format: "this benchmark process's own peak RSS: %.1f MB", Double(status.ru_maxrss) / 1024))
    }

    private func corpusFolder() -> String? {
        if let corpus { return corpus }
        var directory = URL(fileURLWithPath: CommandLine.arguments[0]).resolvingSymlinksInPath().deletingLastPathComponent()
        for _ in 0..<6 {
            let candidate = directory.appendingPathComponent("Tests/Fixtures/corpus")
            if FileManager.default.fileExists(atPath: directory.appendingPathComponent("Package.swift").path),
                FileManager.default.fileExists(atPath: candidate.path)
            {
                return candidate.path
            }
            directory.deleteLastPathComponent()
        }
        return nil
    }

    /// The program that reads stories (`storyreader`, beside this one).
    private func executablePath() -> String {
        BundledStories.sibling("storyreader").path
    }

    private func timeProcess(_ path: String, _ arguments: [String], discardOutput: Bool = true) throws -> Double {
        let process = Process()
        process.executableURL = URL(fileURLWithPath: path)
        process.arguments = arguments
        process.standardOutput = FileHandle.nullDevice
        process.standardError = FileHandle.nullDevice
        let start = ContinuousClock.now
        try process.run()
        process.waitUntilExit()
        guard process.terminationStatus == 0 else {
            throw UserFailure(message: "\(path) \(arguments.joined(separator: " ")) failed (\(process.terminationStatus))")
        }
        return milliseconds(.now - start) / 1000
    }

    private func timeToFirstByte(_ path: String, _ arguments: [String]) throws -> Double {
        let process = Process()
        process.executableURL = URL(fileURLWithPath: path)
        process.arguments = arguments
        let pipe = Pipe()
        process.standardOutput = pipe
        process.standardError = FileHandle.nullDevice
        let start = ContinuousClock.now
        try process.run()
        _ = pipe.fileHandleForReading.availableData
        let first = ContinuousClock.now
        _ = pipe.fileHandleForReading.readDataToEndOfFile()
        process.waitUntilExit()
        return milliseconds(first - start)
    }
}

/// CPU seconds (user + system) of every child waited for so far.
func childCPUSeconds() -> Double {
    var usage = rusage()
    getrusage(RUSAGE_CHILDREN.rawValue, &usage)
    return Double(usage.ru_utime.tv_sec + usage.ru_stime.tv_sec) + Double(usage.ru_utime.tv_usec + usage.ru_stime.tv_usec) / 1e6
}

private func milliseconds(_ duration: Duration) -> Double {
    Double(duration.components.seconds) * 1000 + Double(duration.components.attoseconds) * 1e-15
}
