import Foundation
import StoryKitTestSupport
import Testing

@testable import StoryKit

/// The child's braille code through the real liblouis, and the display model: the word being
/// heard marked with dots 7–8, the window panned to keep it under the fingers, routing keys.
@Suite struct BrailleTests {
    /// A sentence per language, in grade 2 (contracted), as liblouis's own `lou_translate` writes it.
    static let sentences: [(language: String, text: String)] = [
        ("en", "The little fox ran home through the snow."),
        ("en-us", "The little fox ran home through the snow."),
        ("es", "El zorro pequeño corrió a casa por la nieve."),
        ("fr", "Le petit renard est rentré chez lui à travers la neige."),
        ("de", "Der kleine Fuchs lief durch den Schnee nach Hause."),
    ]

    @Test(arguments: [BrailleCode.grade2, .grade1, .computer])
    func eachLanguageIsByteExactWithLouTranslate(code: BrailleCode) throws {
        guard let tool = RequiredTool.find("lou_translate", package: "liblouis-bin", for: "the braille tables check") else { return }
        for (language, text) in Self.sentences {
            let table = code.table(forLanguage: language)
            let ours = try BrailleTranslator.translate(text, table: table)
            let theirs = try ExternalProcess.run(tool, ["--forward", "unicode.dis," + table], environment: [:], input: text + "\n")
            #expect(theirs.status == 0, "\(theirs.standardError)")
            #expect(ours.unicode == theirs.standardOutput.trimmingCharacters(in: .newlines), "\(language) \(table)")
            #expect(ours.source.count == ours.cells.count)
        }
    }

    @Test func tablesAreTheOnesTheIssueNames() {
        #expect(BrailleCode.grade2.table(forLanguage: "en") == "en-ueb-g2.ctb")
        #expect(BrailleCode.grade1.table(forLanguage: "en-GB") == "en-ueb-g1.ctb")
        #expect(BrailleCode.grade2.table(forLanguage: "en-US") == "en-us-g2.ctb")
        #expect(BrailleCode.grade2.table(forLanguage: "es") == "es-g2.ctb")
        #expect(BrailleCode.grade2.table(forLanguage: "fr-FR") == "fr-bfu-g2.ctb")
        #expect(BrailleCode.grade2.table(forLanguage: "de") == "de-g2.ctb")
        for code in BrailleCode.allCases {
            for language in ["en", "en-us", "es", "fr", "de", "xx"] {
                #expect(BrailleTranslator.canLoad(code.table(forLanguage: language)), "\(code) \(language)")
            }
        }
        #expect(BrailleCode(loose: "Grade 2") == .grade2)
        #expect(BrailleCode(loose: "uncontracted") == .grade1)
        #expect(BrailleCode(loose: "comp8") == .computer)
        #expect(BrailleCode(loose: "grade 3") == nil)
    }

    /// Contracted words make fewer cells than letters: the position array still finds each word.
    @Test func everyCellLeadsBackToItsWord() throws {
        let text = "The little fox ran home through the snow."
        let words = BrailleLine.wordRanges(of: text)
        let line = try BrailleLine(text: text, table: "en-ueb-g2.ctb", words: words, width: 80)
        // "the" is one cell in grade 2 (with its capital sign: two), "little" two.
        #expect(line.cells(ofWord: 0).count == 2)
        #expect(line.cells(ofWord: 1).count == 2)
        var previous = -1
        for index in words.indices {
            let cells = line.cells(ofWord: index)
            #expect(!cells.isEmpty, "word \(index)")
            #expect(cells.lowerBound > previous, "words in order")
            previous = cells.upperBound - 1
            for cell in cells { #expect(line.word(atCell: cell) == index) }
        }
    }

    /// Word by word, the mark is on the heard word's cells only, and the word is on the display.
    @Test(arguments: [20, 40])
    func theMarkFollowsTheWordAndStaysOnTheDisplay(width: Int) throws {
        let text = "Once upon a time, a small grey rabbit lived at the edge of a very big and very dark forest."
        let words = BrailleLine.wordRanges(of: text)
        var line = try BrailleLine(text: text, table: "en-ueb-g1.ctb", words: words, width: width)
        #expect(line.braille.cells.count > 2 * width, "the sentence needs panning")
        var offsets: Set<Int> = []
        for index in words.indices {
            line.mark(word: index)
            let shown = line.shown
            #expect(shown.count == width)
            let cells = line.cells(ofWord: index)
            for (position, cell) in shown.enumerated() {
                let marked = cell & BrailleLine.markDots == BrailleLine.markDots
                #expect(marked == cells.contains(line.offset + position), "word \(index), cell \(position)")
                if line.offset + position < line.braille.cells.count {
                    #expect(cell & 0x3F == line.braille.cells[line.offset + position] & 0x3F)
                }
            }
            offsets.insert(line.offset)
        }
        #expect(offsets.count > 1, "the window moved")
    }

    @Test func panningStopsAtTheEnds() throws {
        let text = "Once upon a time, a small grey rabbit lived at the edge of a big forest."
        var line = try BrailleLine(text: text, table: "en-ueb-g1.ctb", words: BrailleLine.wordRanges(of: text), width: 20)
        let movedBack = line.panBack()
        #expect(!movedBack)
        var pans = 0
        while line.panOn() { pans += 1 }
        #expect(pans == (line.braille.cells.count - 1) / 20)
        #expect(line.offset + 20 >= line.braille.cells.count)
        let movedBackAgain = line.panBack()
        #expect(movedBackAgain)
    }

    /// A child's code is kept in the store, travels to the site as its own field, and a bad one
    /// from another kiosk is refused by the same rule as the form's.
    @Test func theChildsCodeIsStoredSyncedAndValidated() throws {
        let database = try TemporaryDatabase()
        defer { database.remove() }
        let store = try database.open()
        var mia = ChildProfile(name: "Mia", age: 7)
        mia.settings.brailleCode = .grade2
        _ = try store.addProfile(mia, authorization: store.authorize(pin: nil))
        #expect(try store.requireProfile(named: "Mia").settings.brailleCode == .grade2)
        #expect(try store.requireProfile(named: "Reader").settings.brailleCode == .grade1, "the default: uncontracted")
        #expect(StoryStore.syncedProfileFields.contains("brailleCode"))
        #expect(SyncValidation.profileFieldProblem("brailleCode", "grade-2") == nil)
        #expect(SyncValidation.profileFieldProblem("brailleCode", "grade-9") != nil)
        #expect(SyncValidation.profileFieldProblem("brailleCode", nil) != nil)
        var form = ProfileForm(editing: mia)
        form.setText("contracted", for: .brailleCode)
        #expect(try form.profile().settings.brailleCode == .grade2)
        form.setText("grade 7", for: .brailleCode)
        #expect(throws: ProfileProblem.self) { try form.profile() }
    }
}
