import Foundation

/// The profile form being filled in: fields in focus order, each with a label, a hint, a value
/// and a rule. Stands in for the profile issue's `ProfileForm` until the store lands.
public struct ProfileDraft: Sendable, Hashable {
    public enum Field: String, Sendable, Hashable, CaseIterable {
        case name, age, interests

        public var label: String {
            switch self {
            case .name: "Name"
            case .age: "Age"
            case .interests: "Interests"
            }
        }

        public var hint: String {
            switch self {
            case .name: "Type the child's name, up to 20 letters."
            case .age: "Type an age from 2 to 12."
            case .interests: "Type interests separated by commas, like animals, space."
            }
        }
    }

    public var values: [Field: String] = [:]
    /// The profile being edited (nil: a new one).
    public var editing: String?
    /// The known interests, for the hint and the check.
    public var knownInterests: [String]

    public init(knownInterests: [String], editing: ProfileRecord? = nil) {
        self.knownInterests = knownInterests
        if let editing {
            self.editing = editing.name
            values[.name] = editing.name
            values[.age] = editing.age.map(String.init) ?? ""
            values[.interests] = editing.interests.joined(separator: ", ")
        }
    }

    public func value(_ field: Field) -> String { values[field] ?? "" }

    /// The first mistake, with the field it is in, worded to be spoken; nil when the form is good.
    public func problem(existingNames: [String]) -> (field: Field, message: String)? {
        let name = value(.name).trimmingCharacters(in: .whitespaces)
        if name.isEmpty { return (.name, "Name is empty. Type a name.") }
        if name.count > 20 { return (.name, "Name is too long: \(name.count) letters. Use 20 or fewer.") }
        if name != editing, existingNames.contains(where: { $0.lowercased() == name.lowercased() }) {
            return (.name, "There is already a profile called \(name). Choose another name.")
        }
        let ageText = value(.age).trimmingCharacters(in: .whitespaces)
        if !ageText.isEmpty {
            guard let age = Int(ageText), (2...12).contains(age) else {
                return (.age, "Age must be a number from 2 to 12. You typed \(Sanitizer.sanitizeLine(String(ageText.prefix(12)))).")
            }
        }
        let unknown = interests.filter { !knownInterests.contains($0) }
        if let first = unknown.first {
            return (.interests, "I don't know the interest \(first). Choose from: \(knownInterests.joined(separator: ", ")).")
        }
        return nil
    }

    public var interests: [String] {
        value(.interests).split(separator: ",").map { $0.trimmingCharacters(in: .whitespaces).lowercased() }.filter { !$0.isEmpty }
    }

    /// The profile, once `problem` is nil.
    public func record(base: ProfileRecord) -> ProfileRecord {
        var record = base
        record.name = Sanitizer.sanitizeLine(value(.name).trimmingCharacters(in: .whitespaces))
        record.age = Int(value(.age).trimmingCharacters(in: .whitespaces))
        record.interests = interests
        return record
    }
}
