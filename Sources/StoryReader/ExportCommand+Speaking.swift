import ArgumentParser
import Foundation
import StoryKit
import Synchronization

extension ExportCommand {
    /// One story into `sink` (after whatever it already holds), through the narration player
    /// that reads aloud, by one process or by several: its narration and what was said when, in
    /// milliseconds from the start of the file.
    func speak(
        _ story: Story, into sink: any PCMFileSink, settings base: SpeechSettings,
        progress: ExportProgress, waiting: ExportWorkers.Waiting? = nil
    ) throws -> (Narration, TimedNarration) {
        let messages = global.messages
        // "“The Tiny Fox”: …", French "« … » : …".
        func aboutStory(_ problem: String) -> String { messages.tr("“{title}”: {problem}", ["title": story.title, "problem": problem]) }
        let narration: Narration
        do { narration = try Narration(story: story) } catch { throw UserFailure(message: aboutStory(error.localized(messages))) }
        var settings = SpeechSettings(rate: rate ?? base.rate, pitch: pitch ?? base.pitch, volume: volume ?? base.volume, voice: voice ?? base.voice)
        // A story with a recording exports its recording unless --voice asks for eSpeak NG: one
        // process decodes it (decoding is far quicker than synthesis; workers would not help).
        let recording = voice == nil ? exportedRecording(story, narration: narration, aboutStory) : nil
        // Several processes for a long story (the same words, not quite the same samples: see
        // ExportWorkers); one for a short one, where starting them costs more than it saves.
        let wanted = recording != nil ? 1 : jobs ?? (story.wordCount >= Self.wordsForJobs ? ProcessInfo.processInfo.activeProcessorCount : 1)
        let workerCount = min(wanted, narration.items.count) - 1
        // The workers start first: their start-up overlaps this process's own and its first
        // sentences (see ExportWorkers.Team).
        let stop = StopToken()  // raised by a signal; read by the loop that joins the workers
        let team = ExportWorkers.Team(narration: narration)
        var streams: [ExportWorkers.Stream] = []
        // Ctrl-C or SIGTERM from the moment workers exist, before this process's own player does
        // (started with none, the default action ended it at once and left its part file).
        let playing = LockedValue<NarrationPlayer?>(nil)
        if workerCount > 0 {
            TerminalMode.onStopSignal {
                stop.stop()
                playing.withLock { $0 }?.send(.stop)
            }
            // An Opus or MP3 file's workers encode their own shares (on their own cores).
            let encode =
                (sink as? OpusExportFile).map { ["--opus", String($0.bitrate)] } ?? (sink as? Mp3ExportFile).map { ["--mp3", String($0.bitrate)] } ?? []
            do {
                streams = try ExportWorkers.start(
                    storyArguments: global.storyFolders.flatMap { ["--stories", $0] } + [story.id], count: workerCount,
                    settings: settings, voice: settings.voice ?? story.language, team: team, encode: encode, waiting: waiting)
            } catch {
                throw UserFailure(message: aboutStory(messages.describe(error)))
            }
        }
        defer { ExportWorkers.stop(streams) }
        if fixedShares { team.ready() }
        do {
            let resolution = try EspeakEngine.shared.resolveVoice(settings.voice ?? story.language, messages: messages)
            if let notice = resolution.notice, !quiet { FileHandle.standardError.write(Data("storyreader: \(notice)\n".utf8)) }
            settings.voice = resolution.voice
        } catch {
            throw UserFailure(message: messages.describe(error))
        }
        let events: [NarrationPlayer.Event]
        if !streams.isEmpty {
            // This process reads from the first sentence to where the team cuts the story once a
            // worker is ready; the workers take the rest.
            let heard = Mutex<[NarrationPlayer.Event]>([])
            let player = NarrationPlayer(
                narration: narration, engine: EspeakEngine.shared, sink: sink, settings: settings,
                hooks: NarrationPlayer.Hooks(onEvent: { event in
                    heard.withLock { $0.append(event) }
                    if case .word = event.kind { progress.word() }
                }), limit: team.limit)
            playing.withLock { $0 = player }
            do {
                // A stop that came before the player: it never starts (one after is its own).
                guard !stop.isStopped else { throw ExitCode(130) }
                player.start()
                let state = player.wait()
                if case .failed(let message) = state { throw UserFailure(message: player.failure(in: messages) ?? message) }
                guard state == .finished, !stop.isStopped else { throw ExitCode(130) }
                // This process's end is the story's only when no worker took a run.
                let runs = team.finish()
                let own = heard.withLock { $0 }
                if runs.allSatisfy({ $0 == nil }) {
                    events = own
                } else {
                    events =
                        try own.filter { $0.kind != .end }
                        + ExportWorkers.collect(streams, runs: runs, sink: sink, stopped: stop, onWord: { progress.word() })
                }
            } catch let exit as ExitCode {
                throw exit
            } catch {
                if let failure = error as? UserFailure { throw UserFailure(message: aboutStory(failure.message)) }
                throw UserFailure(message: aboutStory(messages.describe(error)))
            }
            if stop.isStopped { throw ExitCode(130) }
        } else {
            let heard = Mutex<[NarrationPlayer.Event]>([])
            let quiet = quiet
            let title = story.title
            let player = NarrationPlayer(
                narration: narration, engine: EspeakEngine.shared, sink: sink, settings: settings,
                hooks: NarrationPlayer.Hooks(onEvent: { event in
                    heard.withLock { $0.append(event) }
                    if case .word = event.kind { progress.word() }
                    if case .recordingUnavailable(let sentence, let problem) = event.kind, !quiet {
                        let notice = messages.tr(
                            "sentence {sentence}: {problem}: eSpeak NG reads what the recording cannot",
                            [
                                "sentence": String(sentence + 1), "problem": problem.localized(messages),
                            ])
                        FileHandle.standardError.write(
                            Data("storyreader: \(Sanitizer.visibleLines(messages.tr("“{title}”: {problem}", ["title": title, "problem": notice])))\n".utf8))
                    }
                }), recording: recording)
            // The one self-pipe for signals: SIGINT, SIGTERM or SIGHUP stop it.
            TerminalMode.onStopSignal { player.send(.stop) }
            player.start()
            let state = player.wait()
            guard state == .finished else {
                if case .failed(let message) = state { throw UserFailure(message: aboutStory(player.failure(in: messages) ?? message)) }
                throw ExitCode(130)
            }
            events = heard.withLock { $0 }
        }
        return (narration, TimedNarration(narration: narration, events: events))
    }

    /// The story's recording to export, or nil (none, or one that cannot be used: said, and
    /// eSpeak NG reads the story).
    private func exportedRecording(_ story: Story, narration: Narration, _ aboutStory: (String) -> String) -> NarrationRecording? {
        do {
            return try StoryRecording.load(for: story, narration: narration)
        } catch {
            let messages = global.messages
            if !quiet {
                let notice = messages.tr("{problem}: eSpeak NG reads the story", ["problem": error.localized(messages)])
                FileHandle.standardError.write(Data("storyreader: \(Sanitizer.visibleLines(aboutStory(notice)))\n".utf8))
            }
            return nil
        }
    }
}
