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
    }

    private(set) var elements: [Element] = []
    private(set) var parsed = false

    init(_ data: Data) {
        let delegate = Collector()
        let parser = XMLParser(data: XHTMLDecoding.prepared(data))
        parser.delegate = delegate
        parsed = parser.parse()
        elements = delegate.elements
    }

    func first(_ name: String) -> Element? { elements.first { $0.name == name } }
    func all(_ name: String) -> [Element] { elements.filter { $0.name == name } }

    private final class Collector: NSObject, XMLParserDelegate {
        var elements: [Element] = []
        var open: [Int] = []

        func parser(_ parser: XMLParser, didStartElement name: String, namespaceURI: String?, qualifiedName: String?, attributes: [String: String] = [:]) {
            open.append(elements.count)
            elements.append(Element(name: name, attributes: attributes, text: ""))
        }

        func parser(_ parser: XMLParser, foundCharacters string: String) {
            if let index = open.last { elements[index].text += string }
        }

        func parser(_ parser: XMLParser, didEndElement name: String, namespaceURI: String?, qualifiedName: String?) {
            _ = open.popLast()
        }
    }
}
