/// The printed book's page numbers while reading (issue 46): where am I names the print page,
/// `g` asks for one ("Go to print page:", the number typed and said, Enter goes, Escape
/// cancels), and `page 12` goes there from a script or the command line. A story without print
/// pages goes to its own page of that number.
extension Session {
    /// The most a page number typed at the prompt may have (the longest label is kept to 40).
    static let printPageEntryLimit = 40

    /// `g` in the reader: the prompt opens; reading goes on under it until Enter.
    mutating func openPrintPagePrompt() -> [Effect] {
        guard var reader = state.reader, state.stack.contains(.reader) else { return [speak(tr("Nothing is being read."))] }
        reader.printPageEntry = ""
        state.reader = reader
        return [speak(tr("Go to print page:") + " " + tr("Type the page's number and press Enter; Escape cancels."))]
    }

    /// A key while the prompt is open (nil when it is closed, or the reader is not the screen):
    /// letters and digits are typed and said, Backspace takes one back, Enter goes, Escape closes it.
    mutating func printPagePromptKey(_ key: Key) -> [Effect]? {
        guard state.route == .reader, var reader = state.reader, var typed = reader.printPageEntry else { return nil }
        switch key {
        case .character(let character) where character.isLetter || character.isNumber:
            guard typed.count < Self.printPageEntryLimit else { return [speak(tr("That is as long as a page number can be."))] }
            typed.append(character)
            reader.printPageEntry = typed
            state.reader = reader
            // Each character is said as typed, a newer one cutting the older.
            return [speak(String(character))]
        case .backspace:
            let removed = typed.popLast()
            reader.printPageEntry = typed
            state.reader = reader
            return [speak(removed.map { tr("{letter} deleted", ["letter": String($0)]) } ?? tr("Empty."))]
        case .escape:
            reader.printPageEntry = nil
            state.reader = reader
            return [speak(tr("No page chosen: reading goes on where it was."))]
        case .enter:
            reader.printPageEntry = nil
            state.reader = reader
            guard !typed.isEmpty else { return [speak(tr("No page chosen: reading goes on where it was."))] }
            return goToPrintPage(typed)
        default:
            return [speak(tr("Type the page's number and press Enter; Escape cancels."))]
        }
    }

    /// Reading goes on from the first sentence of the print page labelled `typed` (as printed:
    /// `12`, `xii`), by the same path as every other move; a story without print pages goes to its
    /// own page of that number.
    mutating func goToPrintPage(_ typed: String) -> [Effect] {
        guard let reader = state.reader, state.stack.contains(.reader) else { return [speak(tr("Nothing is being read."))] }
        let map = reader.map
        let wanted = Sanitizer.quote(typed.trimmingCharacters(in: .whitespaces))
        let labels = map.printPageLabels
        guard !labels.isEmpty else {
            let starts = map.pageStarts
            guard let number = Int(typed.trimmingCharacters(in: .whitespaces)), (1...max(starts.count, 1)).contains(number), !starts.isEmpty else {
                return [
                    speak(
                        tr("There is no page {page}; pages go from 1 to {pages}.", ["page": wanted, "pages": String(max(starts.count, 1))]),
                        .important)
                ]
            }
            return [speak(tr("Page {page}.", ["page": String(number)]), .message)] + jumpReading(to: map.firstWord(ofSentence: starts[number - 1]))
        }
        guard let index = map.printPage(labelled: typed) else {
            return [
                speak(
                    tr(
                        "There is no print page {page}; pages go from {first} to {last}.",
                        ["page": wanted, "first": labels[0], "last": labels[labels.count - 1]]),
                    .important)
            ]
        }
        return [speak(tr("Print page {page}.", ["page": labels[index]]), .message)]
            + jumpReading(to: map.firstWord(ofSentence: map.printPageSentence[index]))
    }

    /// "print page 12" for where am I: the print page the sentence being read is on.
    func printPagePlace(_ reader: ReaderState) -> String? {
        guard let index = reader.map.printPage(ofSentence: reader.sentence) else { return nil }
        return tr("print page {page}", ["page": reader.map.printPageLabels[index]])
    }
}
