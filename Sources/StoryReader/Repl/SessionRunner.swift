import Foundation
import StoryKit

/// The one way a session is set up for the REPL, the kiosk and `read`: the store's snapshot,
/// the terminal asked what it can draw, the Session in the run's languages with the presentation
/// options applied, and the shell that runs it with its audio and braille display. Each command
/// adds only what is its own (the kiosk's lock, `read`'s story and speech overrides).
struct SessionRunner {
    let global: GlobalOptions
    let presentation: PresentationOptions
    let store: StoryStore
    let snapshot: SessionSnapshot
    /// A terminal on both ends (else commands come one a line and captions are printed).
    let interactive: Bool
    let capabilities: TerminalCapabilities

    /// Reads `store`'s snapshot (a failure is the user's error, in the run's language) and, on a
    /// terminal, asks it once, before raw mode, what it can draw large (never under tmux/screen).
    /// `script`: lines and captions even on a terminal (standard output holds a script's events).
    init(global: GlobalOptions, presentation: PresentationOptions, store: StoryStore, script: Bool = false) throws {
        self.global = global
        self.presentation = presentation
        self.store = store
        do {
            snapshot = try store.sessionSnapshot()
        } catch {
            throw StoreCommandSupport.fail(error, global.messages)
        }
        interactive = !script && TerminalMode.isInteractive()
        capabilities = interactive ? TerminalCapabilities.detect() : .none
    }

    /// The session on `library`, as `profile` (nil: the session chooses), sized to the terminal.
    /// It holds `stories` already read in; the others are read off the loop when first needed.
    /// No library: it is being read off the loop (`ReplShell.loadLibrary`).
    func session(library: StoryLibrary?, profile: String?, voices: [String] = [], stories: [Story] = []) -> Session {
        let size = TerminalMode.size()
        var options = global.languages(SessionOptions(columns: size.columns, rows: size.rows, textScaling: capabilities.scaling))
        options.voices = voices
        if let library { store.storyTitles.know(library.entries.map { ($0.id, $0.title) }) }
        var session = Session(
            catalog: library.map { StoryCatalog(entries: $0.entries, stories: stories) } ?? .loading, snapshot: snapshot,
            options: options, profile: profile, languages: Catalogs.languages)
        presentation.apply(to: &session)
        return session
    }

    /// The library read before the loop: by a script (its transcript does not depend on when the
    /// library came). On a terminal nil: `readLibrary(into:)` reads it off the loop, the first
    /// screen drawn at once (a cold start on 10,000 stories takes seconds).
    func libraryBeforeTheLoop() -> StoryLibrary? {
        interactive ? nil : global.loadLibrary()
    }

    /// Reads the library off the loop for `shell`, unless it was read before the loop.
    func readLibrary(into shell: ReplShell) {
        guard shell.library == nil else { return }
        let (folders, named) = global.storyFolderPaths()
        let cache = global.storyCache()
        shell.loadLibrary { StoryLibrary.load(folders: folders, cache: cache, missingFoldersAreProblems: named) }
    }

    /// The shell that runs `session`. Speech through eSpeak NG onto the audio device (or paced
    /// silence); --no-audio on a terminal: paced silence; --no-audio without a terminal: virtual
    /// time (scripts, transcripts). `warn`: where the audio's notice goes besides the session.
    func shell(
        _ session: Session, library: StoryLibrary?, noAudio: Bool, device: String?, kiosk: Bool = false,
        messages: MessageCatalog, warn: ((String) -> Void)? = nil
    ) throws -> ReplShell {
        let clock: SpeechClock = noAudio && !interactive ? .virtual : .paced
        let audio = clock == .virtual ? nil : try ReplCommand.openAudio(noAudio: noAudio, device: device, messages: messages, warn: warn)
        let shell = ReplShell(
            session: session, store: store, interactive: interactive,
            presentation: presentation, scaling: capabilities.scaling, audio: audio)
        shell.library = library
        let languages = Set(session.catalog.entries.map(\.language) + InterfaceLanguage.supported)
        shell.braille = presentation.brailleDisplay(kiosk: kiosk, inbox: shell.inbox, languages: languages)
        return shell
    }
}
