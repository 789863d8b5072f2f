import Foundation

/// Lists every element of a screen with its spoken form, so that unlabelled controls show up.
public enum AccessibilityAudit {
    /// One element as the audit sees it.
    public struct Entry: Sendable, Hashable, CustomStringConvertible {
        /// The ids from the screen's top down to this element ("section-animals/story-fox").
        public var path: String
        public var spoken: String
        public var isHidden: Bool
        /// What is wrong with it (empty when nothing is).
        public var problems: [String]

        public var description: String {
            "\(path): \(isHidden ? "(hidden) " : "")\(spoken)" + (problems.isEmpty ? "" : "  ⚠ " + problems.joined(separator: "; "))
        }
    }

    /// Every element of `screen`, in tree order, hidden ones included (marked).
    public static func entries(of screen: Screen) -> [Entry] {
        var result: [Entry] = []
        func visit(_ element: AccessibilityElement, parent: String, insideCombined: Bool, hidden: Bool) {
            let path = parent.isEmpty ? element.id : parent + "/" + element.id
            let isHidden = hidden || element.isHidden
            var problems: [String] = []
            if !isHidden {
                if element.label.trimmingCharacters(in: .whitespaces).isEmpty { problems.append("no label") }
                if element.traits.isEmpty { problems.append("no trait") }
                if element.id.isEmpty { problems.append("no id") }
            }
            result.append(Entry(path: path, spoken: SpokenForm.describe(element), isHidden: isHidden, problems: problems))
            for child in element.children {
                visit(child, parent: path, insideCombined: insideCombined || element.combinesChildren, hidden: isHidden)
            }
        }
        for element in screen.elements { visit(element, parent: "", insideCombined: false, hidden: false) }
        return result
    }

    /// The problems of `screen`, one line each ("library: story-fox: no label"); empty when clean.
    public static func problems(of screen: Screen) -> [String] {
        var found = entries(of: screen).filter { !$0.problems.isEmpty }.map { "\(screen.kind.rawValue): \($0.path): " + $0.problems.joined(separator: ", ") }
        if screen.title.isEmpty { found.append("\(screen.kind.rawValue): the screen has no title") }
        var seen: Set<String> = []
        func ids(_ element: AccessibilityElement) {
            if !seen.insert(element.id).inserted { found.append("\(screen.kind.rawValue): id '\(element.id)' is used twice") }
            element.children.forEach(ids)
        }
        screen.elements.forEach(ids)
        return found
    }
}
