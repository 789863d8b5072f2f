import GRDB

extension StoryStore {
    /// A write transaction whose errors become ``StoreError``s.
    func write<T>(_ updates: (Database) throws -> T) throws(StoreError) -> T {
        if let readOnlyReason { throw readOnlyReason }
        do {
            return try pool.write(updates)
        } catch {
            throw Self.translate(error, path: path)
        }
    }

    /// A read whose errors become ``StoreError``s.
    func read<T>(_ value: (Database) throws -> T) throws(StoreError) -> T {
        do {
            return try pool.read(value)
        } catch {
            throw Self.translate(error, path: path)
        }
    }
}
