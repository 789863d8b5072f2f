/// StoryKit: every rule of Magical Stories, with no terminal I/O.
///
/// The executable `storyreader` (target StoryReader) parses the command line, opens the terminal
/// and the audio device, and performs the effects StoryKit asks for.
public enum StoryKitInfo {
    /// The program's version, shown by `storyreader --version`.
    public static let version = "0.1.0"
}
