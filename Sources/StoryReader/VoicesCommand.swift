import ArgumentParser
import Foundation
import StoryKit

/// `storyreader voices [--json]`: the languages and variants eSpeak NG has.
struct VoicesCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "voices",
        abstract: helpMessages.tr("List the voices: languages (en, fr, de, es, …) and variants (f3, klatt, …)."),
        discussion: helpMessages.tr("Use a language with --voice (read --voice fr), optionally with a variant: --voice en+f3."))

    @Flag(help: ArgumentHelp(helpMessages.tr("Print JSON: {shape}.", ["shape": #"{"languages": [{name, identifier, languages, gender}], "variants": [...]}"#])))
    var json = false

    func run() throws {
        let catalog: VoiceCatalog
        do {
            catalog = try EspeakEngine.shared.voices()
        } catch {
            throw UserFailure(message: helpMessages.describe(error))
        }
        if json {
            let encoder = JSONEncoder()
            encoder.outputFormatting = [.prettyPrinted, .sortedKeys, .withoutEscapingSlashes]
            print(String(decoding: try encoder.encode(catalog), as: UTF8.self))
            return
        }
        // voices takes no --lang: its words follow the environment, as --help does.
        let messages = helpMessages
        print(messages.tr("Languages ({count}):", ["count": String(catalog.languages.count)]))
        for voice in catalog.languages.sorted(by: { $0.selector < $1.selector }) {
            print("  \(voice.selector.padding(toLength: 12, withPad: " ", startingAt: 0)) \(Sanitizer.sanitizeLine(voice.name))")
        }
        print(messages.tr("Variants ({count}), added with + (en+f3):", ["count": String(catalog.variants.count)]))
        for voice in catalog.variants.sorted(by: { $0.selector < $1.selector }) {
            let gender = voice.gender == .unspecified ? "" : " (\(voice.gender.rawValue))"
            print("  \(voice.selector.padding(toLength: 12, withPad: " ", startingAt: 0)) \(Sanitizer.sanitizeLine(voice.name))\(gender)")
        }
    }
}
