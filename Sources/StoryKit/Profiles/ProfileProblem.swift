/// One problem with a value typed into a profile field: names the field and says what to do.
public struct ProfileProblem: Error, Sendable, Hashable, CustomStringConvertible {
    public var field: ProfileField
    /// What is wrong and what to do, without the field's label
    /// (`the name is empty: type the child's name, 1 to 40 characters`).
    public var message: String

    public init(field: ProfileField, message: String) {
        self.field = field
        self.message = message
    }

    /// `Name: the name is empty: type the child's name, 1 to 40 characters`.
    public var description: String { "\(field.label): \(message)" }
}
