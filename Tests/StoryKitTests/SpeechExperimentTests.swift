import Foundation
import Testing
@testable import StoryKit

@Test func experimentMarks() async throws {
    let text = "“Pip’s hat,” said the fox, “don’t touch it!” It cost 3,000 coins — of a star-shaped café 🌻."
    let words = text.split(whereSeparator: { " “”,!.—".contains($0) }).map(String.init)
    print(words)
    for encoding in [Utterance.Encoding.plain, .ssml] {
        var t = text
        if encoding == .ssml {
            t = "<speak>" + text.replacingOccurrences(of: "Pip", with: "<mark name=\"w0\"/>Pip").replacingOccurrences(of: "don’t", with: "<mark name=\"w5\"/>don’t").replacingOccurrences(of: "café", with: "<mark name=\"w9\"/>café") + "</speak>"
        }
        let events = Mutex2()
        let r = try await EspeakEngine.shared.synthesize(Utterance(text: t, settings: .storyDefaults, encoding: encoding)) { chunk in
            events.append(chunk.events); return .proceed }
        print(encoding, r)
        for e in events.all { print("  ", e.kind, e.textOffset, e.sample, Array(t.unicodeScalars).dropFirst(e.textOffset).prefix(8).map(String.init).joined()) }
    }
}
import Synchronization
final class Mutex2: Sendable { let m = Mutex<[SpeechEvent]>([]); func append(_ e: [SpeechEvent]) { m.withLock { $0 += e } }; var all: [SpeechEvent] { m.withLock { $0 } } }
