import Foundation
import GRDB

/// A stored row that could not be read back (a value of the wrong type or out of range, as rows
/// pulled from a site before pulled changes were checked can hold): it is skipped, or the damaged
/// field takes its default, and reported once.
public struct DamagedRow: Sendable, Hashable, CustomStringConvertible {
    public var table: String
    public var rowID: Int64?
    /// What could not be read (GRDB's message, which may quote the stored value: sanitize to show).
    public var reason: String

    public var description: String { "table \(table), row \(rowID.map(String.init) ?? "?"): \(reason)" }
}

/// Where a store reports the rows it could not read back: each once, to the handler the program
/// chose (the commands print a warning on standard error), and kept for tests.
final class DamagedRowLog: @unchecked Sendable {
    private let lock = NSLock()
    private var seen: [DamagedRow] = []
    private var handler: (@Sendable (DamagedRow) -> Void)?

    func setHandler(_ handler: @escaping @Sendable (DamagedRow) -> Void) {
        lock.withLock { self.handler = handler }
    }

    var rows: [DamagedRow] { lock.withLock { seen } }

    func report(_ row: DamagedRow) {
        let handler: (@Sendable (DamagedRow) -> Void)? = lock.withLock {
            guard !seen.contains(row) else { return nil }
            seen.append(row)
            return self.handler
        }
        handler?(row)
    }

    /// `body`'s value for `row`, or nil (reported) when the row cannot be read back: GRDB's
    /// throwing `decode` instead of its subscript, which stops the program on such a value.
    func decoding<T>(_ row: GRDB.Row, table: String, _ body: (GRDB.Row) throws -> T) -> T? {
        do {
            return try body(row)
        } catch {
            report(DamagedRow(table: table, rowID: Self.rowID(of: row), reason: String(String(describing: error).prefix(300))))
            return nil
        }
    }

    static func rowID(of row: GRDB.Row) -> Int64? {
        (try? row.decode(Int64?.self, forColumn: "id")) ?? (try? row.decode(Int64?.self, forColumn: "rowid")) ?? nil
    }
}

extension StoryStore {
    /// Where rows that cannot be read back are reported (each once); without a handler they are
    /// only skipped.
    public func reportDamagedRows(to handler: @escaping @Sendable (DamagedRow) -> Void) {
        damagedRows.setHandler(handler)
    }

    /// The rows found damaged so far (each once).
    public var damagedRowsFound: [DamagedRow] { damagedRows.rows }
}
