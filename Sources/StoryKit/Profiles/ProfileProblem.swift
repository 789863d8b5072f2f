/// One problem with a value typed into a profile field: names the field and says what to do.
public struct ProfileProblem: Error, Sendable, Hashable, CustomStringConvertible {
    public var field: ProfileField
    /// What is wrong and what to do, without the field's label
    /// (`the name is empty: type the child's name, 1 to 40 characters`).
    public var message: String

    /// The English message with `{placeholders}` (its key in the catalogs), and their values.
    public var template: String
    public var values: [String: String]

    public init(field: ProfileField, message: String) {
        self.field = field
        self.message = message
        template = message
        values = [:]
    }

    /// A problem whose message the catalogs translate: `template` is marked with `N_`.
    public init(field: ProfileField, template: String, _ values: [String: String] = [:]) {
        self.field = field
        self.template = template
        self.values = values
        message = MessageCatalog.fill(template, values)
    }

    /// `Name: the name is empty: type the child's name, 1 to 40 characters`.
    public var description: String { "\(field.label): \(message)" }

    /// The message in the interface's language.
    public func message(in messages: MessageCatalog) -> String { messages.tr(template, values) }

    /// The field's label and the message, in the interface's language.
    public func description(in messages: MessageCatalog) -> String {
        messages.tr("{field}: {problem}", ["field": messages.tr(field.label), "problem": message(in: messages)])
    }
}
