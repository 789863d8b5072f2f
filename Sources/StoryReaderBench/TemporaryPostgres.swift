#if Server
    import Foundation
    import StoryKitTestSupport
    import StoryReader
    import StoryServer

    /// A throw-away PostgreSQL 15 for `bench sync` when no `--database` is given: the tests' own
    /// (`PostgresServer`: `initdb` in a temporary folder, as the `postgres` user when run as root, a
    /// free loopback port, trust authentication, stopped with SIGINT and removed at the end).
    enum TemporaryPostgres {
        /// The database a benchmark was given, or a temporary one started for it (to stop at the end).
        static func orGiven(_ given: String?, passwordFile: String?) throws -> (url: String, address: DatabaseAddress, temporary: PostgresServer?) {
            var temporary: PostgresServer?
            let url: String
            if let given {
                url = given
            } else {
                let started: PostgresServer
                do { started = try PostgresServer.start() } catch { throw StoreCommandSupport.fail("\(error), or give --database") }
                temporary = started
                url = started.url
                print("bench: a temporary PostgreSQL on port \(started.port)")
            }
            do {
                return (url, try DatabaseAddress(url: url, passwordFile: passwordFile), temporary)
            } catch {
                temporary?.stop()
                throw StoreCommandSupport.fail(error.description)
            }
        }
    }
#endif
