import ArgumentParser
import Foundation
import StoryKit
import StoryServer

/// `storyreader serve`: the sync server a site's kiosks share (built with the "Server" trait).
struct ServeCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "serve",
        abstract: helpMessages.tr("Run the sync server that a site's kiosks share (PostgreSQL behind an HTTP API)."),
        discussion: helpParagraphs(
            helpMessages.tr(
                "The server owns its PostgreSQL schema (created and migrated at start). Kiosks never hold database credentials: each gets a token from 'serve site add'. The password comes from PGPASSWORD, ~/.pgpass or --password-file (mode 0600), never from the command line. Put it behind a TLS proxy when kiosks reach it over a network (docs/sites.md)."
            ),
            helpLines(
                helpMessages.tr("Examples:"),
                "  storyreader serve --database postgres://stories@localhost/stories --listen 127.0.0.1:8750",
                "  storyreader serve site add branch1 --database postgres://stories@localhost/stories",
                "  storyreader serve site revoke branch1 --database postgres://stories@localhost/stories",
                "  storyreader serve staff add branch1 --name Ana --role librarian --database postgres://stories@localhost/stories"),
            helpMessages.tr("This program must be built with the server: 'make server' (swift build --traits Server).")),
        subcommands: [ServeRunCommand.self, ServeSiteCommand.self, ServeStaffCommand.self],
        defaultSubcommand: ServeRunCommand.self)
}

struct DatabaseOptions: ParsableArguments {
    @Option(help: ArgumentHelp(helpMessages.tr("The PostgreSQL database: postgres://USER@HOST:PORT/DATABASE (no password here)."))) var database: String
    @Option(help: ArgumentHelp(helpMessages.tr("A file (mode 0600) holding the database password.")), completion: .file()) var passwordFile: String?

    func address() throws -> DatabaseAddress {
        do { return try DatabaseAddress(url: database, passwordFile: passwordFile) } catch {
            throw StoreCommandSupport.fail(error.description)
        }
    }
}

#if Server
    extension DatabaseOptions {
        /// Runs one task of `storyreader serve site|staff` against the server's database (its schema
        /// brought up to date first), turning its failures into messages that name the task (`what`).
        func task<T: Sendable>(_ what: String, _ body: @escaping @Sendable (ServerDatabase) async throws -> T) async throws -> T {
            do {
                return try await SyncServer.withDatabase(try address(), body)
            } catch let failure as UserFailure {
                throw failure
            } catch let refused as ServerDatabase.Disagreement {
                throw StoreCommandSupport.fail("\(what): \(refused.description)")
            } catch {
                throw StoreCommandSupport.fail("\(what): \(error)")
            }
        }
    }
#endif

/// Says how to get the server when this build has none.
package func requireServerBuild() throws {
    if !serverIsBuiltIn {
        throw StoreCommandSupport.fail(
            helpMessages.tr(
                "this storyreader was built without the sync server: build it with 'make server' (swift build --traits Server) and run .build/debug/storyreader serve"
            ))
    }
}

struct ServeRunCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(commandName: "run", abstract: helpMessages.tr("Serve kiosks (the default)."))
    @OptionGroup var database: DatabaseOptions
    @Option(help: ArgumentHelp(helpMessages.tr("Address and port to listen on."))) var listen = "127.0.0.1:8750"
    @Option(help: ArgumentHelp(helpMessages.tr("Seconds each database call may take before the kiosk is told 503 (try later)."))) var deadline = 5.0
    @Option(
        name: .customLong("idle-timeout"),
        help: ArgumentHelp(
            helpMessages.tr("Seconds a connection may stay silent, or take to send its headers, before it is closed (a body gets four times as long).")))
    var idleTimeout = 30.0
    @Option(
        name: .customLong("max-connections"),
        help: ArgumentHelp(helpMessages.tr("The most connections served at once (default: what the open-file limit allows); more wait their turn.")))
    var maxConnections: Int?

    func run() async throws {
        try requireServerBuild()
        let parts = listen.split(separator: ":")
        guard parts.count == 2, let port = Int(parts[1]), (0...65535).contains(port) else {
            throw ValidationError(helpMessages.tr("--listen: '{value}' is not HOST:PORT, e.g. 127.0.0.1:8750", ["value": Sanitizer.sanitizeLine(listen)]))
        }
        guard idleTimeout >= 0.1, idleTimeout <= 3600 else {
            throw ValidationError(helpMessages.tr("--idle-timeout must be 0.1 to 3600 seconds (it was {value})", ["value": String(idleTimeout)]))
        }
        if let maxConnections, maxConnections < 1 {
            throw ValidationError(helpMessages.tr("--max-connections must be 1 or more (it was {value})", ["value": String(maxConnections)]))
        }
        #if Server
            var options = SyncServer.Options(
                database: try database.address(), host: String(parts[0]), port: port, callDeadline: deadline, idleTimeout: idleTimeout,
                maximumConnections: maxConnections)
            options.languages = Catalogs.languages
            do {
                try await SyncServer.run(options) { address in
                    FileHandle.standardOutput.write(Data((helpMessages.tr("storyreader serve: listening on {address}", ["address": "\(address)"]) + "\n").utf8))
                }
                FileHandle.standardOutput.write(Data((helpMessages.tr("storyreader serve: stopped") + "\n").utf8))
            } catch {
                throw StoreCommandSupport.fail("serve: \(error)")
            }
        #endif
    }
}

struct ServeSiteCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "site", abstract: helpMessages.tr("Add a site (and print a kiosk token) or revoke a site's tokens."),
        subcommands: [Add.self, Revoke.self])

    struct Add: AsyncParsableCommand {
        static let configuration = CommandConfiguration(
            abstract: helpMessages.tr("Print a new kiosk token for the site (created when new). The token is shown once and stored hashed."))
        @OptionGroup var database: DatabaseOptions
        @Argument(help: ArgumentHelp(helpMessages.tr("The site's name: lower-case letters, digits and '-'."))) var name: String

        func validate() throws {
            guard !name.isEmpty, name.count <= 40, name.allSatisfy({ $0.isASCII && ($0.isLowercase || $0.isNumber || $0 == "-") }) else {
                throw ValidationError(
                    helpMessages.tr("site name '{name}': use lower-case letters, digits and '-' (at most 40)", ["name": Sanitizer.sanitizeLine(name)]))
            }
        }

        func run() async throws {
            try requireServerBuild()
            #if Server
                let site = name
                print(try await database.task("site add") { try await $0.addSite(site) })
            #endif
        }
    }

    struct Revoke: AsyncParsableCommand {
        static let configuration = CommandConfiguration(abstract: helpMessages.tr("Refuse every token of the site from now on."))
        @OptionGroup var database: DatabaseOptions
        @Argument(help: ArgumentHelp(helpMessages.tr("The site's name."))) var name: String

        func run() async throws {
            try requireServerBuild()
            #if Server
                let site = name
                let count = try await database.task("site revoke") { try await $0.revokeSite(site) }
                print(helpMessages.trn("Revoked {count} token of {site}.", "Revoked {count} tokens of {site}.", count, ["site": site]))
            #endif
        }
    }
}
