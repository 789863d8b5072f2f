import ArgumentParser
import Foundation
import StoryKit

/// `storyreader bench …`: the benchmarks are a program of their own, `storyreader-bench`, built
/// beside this one (`make bench`), so that the program a kiosk runs carries none of them. This
/// command runs it in this process's place with the same words; it is named here so that
/// `--help`, the manual page and the completions still show where the benchmarks are.
struct BenchHandover: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "bench",
        abstract: helpMessages.tr("Run a benchmark and print its figures (use a release build)."),
        discussion: helpMessages.tr(
            "The benchmarks are a program of their own, storyreader-bench, built beside storyreader with 'make bench' (not installed); 'storyreader bench …' runs it with the same words."
        )
    )

    /// The benchmark and its options, handed over as typed.
    @Argument(
        parsing: .captureForPassthrough,
        help: ArgumentHelp(helpMessages.tr("The benchmark and its options ('storyreader bench --help' lists them).")))
    var words: [String] = []

    func run() throws {
        try Self.exec(words)
    }

    /// The benchmarks' program: beside this one.
    static var program: URL { BundledStories.sibling("storyreader-bench") }

    /// Runs `storyreader-bench words…` in this process's place; returns only by throwing.
    static func exec(_ words: [String]) throws -> Never {
        let path = program.path
        guard FileManager.default.isExecutableFile(atPath: path) else {
            throw UserFailure(
                message: helpMessages.tr("the benchmarks are a program of their own, {path}, which is not there: build it with 'make bench'", ["path": path]))
        }
        let argv = ([path] + words).map { strdup($0) } + [nil]
        execv(path, argv)
        let reason = String(cString: strerror(errno))
        for argument in argv { free(argument) }
        throw UserFailure(message: helpMessages.tr("cannot start {path}: {reason}", ["path": path, "reason": reason]))
    }
}
