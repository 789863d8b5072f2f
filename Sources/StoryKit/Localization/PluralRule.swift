import Foundation

/// Which plural form a count takes in a language, from the `Plural-Forms` header of its `.po`
/// file — the C expression gettext itself evaluates, e.g. `nplurals=2; plural=(n > 1);` for
/// French ("0 histoire, 1 histoire, 2 histoires") and `nplurals=2; plural=(n != 1);` for English.
/// Reading the rule from the file, not from a table here, is what lets a new language be added
/// with one `.po` file.
public struct PluralRule: Sendable, Equatable {
    public let count: Int
    private let expression: Expression

    public struct ParseError: Error, Sendable, Equatable, CustomStringConvertible {
        public var reason: String
        public var description: String { "Plural-Forms: \(reason)" }
    }

    /// English's rule: one form for 1, another for everything else.
    public static let english = try! PluralRule(header: "nplurals=2; plural=(n != 1);")

    public init(header: String) throws {
        var count: Int?
        var plural: String?
        for part in header.split(separator: ";") {
            let pair = part.split(separator: "=", maxSplits: 1).map { $0.trimmingCharacters(in: .whitespaces) }
            guard pair.count == 2 else { continue }
            switch pair[0] {
            case "nplurals": count = Int(pair[1])
            case "plural": plural = pair[1]
            default: continue
            }
        }
        guard let count, (1...6).contains(count) else { throw ParseError(reason: "nplurals must be a number from 1 to 6") }
        guard let plural else { throw ParseError(reason: "no plural= expression") }
        var parser = Parser(tokens: try Self.tokens(plural))
        let expression = try parser.ternary()
        guard parser.atEnd else { throw ParseError(reason: "unexpected \(parser.rest) in \(plural)") }
        self.count = count
        self.expression = expression
    }

    /// The index of the form for `n` (0 ..< count; an expression that says more is clamped).
    public func form(for n: Int) -> Int {
        let value = expression.evaluate(UInt64(max(0, n)))
        return Int(min(value, UInt64(count - 1)))
    }

    // MARK: Expression

    private indirect enum Expression: Sendable, Equatable {
        case n
        case number(UInt64)
        case not(Expression)
        case binary(String, Expression, Expression)
        case choice(Expression, Expression, Expression)

        func evaluate(_ n: UInt64) -> UInt64 {
            switch self {
            case .n: return n
            case .number(let value): return value
            case .not(let inner): return inner.evaluate(n) == 0 ? 1 : 0
            case .choice(let condition, let yes, let no): return condition.evaluate(n) != 0 ? yes.evaluate(n) : no.evaluate(n)
            case .binary(let op, let left, let right):
                let a = left.evaluate(n)
                // && and || short-circuit, as in C.
                if op == "&&" { return a != 0 && right.evaluate(n) != 0 ? 1 : 0 }
                if op == "||" { return a != 0 || right.evaluate(n) != 0 ? 1 : 0 }
                let b = right.evaluate(n)
                switch op {
                case "==": return a == b ? 1 : 0
                case "!=": return a != b ? 1 : 0
                case "<": return a < b ? 1 : 0
                case ">": return a > b ? 1 : 0
                case "<=": return a <= b ? 1 : 0
                case ">=": return a >= b ? 1 : 0
                case "+": return a &+ b
                case "-": return a &- b
                case "*": return a &* b
                case "/": return b == 0 ? 0 : a / b
                case "%": return b == 0 ? 0 : a % b
                default: return 0
                }
            }
        }
    }

    private static func tokens(_ text: String) throws -> [String] {
        var tokens: [String] = []
        var characters = Array(text)[...]
        while let first = characters.first {
            if first == " " || first == "\t" {
                characters = characters.dropFirst()
                continue
            }
            if first.isNumber {
                let digits = characters.prefix { $0.isNumber }
                tokens.append(String(digits))
                characters = characters.dropFirst(digits.count)
                continue
            }
            let two = String(characters.prefix(2))
            if ["==", "!=", "<=", ">=", "&&", "||"].contains(two) {
                tokens.append(two)
                characters = characters.dropFirst(2)
                continue
            }
            guard "n()?:<>!+-*/%".contains(first) else { throw ParseError(reason: "unexpected \(first)") }
            tokens.append(String(first))
            characters = characters.dropFirst()
        }
        return tokens
    }

    /// Precedence climbing over C's operators, as gettext's own grammar has them.
    private struct Parser {
        var tokens: [String]
        var position = 0

        var atEnd: Bool { position == tokens.count }
        var rest: String { tokens[position...].joined(separator: " ") }
        var next: String? { position < tokens.count ? tokens[position] : nil }

        mutating func take(_ token: String) -> Bool {
            guard next == token else { return false }
            position += 1
            return true
        }

        mutating func ternary() throws -> Expression {
            let condition = try binary(level: 0)
            guard take("?") else { return condition }
            let yes = try ternary()
            guard take(":") else { throw ParseError(reason: "a ? without its :") }
            return .choice(condition, yes, try ternary())
        }

        static let levels: [[String]] = [["||"], ["&&"], ["==", "!="], ["<", ">", "<=", ">="], ["+", "-"], ["*", "/", "%"]]

        mutating func binary(level: Int) throws -> Expression {
            guard level < Self.levels.count else { return try unary() }
            var left = try binary(level: level + 1)
            while let op = next, Self.levels[level].contains(op) {
                position += 1
                left = .binary(op, left, try binary(level: level + 1))
            }
            return left
        }

        mutating func unary() throws -> Expression {
            if take("!") { return .not(try unary()) }
            if take("(") {
                let inner = try ternary()
                guard take(")") else { throw ParseError(reason: "a ( without its )") }
                return inner
            }
            if take("n") { return .n }
            if let token = next, let value = UInt64(token) {
                position += 1
                return .number(value)
            }
            throw ParseError(reason: next.map { "unexpected \($0)" } ?? "the expression ends too soon")
        }
    }
}
