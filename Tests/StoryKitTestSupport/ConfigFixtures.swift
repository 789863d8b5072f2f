/// Configuration files for tests.
public enum ConfigFixtures {
    /// A config.toml with every setting, as a librarian might write it.
    public static let everySetting = """
        # Defaults for storyreader
        stories = ["~/Stories", "/srv/stories", "class"]   # mine, the library's, one beside this file
        data-dir = '/var/lib/storyreader'
        device = "plughw:1"

        [display]
        text-size = "Accessibility1"
        theme = "dark"
        reduce-motion = false
        line-focus = "3"
        syllables = false
        spacing = "wide"
        cursor = "visible"
        color = "never"

        [kiosk]
        profile = "Library"
        idle-timeout = 120
        time-limit = 0.5
        no-audio = true
        """
}
