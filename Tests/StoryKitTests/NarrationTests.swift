import Foundation
import StoryKitTestSupport
import Synchronization
import Testing

@testable import StoryKit

/// Builds a story from plain text with the real parser.
func parsedStory(_ body: String, language: String = "en", title: String = "Test") throws -> Story {
    let text = "Title: \(title)\nLanguage: \(language)\n\n\(body)\n"
    return try StoryParser.parse(text: text, path: "test.txt").story
}

@Suite struct NarrationTests {
    @Test func everyWordOfATrickySentenceGetsATimeInOrder() throws {
        let story = try parsedStory("“Pip’s hat,” said the fox, “don’t touch it!” It cost 3,000 coins — of a star-shaped café 🌻.")
        let narration = try Narration(story: story)
        let report = try NarrationAlignment.measure(narration, engine: EspeakEngine.shared, settings: .storyDefaults)
        #expect(report.words == story.words.count)
        #expect(report.missed == 0, "\(report)")
        #expect(report.byWordEvent > report.words / 2, "\(report)")
    }

    @Test func utteranceEscapesMarkupAndMarksEveryWord() throws {
        let story = try parsedStory("Tom & Jerry <b>ran</b> fast.")
        let narration = try Narration(story: story)
        let prepared = narration.utterance(sentence: 0, settings: .storyDefaults)
        #expect(prepared.utterance.text.contains("&amp;"))
        #expect(!prepared.utterance.text.contains("<b>"))
        let marks = prepared.utterance.text.components(separatedBy: "<mark name=").count - 1
        #expect(marks == narration.items[0].words.count)
        // Each span points at the word's own text inside the SSML.
        let scalars = Array(prepared.utterance.text.unicodeScalars)
        for (index, span) in prepared.wordSpans.enumerated() {
            let spoken = String(String.UnicodeScalarView(scalars[span.start..<span.end]))
            let word = narration.items[0].words[index].text
            #expect(spoken == Narration.escaped(word) || word.count > Narration.longestToken, "\(spoken) vs \(word)")
        }
    }

    @Test func resumingFromAWordStartsTheUtteranceThere() throws {
        let story = try parsedStory("The little red hen found a grain of wheat.")
        let narration = try Narration(story: story)
        let prepared = narration.utterance(sentence: 0, fromWord: 3, settings: .storyDefaults)
        #expect(prepared.firstWord == 3)
        #expect(!prepared.utterance.text.contains("little"))
        #expect(prepared.utterance.text.contains("<mark name=\"w3\"/>hen"))
    }

    @Test func pathologicalTokensAreCutAndDoNotCrash() throws {
        let bad = String(repeating: "s'", count: 400)
        let story = try parsedStory("Here is \(bad) a bad word. And \(String(repeating: "x", count: 3000)) another.")
        let narration = try Narration(story: story)
        for index in narration.items.indices {
            let prepared = narration.utterance(sentence: index, settings: .storyDefaults)
            let longest = prepared.utterance.text.split(whereSeparator: { $0 == " " }).map(\.unicodeScalars.count).max() ?? 0
            #expect(longest < 100, "a token of \(longest) scalars reaches eSpeak")
        }
        // The real engine survives it (in 1.51 the unsplit token aborts the process).
        let report = try NarrationAlignment.measure(narration, engine: EspeakEngine.shared, settings: .storyDefaults)
        #expect(report.samples > 0)
    }

    @Test func aStoryWithNothingSpeakableSaysSo() throws {
        let story = Story(id: "empty", title: "Empty", path: "empty.txt", text: "", pages: [])
        #expect(throws: NarrationError.nothingToSpeak(title: "Empty")) { try Narration(story: story) }
        let dashes = try parsedStory("— … —")
        #expect(throws: NarrationError.self) { try Narration(story: dashes) }
    }

    @Test func picturesAreSpokenAsTheirDescriptionWithAPrefix() throws {
        let story = try StoryParser.parse(
            text: """
                ---
                title: Pic
                ---
                # The Garden

                ![A robot waters a sunflower](robot.art)

                The robot smiled.
                """, path: "pic.md"
        ).story
        let narration = try Narration(story: story)
        let kinds = narration.items.map(\.kind)
        #expect(kinds.contains(.heading))
        let picture = try #require(narration.items.firstIndex { $0.kind == .picture })
        #expect(narration.utterance(sentence: picture, settings: .storyDefaults).utterance.text.contains("Picture: "))
    }

    /// The goal: ≥ 99.5 % of corpus words highlighted in order, on time (see `NarrationAlignment`).
    @Test func corpusWordsAreHighlightedInOrderOnTime() throws {
        let files = TestPaths.corpusFiles
        #expect(!files.isEmpty, "no corpus in \(TestPaths.corpus.path)")
        // Twelve stories: the first eight English ones, and every French, German and Spanish one.
        var chosen: [Story] = []
        var english = 0
        for file in files {
            guard let story = try? StoryParser.parse(contentsOf: file, path: file.path).story else { continue }
            if story.language.hasPrefix("en") {
                if english < 8 {
                    chosen.append(story)
                    english += 1
                }
            } else {
                chosen.append(story)
            }
        }
        let languages = Set(chosen.map { String($0.language.prefix(2)) })
        #expect(chosen.count >= 10)
        #expect(languages.isSuperset(of: ["en", "fr", "de", "es"]), "languages: \(languages)")
        var total = NarrationAlignment()
        for story in chosen {
            let narration = try Narration(story: story)
            var settings = SpeechSettings.storyDefaults
            settings.voice = story.language
            let report = try NarrationAlignment.measure(narration, engine: EspeakEngine.shared, settings: settings)
            #expect(report.words == narration.wordCount)
            #expect(report.onTimeShare >= 0.99, "\(story.id) [\(story.language)]: \(report)")
            total = total + report
        }
        print("corpus alignment over \(chosen.count) stories: \(total)")
        #expect(total.onTimeShare >= 0.995, "\(total)")
    }
}

@Test func picturePrefixFollowsTheStoryLanguage() throws {
    #expect(Narration.picturePrefix(forLanguage: "fr") == "Image : ")
    #expect(Narration.picturePrefix(forLanguage: "en-us") == "Picture: ")
    #expect(Narration.picturePrefix(forLanguage: "xx") == "Picture: ")
}

@Test func narrationIndicesMapToStorySentences() throws {
    let story = try parsedStory("One fish swam. Two fish swam.\n\nThree fish swam.")
    let narration = try Narration(story: story)
    #expect(narration.items.map(\.storySentenceIndex) == Array(story.sentences.indices))
    #expect(narration.item(forStorySentence: 2) == 2)
    #expect(narration.item(forStorySentence: 99) == nil)
}
