public import Foundation

/// Where the server's PostgreSQL is: `postgres://USER@HOST:PORT/DATABASE`. The password never comes
/// from the command line: `PGPASSWORD`, then `~/.pgpass` (as libpq reads it), then a file of mode 0600.
public struct DatabaseAddress: Sendable, Hashable {
    public var user: String
    public var host: String
    public var port: Int
    public var database: String
    public var password: String?

    public enum Problem: Error, CustomStringConvertible {
        case notAURL(String)
        case passwordInURL
        case passwordFile(String)
        public var description: String {
            switch self {
            case .notAURL(let text): "--database: '\(text)' is not a postgres://USER@HOST:PORT/DATABASE address"
            case .passwordInURL: "--database: leave the password out of the address (it would show in `ps`); use PGPASSWORD, ~/.pgpass or --password-file"
            case .passwordFile(let why): "--password-file: \(why)"
            }
        }
    }

    public init(url text: String, passwordFile: String? = nil, environment: [String: String] = ProcessInfo.processInfo.environment)
        throws(Problem)
    {
        guard let components = URLComponents(string: text), ["postgres", "postgresql"].contains(components.scheme ?? ""),
            let host = components.host, !host.isEmpty
        else { throw .notAURL(text) }
        if components.password != nil { throw .passwordInURL }
        user = components.user ?? environment["PGUSER"] ?? environment["USER"] ?? "postgres"
        self.host = host
        port = components.port ?? 5432
        let path = components.path.trimmingCharacters(in: CharacterSet(charactersIn: "/"))
        database = path.isEmpty ? user : path
        if let passwordFile {
            var info = stat()
            guard stat(passwordFile, &info) == 0, let contents = try? String(contentsOfFile: passwordFile, encoding: .utf8) else {
                throw .passwordFile("cannot read \(passwordFile)")
            }
            guard info.st_mode & 0o077 == 0 else { throw .passwordFile("\(passwordFile) must be readable by its owner only (chmod 600)") }
            password = contents.trimmingCharacters(in: .newlines)
        } else if let fromEnvironment = environment["PGPASSWORD"] {
            password = fromEnvironment
        } else {
            password = Self.fromPgpass(environment: environment, host: host, port: port, database: database, user: user)
        }
    }

    /// The first matching `host:port:database:user:password` line of ~/.pgpass (`*` matches anything).
    static func fromPgpass(environment: [String: String], host: String, port: Int, database: String, user: String) -> String? {
        let path = environment["PGPASSFILE"] ?? ((environment["HOME"] ?? NSHomeDirectory()) + "/.pgpass")
        guard let text = try? String(contentsOfFile: path, encoding: .utf8) else { return nil }
        for line in text.split(separator: "\n") where !line.hasPrefix("#") {
            let fields = line.split(separator: ":", maxSplits: 4, omittingEmptySubsequences: false).map(String.init)
            guard fields.count == 5 else { continue }
            let wanted = [host, String(port), database, user]
            if zip(fields.prefix(4), wanted).allSatisfy({ $0 == "*" || $0 == $1 }) { return fields[4] }
        }
        return nil
    }
}
