import Foundation

/// How an element is spoken: label, value, traits, then the hint.
///
/// "Story: The Lighthouse Cat, read 3 times, button. Press Enter to open."
public enum SpokenForm {
    /// The spoken description of `element`.
    ///
    /// - Parameters:
    ///   - element: the element; when it `combinesChildren`, its children's labels and values
    ///     follow its own value (a card is spoken as one element).
    ///   - hints: whether to add the hint and the custom actions (a profile setting).
    ///   - messages: the interface's language (traits and "Press A for actions" are said in it).
    public static func describe(_ element: AccessibilityElement, hints: Bool = true, messages: MessageCatalog = .english) -> String {
        var parts: [String] = [element.spokenLabel ?? element.label]
        if let value = element.value, !value.isEmpty { parts.append(value) }
        if element.combinesChildren {
            for child in element.children where !child.isHidden {
                parts.append(contentsOf: [child.label, child.value ?? ""].filter { !$0.isEmpty })
            }
        }
        // "Picture: a lantern on a stone" says what it is already.
        let picturePrefix = messages.tr("Picture: {description}", ["description": ""]).trimmingCharacters(in: .whitespaces)
        parts.append(
            contentsOf: element.traits.spokenNames.filter { !($0 == "picture" && element.label.hasPrefix(picturePrefix)) }
                .map { messages.tr($0) })
        parts = parts.filter { !$0.isEmpty }
        // A part that ends a sentence ("…towards it.") is not followed by ", picture".
        for index in parts.indices.dropLast() where parts[index].hasSuffix(".") && !parts[index].hasSuffix("...") {
            parts[index].removeLast()
        }
        var sentences = [parts.joined(separator: ", ")]
        if hints {
            if let hint = element.hint, !hint.isEmpty { sentences.append(hint) }
            if !element.customActions.isEmpty {
                sentences.append(messages.tr("Press A for actions: {actions}", ["actions": element.customActions.map(\.name).joined(separator: ", ")]))
            }
        }
        return sentences.map(finish).joined(separator: " ")
    }

    /// Ends a sentence with a full stop unless it already ends with punctuation.
    public static func finish(_ text: String) -> String {
        guard let last = text.last else { return text }
        return ".!?".contains(last) ? text : text + "."
    }
}
