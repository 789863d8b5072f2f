import Foundation
import StoryKitTestSupport
import Testing

@testable import StoryKit

/// Random input never crashes the parser, and whatever story results is sound (every range inside
/// `Story.text`, mapping to its own text). Seeded, so a failure can be replayed: the message gives
/// the seed and the case.
@Suite struct StoryPropertyTests {
    static let seed: UInt64 = 0x5EED_2024

    /// The bundled stories' bytes, the material for mutations.
    static let bundled: [(path: String, data: Data)] = {
        let folder = TestPaths.stories.path
        let names = ((try? FileManager.default.contentsOfDirectory(atPath: folder)) ?? []).filter { $0.hasSuffix(".md") }.sorted()
        return names.compactMap { name in
            (try? Data(contentsOf: URL(fileURLWithPath: folder + "/" + name))).map { (folder + "/" + name, $0) }
        }
    }()

    /// Parses and checks; returns a description of what went wrong, or nil.
    static func check(_ data: Data, path: String) -> String? {
        do {
            let parsed = try StoryParser.parse(data: data, path: path)
            let violations = StoryChecks.violations(in: parsed.story)
            if !violations.isEmpty { return violations.prefix(3).joined(separator: "; ") }
            if parsed.story.title.isEmpty { return "a story without a title" }
            if parsed.story.title.unicodeScalars.contains(where: { $0.value < 0x20 }) { return "a control character in the title" }
            if parsed.story.text.unicodeScalars.contains(where: { $0.value < 0x20 && $0 != "\n" && $0 != "\t" }) {
                return "a control character in the text"
            }
            for warning in parsed.warnings where warning.path != path || warning.severity != .warning {
                return "a bad warning: \(warning)"
            }
        } catch {
            if error.path != path { return "the error names \(error.path), not the file" }
            if !error.isError { return "a warning was thrown: \(error)" }
            if error.message.isEmpty { return "an error without a message" }
        }
        return nil
    }

    @Test func randomBytesNeverCrashTheParser() {
        var generator = SeededGenerator(seed: Self.seed)
        let alphabet: [UInt8] = Array("---\ntitle: ages: tags: # ![](x) * _ [ ] ( ) ` \\ . ! ? “ ” ’ é 🌻\r\t".utf8) + [0x1B, 0x00, 0xFF, 0xC3, 0xE2, 0x80]
        var failures: [String] = []
        for index in 0..<2_000 {
            let count = Int.random(in: 0...400, using: &generator)
            let fromAlphabet = Bool.random(using: &generator)
            let bytes: [UInt8] = (0..<count).map { _ in
                fromAlphabet ? alphabet.randomElement(using: &generator)! : UInt8.random(in: 0...255, using: &generator)
            }
            let path = ["r.md", "r.txt", "r.markdown"][index % 3]
            if let failure = Self.check(Data(bytes), path: path) {
                failures.append("case \(index) (\(path), bytes \(bytes.prefix(80))): \(failure)")
            }
        }
        #expect(failures.isEmpty, "seed \(Self.seed): \(failures.prefix(5).joined(separator: "\n"))")
    }

    /// Small changes to real stories: the kind of damage an editor, a bad copy or a child at the
    /// keyboard makes.
    @Test func mutationsOfRealStoriesNeverCrashTheParser() throws {
        try #require(Self.bundled.count >= 12, "the bundled stories are the material for this test")
        var generator = SeededGenerator(seed: Self.seed &+ 1)
        let insertions: [[UInt8]] = [
            [0x1B], [0x1B, 0x5B, 0x33, 0x31, 0x6D], [0x00], [0xFF], [0xC3], [0xE2, 0x80], [0xED, 0xA0, 0x80],
            Array("---".utf8), Array("\n---\n".utf8), Array("#".utf8), Array("\n# ".utf8), Array("![".utf8),
            Array("](".utf8), Array("*".utf8), Array("**".utf8), Array("_".utf8), Array("`".utf8), Array("[".utf8),
            Array("\n".utf8), Array("\n\n".utf8), Array("\r".utf8), Array("ages: 9-3\n".utf8), Array("title:\n".utf8),
            Array("\u{202E}".utf8), Array("🧑‍🌾".utf8), Array("e\u{301}".utf8), Array("…".utf8), Array("\\".utf8),
        ]
        var failures: [String] = []
        var stories = 0
        for index in 0..<2_000 {
            let (path, original) = Self.bundled[index % Self.bundled.count]
            var bytes = [UInt8](original)
            // Work on the front of the story (the front matter and the first pages) to stay fast.
            bytes = Array(bytes.prefix(Int.random(in: 200...3_000, using: &generator)))
            var applied: [String] = []
            for _ in 0..<Int.random(in: 1...6, using: &generator) {
                let position = bytes.isEmpty ? 0 : Int.random(in: 0...bytes.count, using: &generator)
                switch Int.random(in: 0..<5, using: &generator) {
                case 0 where !bytes.isEmpty:
                    let at = min(position, bytes.count - 1)
                    bytes[at] ^= UInt8(1) << UInt8.random(in: 0...7, using: &generator)
                    applied.append("flip@\(at)")
                case 1, 2:
                    let insertion = insertions.randomElement(using: &generator)!
                    bytes.insert(contentsOf: insertion, at: position)
                    applied.append("insert\(insertion)@\(position)")
                case 3:
                    bytes.removeSubrange(position..<min(bytes.count, position + Int.random(in: 1...40, using: &generator)))
                    applied.append("delete@\(position)")
                default:
                    bytes = Array(bytes.prefix(position))
                    applied.append("truncate@\(position)")
                }
            }
            let mutatedPath = index % 4 == 3 ? (path as NSString).deletingPathExtension + ".txt" : path
            if let failure = Self.check(Data(bytes), path: mutatedPath) {
                failures.append("case \(index) (\(mutatedPath), \(applied)): \(failure)")
            }
            if (try? StoryParser.parse(data: Data(bytes), path: mutatedPath)) != nil { stories += 1 }
        }
        #expect(failures.isEmpty, "seed \(Self.seed &+ 1): \(failures.prefix(5).joined(separator: "\n"))")
        // Most small changes still leave a story: otherwise this test would not reach the ranges.
        #expect(stories > 1_000, "only \(stories) of 2,000 mutated stories parsed")
    }

    @Test func everyBundledStoryIsSound() throws {
        try #require(Self.bundled.count >= 12)
        for (path, data) in Self.bundled {
            let parsed = try StoryParser.parse(data: data, path: path)
            #expect(StoryChecks.violations(in: parsed.story) == [], "\(path)")
            #expect(parsed.warnings == [], "\(path)")
        }
    }
}
