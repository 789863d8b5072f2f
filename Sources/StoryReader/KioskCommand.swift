import ArgumentParser
import Foundation
import StoryKit

/// `storyreader kiosk`: the reader locked down for a shared machine (see docs/kiosk.md).
struct KioskCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "kiosk",
        abstract: helpMessages.tr("Run locked down for a shared machine: only the PIN leaves."),
        discussion: helpMessages.tr(
            "Needs a parental PIN (storyreader pin set) and a terminal. The child gets the library (filtered by the profile's age), stories, help, and text size, reduced motion, theme and speed within 20 % of the parent's. F12 or Ctrl-] opens the PIN prompt; the right PIN opens the parent menu: leave the kiosk, switch profile, add time. See docs/kiosk.md."
        )
    )

    @OptionGroup var global: GlobalOptions

    @OptionGroup var presentation: PresentationOptions

    @OptionGroup var bedtime: BedtimeOption

    @OptionGroup var microphone: MicrophoneOptions

    @Flag(
        name: [.customLong("no-audio"), .customLong("no-speech")],
        help: ArgumentHelp(
            helpMessages.tr("No sound (--no-speech: for your own screen reader or braille display): speech is captions only (paced in real time).")))
    var noAudio = false

    @Option(help: ArgumentHelp(helpMessages.tr("Whose stories and settings (the library is filtered by the profile's age)."), valueName: "name"))
    var profile: String?

    @Option(
        help: ArgumentHelp(
            helpMessages.tr("With no key for this long, reading stops, its place is kept and the library comes back; 0 turns it off."), valueName: "seconds"))
    var idleTimeout: Double = 300

    @Option(
        help: ArgumentHelp(helpMessages.tr("Time allowed, then a screen only the PIN leaves (fractions allowed: 0.5 is 30 seconds)."), valueName: "minutes"))
    var timeLimit: Double?

    /// What "add time" in the parent menu adds (tests use a few seconds).
    @Option(help: .hidden)
    var addTimeSeconds: Double = 600
    @Flag(
        help: ArgumentHelp(
            helpMessages.tr(
                "Print what this machine locks and leaves open (SysRq, Ctrl-Alt-Del, switching consoles, tmux or screen, a terminal emulator), with the fix for each, and exit: 0 when all is locked, else 1."
            ))) var check = false

    func validate() throws {
        if idleTimeout < 0 { throw ValidationError(helpMessages.tr("--idle-timeout must be 0 (off) or more seconds")) }
        if let timeLimit, !(timeLimit > 0) { throw ValidationError(helpMessages.tr("--time-limit must be more than 0 minutes")) }
        if !(addTimeSeconds > 0) { throw ValidationError(helpMessages.tr("--add-time-seconds must be more than 0")) }
    }

    func run() throws {
        let messages = global.messages
        if check { KioskCheck.run(messages: messages) }
        guard isatty(STDIN_FILENO) == 1, TerminalMode.isInteractive() else {
            throw UserFailure(
                message: messages.tr(
                    "kiosk mode needs a terminal (standard input and output, and TERM set): start it in a terminal, not from a pipe, a script or TERM=dumb"))
        }
        let database = try StoreCommandSupport.openStore(global)
        // Issue 43: a clock the last sync found ahead is said once, before this start's sync.
        let clockIsAhead = database.clockIsAhead()
        // Issue 13: a kiosk joined to a site syncs in the background; otherwise nothing starts.
        let backgroundSync = BackgroundSync.start(dataDirectory: global.dataDirectory(), store: database)
        defer { backgroundSync?.stop() }
        do {
            guard try database.isPINSet() else {
                throw UserFailure(
                    message: messages.tr(
                        "no parental PIN is set, so nobody could leave the kiosk: set one with 'storyreader pin set', then start the kiosk again"))
            }
        } catch let error as StoreError {
            throw StoreCommandSupport.fail(error, messages)
        }
        let runner = try SessionRunner(global: global, presentation: presentation, store: database)
        // A kiosk always has a terminal: its library is read off the loop, the first screen drawn at once.
        let library = runner.libraryBeforeTheLoop()
        if let profile, !runner.snapshot.profiles.contains(where: { $0.name.lowercased() == profile.lowercased() }) {
            let names = runner.snapshot.profiles.map(\.name)
            let values = ["name": Sanitizer.sanitizeLine(profile), "names": names.joined(separator: ", ")]
            throw UserFailure(
                message: names.isEmpty
                    ? messages.tr("there is no profile called {name}: make one first in storyreader", values)
                    : messages.tr("there is no profile called {name}: choose one of {names}", values))
        }
        var session = runner.session(library: library, profile: profile)
        bedtime.apply(to: &session)
        let clock = SystemMonotonicClock()
        session.startKiosk(
            KioskOptions(idleTimeout: idleTimeout, timeLimit: timeLimit.map { $0 * 60 }, addedTime: addTimeSeconds),
            now: clock.now())
        // Spoken like the REPL: the audio device ($STORYREADER_AUDIO_DEVICE, else 'default'), paced silence with one notice.
        let shell = try runner.shell(session, library: library, noAudio: noAudio, device: nil, kiosk: true, messages: session.state.messages)
        microphone.apply(to: shell)
        shell.kiosk = KioskHooks(clock: clock)
        runner.readLibrary(into: shell)

        // The log for parents: a row now, completed at the end (a killed kiosk leaves it open).
        let logID = try? database.beginKioskSession(profile: session.state.profileName ?? ChildProfile.guest.name)
        var status: Int32 = 1
        var reason = "error"
        defer {
            if let logID, let kiosk = shell.session.state.kiosk {
                try? database.updateKioskSession(
                    id: logID, profiles: kiosk.profilesUsed, storiesRead: kiosk.storiesRead,
                    blockedKeys: kiosk.blockedKeys, endReason: reason)
            }
        }
        status = try shell.run { session in
            var effects = session.start() + session.kioskOpening()
            if clockIsAhead {
                effects.insert(.speak(Utterance(StoryStore.clockNotice(session.state.messages), priority: .message)), at: min(1, effects.count))
            }
            return effects
        }
        let kiosk = shell.session.state.kiosk
        reason = status >= 128 ? "signal \(status - 128)" : kiosk?.leftWithPIN == true ? "pin" : "input closed"
        if status != 0 {
            try? database.updateKioskSession(
                id: logID ?? -1, profiles: kiosk?.profilesUsed ?? [], storiesRead: kiosk?.storiesRead ?? [],
                blockedKeys: kiosk?.blockedKeys ?? 0, endReason: reason)
            Foundation.exit(status)
        }
    }
}
