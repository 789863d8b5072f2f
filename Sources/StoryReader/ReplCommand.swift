import ArgumentParser
import Foundation
import StoryKit

/// `storyreader` (no command): the accessible REPL.
struct ReplCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "repl",
        abstract: helpMessages.tr("Browse, choose and listen, with every step spoken and captioned (the default)."),
        discussion: helpParagraphs(
            helpMessages.tr(
                "On a terminal: arrows or Tab move, Enter or Space choose, Escape goes back, h jumps to the next heading, a letter to the next item starting with it, ? opens help, and : opens a command line (Up for history, Tab to complete)."
            ),
            helpMessages.tr(
                "Without a terminal (a pipe, a script, or TERM=dumb): one command per line, with or without ':' — next, prev, activate, back, home, heading, where, read STORY, pause, resume, stop, faster, slower, set NAME VALUE, profile NAME, help, learn, quit; and wait [N] to let the story go on (to its end, or N sentences). Every utterance is printed as one caption line; at the end of the input a story being read finishes."
            ),
            helpMessages.tr(
                "Bookmarks: while reading, b keeps the word being heard and n then types a note for it; Shift B lists the story's bookmarks (Enter reads from one, Delete removes it), and a soft tone is heard when reading passes one. In scripts: bookmark, bookmark note TEXT, bookmarks, and bookmarks all."
            ),
            helpMessages.tr(
                "With a braille display through BRLTTY (--braille): the focused item, or the sentence being read in the child's braille code with the word being heard marked by dots 7 and 8; a routing key on a word goes on reading from it, and the pan keys move through the sentence and on to the next."
            ))
    )

    @OptionGroup var global: GlobalOptions

    @OptionGroup var presentation: PresentationOptions

    @OptionGroup var bedtime: BedtimeOption

    @OptionGroup var microphone: MicrophoneOptions

    @Flag(
        name: [.customLong("no-audio"), .customLong("no-speech")],
        help: ArgumentHelp(
            helpMessages.tr(
                "No sound (--no-speech: for your own screen reader or braille display): speech is captions only, the cursor on the focus, paced in real time on a terminal; without a terminal, time passes only at 'wait'."
            )))
    var noAudio = false

    @Option(
        help: ArgumentHelp(
            helpMessages.tr(
                "ALSA device to play on (default: $STORYREADER_AUDIO_DEVICE, else 'default'). Without one, reading goes on silently at speaking pace, with one notice."
            ), valueName: "name"))
    var device: String?

    @Option(help: ArgumentHelp(helpMessages.tr("Start as this profile."), valueName: "name"))
    var profile: String?

    func run() throws {
        // The same database as the profile, pin, history and list commands. One that cannot be
        // written (a full disk, a read-only file) is read: the REPL starts, says why, and keeps
        // the child's reads, places and favourites for the next start that can write them.
        let store = try StoreCommandSupport.openStore(global, readOnly: true, keepingReads: true)
        // Issue 43: a clock the last sync found ahead is said once, before this start's sync.
        let clockIsAhead = store.clockIsAhead()
        // Issue 13: a kiosk joined to a site syncs in the background; otherwise nothing starts.
        let backgroundSync = BackgroundSync.start(dataDirectory: global.dataDirectory(), store: store)
        defer { backgroundSync?.stop() }
        let runner = try SessionRunner(global: global, presentation: presentation, store: store)
        let library = runner.libraryBeforeTheLoop()
        // The profile form's Voice picker offers the voices installed (of the child's languages).
        var session = runner.session(
            library: library, profile: profile,
            voices: ((try? EspeakEngine.shared.voices())?.languages ?? []).map(\.selector))
        bedtime.apply(to: &session)
        let shell = try runner.shell(session, library: library, noAudio: noAudio, device: device, messages: session.state.messages)
        microphone.apply(to: shell)
        runner.readLibrary(into: shell)
        let status = try shell.run { session in
            var effects = session.start()
            if let notice = store.readOnlyNotice(session.state.messages, keepingReads: true) {
                effects.insert(.speak(Utterance(Sanitizer.sanitizeLine(notice), priority: .message)), at: min(1, effects.count))
                session.changesKeptWereTold()
            }
            if clockIsAhead {
                effects.insert(.speak(Utterance(StoryStore.clockNotice(session.state.messages), priority: .message)), at: min(1, effects.count))
            }
            return effects
        }
        if status != 0 { Foundation.exit(status) }
    }

    /// The speech engine started and the sink chosen as `read` chooses it (paced silence for
    /// `--no-audio`, since a terminal session runs in real time).
    /// `messages`: the language of the notice and of the engine's error.
    static func openAudio(noAudio: Bool, device: String?, messages: MessageCatalog, warn: ((String) -> Void)? = nil) throws -> ReplAudio {
        do {
            try EspeakEngine.shared.start()
        } catch {
            throw UserFailure(message: messages.describe(error))
        }
        let output = AudioOutput.choose(noAudio: noAudio, pacedWithoutAudio: true, deviceOption: device, messages: messages)
        if let notice = output.notice { warn?(notice) }
        return ReplAudio(sink: output.sink, notice: output.notice)
    }
}
