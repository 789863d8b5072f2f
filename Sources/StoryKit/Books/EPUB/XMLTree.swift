import Foundation

#if canImport(FoundationXML)
    import FoundationXML
#endif

/// A whole small XML document as a flat list of elements with their own text (container.xml,
/// the OPF). Names are as written, prefix included (`dc:title`).
struct XMLTree {
    struct Element {
        var name: String
        var attributes: [String: String]
        var text: String
        /// How many elements it is inside (the root is 0): a SMIL `par`'s children are told from
        /// the elements after it.
        var depth = 0
    }

    private(set) var elements: [Element] = []
    private(set) var parsed = false
    /// The document has more elements than its limit: it was not read past it.
    private(set) var tooManyElements = false

    init(_ data: Data, elementLimit: Int = EPUBBook.Limits().documentElements) {
        let delegate = Collector(budget: ElementBudget(limit: elementLimit))
        let parser = XHTMLDecoding.parser(data)
        parser.delegate = delegate
        parsed = parser.parse()
        elements = delegate.elements
        tooManyElements = delegate.budget.exceeded
    }

    func first(_ name: String) -> Element? { elements.first { $0.name == name } }
    func all(_ name: String) -> [Element] { elements.filter { $0.name == name } }

    private final class Collector: NSObject, XMLParserDelegate {
        var elements: [Element] = []
        var open: [Int] = []
        var budget: ElementBudget

        init(budget: ElementBudget) { self.budget = budget }

        func parser(_ parser: XMLParser, didStartElement name: String, namespaceURI: String?, qualifiedName: String?, attributes: [String: String] = [:]) {
            guard budget.admit(parser) else { return }
            elements.append(Element(name: name, attributes: attributes, text: "", depth: open.count))
            open.append(elements.count - 1)
        }

        func parser(_ parser: XMLParser, foundCharacters string: String) {
            if let index = open.last { elements[index].text += string }
        }

        func parser(_ parser: XMLParser, didEndElement name: String, namespaceURI: String?, qualifiedName: String?) {
            _ = open.popLast()
        }
    }
}

/// How many elements a parser may still start: past the limit it is stopped, so a small file
/// of millions of tiny elements cannot take the memory of millions of parsed ones.
struct ElementBudget {
    let limit: Int
    private(set) var count = 0
    private(set) var exceeded = false

    init(limit: Int) { self.limit = limit }

    /// Counts one more element; past the limit, stops `parser` and says no.
    mutating func admit(_ parser: XMLParser) -> Bool {
        count += 1
        guard count > limit else { return true }
        if !exceeded { parser.abortParsing() }
        exceeded = true
        return false
    }
}
