public import Foundation

/// Something the session asks the shell to do. Data only: tests assert on it.
public enum Effect: Sendable, Hashable {
    /// Say this (through the announcement queue) and print it as a caption.
    case speak(Utterance)
    /// Print a caption without speaking it through the queue (the story sentence being heard).
    case caption(String)
    /// Say this and print `shown` as its caption (the utterance's text but for the missing sound
    /// device, whose reason is shown): the shell's news put in words (`ShellNews`); not shown on the
    /// braille display, and said in the interface's voice only.
    case tell(Utterance, shown: String)
    /// A key typed on the `:` line, said and captioned; its caption is replaced by the next echo.
    case echo(Utterance)
    /// Read `story` aloud from word index `fromWord` with `settings`; in step mode, one sentence.
    case narrate(storyID: String, fromWord: Int, settings: SpeechSettings, stepMode: Bool)
    /// Go on with the narration paused in the speech service, where it was heard (the session
    /// chose this over `narrate` because nothing moved since the pause: `ReaderState.held`), with
    /// what changed while it was paused.
    case resumeNarration(settings: SpeechSettings, stepMode: Bool)
    /// Pause the narration where it is: the speech service keeps it, to resume at the sound heard.
    case pauseNarration
    /// Stop the narration: the speech service forgets it.
    case stopNarration
    /// The narration waits after this sentence (an index into `Story.sentences`; nil: none)
    /// instead of beginning the next (the bedtime timer's last: not a syllable of the next chapter
    /// is heard). The shell also asks `Session.bedtimeLastSentence` before each `narrate` and
    /// `resumeNarration`.
    case holdNarration(afterSentence: Int?)
    /// The reading speed changed while reading.
    case changeSpeech(SpeechSettings)
    /// The tempo of the story's recording changed while reading (0.5–2, pitch kept).
    case changeTempo(Double)
    /// Speak a sample with these settings (the settings screen's preview).
    case preview(SpeechSettings, text: String)
    /// Say this with these settings, captioned as it is (a story's word in the story's voice).
    case speakWith(Utterance, SpeechSettings)
    /// Draw the screen again.
    case render
    /// A moment that may move on screen (a page turn, the end of a story); drawn as one still
    /// frame with reduced motion.
    case motion(MotionCue)
    /// Keep a change in the store; the shell answers some with `Input.stored`.
    case save(StoreChange)
    /// Check a PIN (the shell asks the store) and answer with `Input.pinChecked` or `Input.pinLocked`.
    case checkPIN(String)
    /// Read the story with this id from its file (off the loop) and answer with `Input.storyLoaded`.
    case loadStory(String)
    /// Open the `:` line with this already typed (a bookmark's note: `bookmark note `); Enter runs
    /// it, Escape closes it (`ShellNews.commandLineCancelled`). Without a terminal: nothing (a
    /// script types the whole line).
    case openCommandLine(String)
    /// Open the microphone and follow the child reading (the `r` key): nothing listens before
    /// this. The coach's news comes back as `Input.coach`; nothing of the voice is kept.
    case listen(CoachListening)
    /// Close the microphone: coaching ended.
    case stopListening
    case exit
}

/// What the narration reports back to the session.
public enum NarrationEvent: Sendable, Hashable {
    case sentenceStarted(Int)
    /// Word `index` (into `Story.words`) is being heard now.
    case word(Int)
    case sentenceFinished(Int)
    case finished
}

/// Something that happened: a key, a typed line, narration progress, a resize.
public enum Input: Sendable, Hashable {
    case key(Key)
    case command(Command)
    /// A line that did not parse: the session speaks the explanation.
    case invalid(String)
    case narration(NarrationEvent)
    case resize(columns: Int, rows: Int)
    case pinChecked(Bool)
    /// Too many wrong PINs: the store is locked for `remaining` seconds more.
    case pinLocked(remaining: TimeInterval)
    /// The store's answer to a `.save`.
    case stored(StoreReply)
    /// Time passes (kiosk: idle reset, time limit, PIN lockout countdown), in seconds of a
    /// monotonic clock (`MonotonicClock`).
    case tick(TimeInterval)
    /// The program must end (SIGTERM, SIGHUP, input closed): keep the position and exit, even
    /// where `quit` is not allowed.
    case shutdown
    /// Something the shell has to tell the person: the Session puts it in words.
    case shell(ShellNews)
    /// A key the shell keeps for itself (typed on the `:` line): a kiosk is not idle.
    case activity
    /// The story asked for with `Effect.loadStory`, read in (nil: its file could not be read).
    case storyLoaded(id: String, Story?)
    /// The library read off the loop (a catalog that `isLoading`), and how many story files in it
    /// could not be read.
    case libraryLoaded([StoryEntry], unreadable: Int)
    /// The read-along coach's news (a word heard, help due, no microphone), from its thread.
    case coach(CoachNews)
}
