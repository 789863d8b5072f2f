// swift-tools-version: 6.1
import PackageDescription

let package = Package(
    name: "storyreader",
    products: [
        .executable(name: "storyreader", targets: ["StoryReaderMain"]),
        // The benchmarks, a program of their own so that the shipped one carries none of them
        // (`storyreader bench …` hands over to it; `make bench`; not installed).
        .executable(name: "storyreader-bench", targets: ["StoryReaderBench"]),
        .library(name: "StoryKit", targets: ["StoryKit"]),
    ],
    // The sync server (`storyreader serve`) is built only with `--traits Server` (make server, make
    // test): its HTTP and PostgreSQL packages take minutes to compile, and a kiosk never needs them.
    traits: [
        .trait(name: "Server", description: "Builds `storyreader serve`, the sync server (Hummingbird, PostgreSQL)")
    ],
    dependencies: [
        .package(url: "https://github.com/apple/swift-argument-parser", from: "1.8.2"),
        .package(url: "https://github.com/groue/GRDB.swift", from: "7.10.0"),
        .package(url: "https://github.com/apple/swift-crypto", "3.12.3"..<"5.0.0"),
        // EPUB files are zip archives.
        .package(url: "https://github.com/weichsel/ZIPFoundation", exact: "0.9.20"),
        // The sync server only (trait "Server").
        .package(url: "https://github.com/hummingbird-project/hummingbird", exact: "2.28.1"),
        .package(url: "https://github.com/vapor/postgres-nio", exact: "1.33.2"),
    ],
    targets: [
        // eSpeak NG, the speech synthesiser, linked as a C library (never spawned per sentence).
        .systemLibrary(
            name: "CEspeak",
            pkgConfig: "espeak-ng",
            providers: [.apt(["libespeak-ng-dev"])]
        ),
        // PocketSphinx (Debian's 0.8+5prealpha), the read-along coach's recogniser: linked as a C
        // library like eSpeak NG; nothing opens a microphone unless coaching is asked for.
        .systemLibrary(
            name: "CPocketSphinx",
            pkgConfig: "pocketsphinx",
            providers: [.apt(["libpocketsphinx-dev"])]
        ),
        // ALSA, for the audio-device sink (and its file/null plugins in tests).
        .systemLibrary(
            name: "CAlsa",
            pkgConfig: "alsa",
            providers: [.apt(["libasound2-dev"])]
        ),
        // libopus, for exporting stories as Ogg Opus: linked through libopusenc, whose package
        // brings it and its headers (the export makes its own Ogg pages; see OpusShares.swift).
        .systemLibrary(
            name: "COpusEnc",
            pkgConfig: "libopusenc",
            providers: [.apt(["libopusenc-dev"])]
        ),
        // LAME, for exporting stories as MP3 (no pkg-config file: linked by name).
        .systemLibrary(
            name: "CLame",
            providers: [.apt(["libmp3lame-dev"])]
        ),
        // libhyphen, for the syllables reading aid (no pkg-config file: linked by name).
        .systemLibrary(
            name: "CHyphen",
            providers: [.apt(["libhyphen-dev"])]
        ),
        // BrlAPI, to write to a braille display through BRLTTY (no pkg-config file: linked by name).
        .systemLibrary(
            name: "CBrlapi",
            providers: [.apt(["libbrlapi-dev"])]
        ),
        // liblouis, the child's braille code (grade 1, grade 2, computer braille).
        .systemLibrary(
            name: "CLouis",
            pkgConfig: "liblouis",
            providers: [.apt(["liblouis-dev"])]
        ),
        // FFmpeg's libraries, for playing a book's recorded narration: MP3, AAC, Opus and Vorbis
        // clips decoded (libavformat, libavcodec), made the sink's format (libswresample), and
        // slowed or quickened without changing pitch (libavfilter's atempo). Opened when a
        // recording is first needed (Sources/CFFmpeg/loader.c), not linked: linked, they made
        // every start of the program some 85 ms slower. Headers from Debian's libavformat-dev,
        // libavcodec-dev, libavfilter-dev, libswresample-dev and libavutil-dev (scripts/setup.sh).
        .target(
            name: "CFFmpeg",
            linkerSettings: [.linkedLibrary("dl")]
        ),
        .target(
            name: "StoryKit",
            dependencies: [
                "CFFmpeg",
                "CLame",
                "COpusEnc",
                "CHyphen",
                "CEspeak",
                "CPocketSphinx",
                "CAlsa",
                "CBrlapi",
                "CLouis",
                .product(name: "GRDB", package: "GRDB.swift"),
                .product(name: "_CryptoExtras", package: "swift-crypto"),
                .product(name: "Crypto", package: "swift-crypto"),
                .product(name: "ZIPFoundation", package: "ZIPFoundation"),
            ]
        ),
        // The sync server: empty unless built with the "Server" trait.
        .target(
            name: "StoryServer",
            dependencies: [
                "StoryKit",
                .product(name: "Hummingbird", package: "hummingbird", condition: .when(traits: ["Server"])),
                .product(name: "PostgresNIO", package: "postgres-nio", condition: .when(traits: ["Server"])),
            ]
        ),
        // The command line (every command, the REPL, the kiosk), a library that the program and
        // the benchmarks share; the program itself is StoryReaderMain.
        .target(
            name: "StoryReader",
            dependencies: [
                "StoryKit",
                "StoryServer",
                .product(name: "ArgumentParser", package: "swift-argument-parser"),
            ]
        ),
        .executableTarget(
            name: "StoryReaderMain",
            dependencies: ["StoryReader"]
        ),
        .executableTarget(
            name: "StoryReaderBench",
            dependencies: [
                "StoryReader",
                "StoryKit",
                "StoryServer",
                .product(name: "ArgumentParser", package: "swift-argument-parser"),
                // `bench import` writes a large EPUB to measure.
                .product(name: "ZIPFoundation", package: "ZIPFoundation"),
                // `bench sync` starts the tests' temporary PostgreSQL when given no database.
                "StoryKitTestSupport",
            ]
        ),
        .target(
            name: "StoryKitTestSupport",
            dependencies: ["StoryKit", .product(name: "ZIPFoundation", package: "ZIPFoundation")],
            path: "Tests/StoryKitTestSupport"
        ),
        .testTarget(
            name: "StoryKitTests",
            dependencies: ["StoryKit", "StoryKitTestSupport", .product(name: "ZIPFoundation", package: "ZIPFoundation")],
            exclude: ["Snapshots"]
        ),
        .testTarget(
            name: "StoryReaderTests",
            dependencies: [
                "StoryKit", "StoryKitTestSupport", "StoryReader", "StoryServer", .product(name: "ZIPFoundation", package: "ZIPFoundation"),
                // The web page's routes driven in process (WebRouteTests), with the server only.
                .product(name: "HummingbirdTesting", package: "hummingbird", condition: .when(traits: ["Server"])),
            ],
            // Expected outputs and screens, read from the repository by path (not bundled resources).
            exclude: ["Golden", "Snapshots", "Transcripts"]
        ),
    ]
)

// Strictness for every target, in one place. These are this package's targets only: a
// dependency's warnings never fail our build. CI (.ci/run) sets STORYREADER_WARNINGS_AS_ERRORS=1,
// so a warning in our code fails it; a developer's build only shows them (changing the flag
// rebuilds our targets, not the dependencies).
let warningsAsErrors = Context.environment["STORYREADER_WARNINGS_AS_ERRORS"] == "1"
for target in package.targets where target.type != .system {
    var settings = target.swiftSettings ?? []
    settings.append(.enableUpcomingFeature("ExistentialAny"))
    // A module used in a public declaration is imported `public`: what a target exposes is said.
    // (MemberImportVisibility is left off: on Linux it ties a Glibc struct's fields, `stat`'s
    // `st_mode`, to whichever clang module loaded the header first — CoreFoundation in one build,
    // CDispatch in the next — so a file's imports would pass or fail with the build order.)
    settings.append(.enableUpcomingFeature("InternalImportsByDefault"))
    if warningsAsErrors { settings.append(.unsafeFlags(["-warnings-as-errors"])) }
    target.swiftSettings = settings
}
