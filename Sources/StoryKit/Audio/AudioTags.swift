import Foundation

/// What an exported audio file says about itself: the tags players show, and its chapters.
public struct AudioTags: Sendable, Hashable {
    public var title: String
    public var artist: String?
    public var album: String
    /// A BCP 47 language such as `en` or `es-419`.
    public var language: String
    /// The story's licence line, where it carries one.
    public var licence: String?
    /// One a story when several go into one file. The titles are known before the audio is
    /// made, the times only after: the sinks write the chapter times into fields of a fixed
    /// width when the file is closed (`setChapterTimes`).
    public var chapters: [AudioChapter]

    public init(
        title: String, artist: String? = nil, album: String = "Magical Stories", language: String,
        licence: String? = nil, chapters: [AudioChapter] = []
    ) {
        self.title = title
        self.artist = artist
        self.album = album
        self.language = language
        self.licence = licence
        self.chapters = chapters
    }

    /// Players take up to 999 chapters in an Ogg file (`CHAPTER001`…`CHAPTER999`).
    public static let mostChapters = 999

    /// The ISO 639-2 code ID3's TLAN frame wants (`en` → `eng`), for the languages eSpeak NG
    /// voices stories in most; nil for others (the frame is then left out).
    // swift-format-ignore: AlwaysUseLowerCamelCase
    public var iso639_2: String? {
        let base = language.split(separator: "-").first.map { $0.lowercased() } ?? ""
        return [
            "en": "eng", "es": "spa", "fr": "fra", "de": "deu", "it": "ita", "pt": "por", "nl": "nld", "pl": "pol",
            "sv": "swe", "da": "dan", "nb": "nob", "fi": "fin", "cy": "cym", "ga": "gle", "la": "lat", "el": "ell",
        ][base]
    }
}

/// A chapter of an audio file: its title, and its start and end in milliseconds.
public struct AudioChapter: Sendable, Hashable {
    public var title: String
    public var start: Int
    public var end: Int

    public init(title: String, start: Int = 0, end: Int = 0) {
        self.title = title
        self.start = start
        self.end = end
    }
}
