import ArgumentParser
import Foundation
import StoryKit
import StoryServer

/// `storyreader serve staff`: the grown-ups who may sign in to the server's web page.
struct ServeStaffCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "staff",
        abstract: helpMessages.tr("Add, list or remove the parents and librarians who sign in to the server's web page."),
        subcommands: [Add.self, List.self, Remove.self])

    struct Add: AsyncParsableCommand {
        static let configuration = CommandConfiguration(
            abstract: helpMessages.tr("Add a parent or librarian to a site and print their passphrase (shown once, stored as a slow salted hash)."))
        @OptionGroup var database: DatabaseOptions
        @Argument(help: ArgumentHelp(helpMessages.tr("The site's name."))) var site: String
        @Option(help: ArgumentHelp(helpMessages.tr("The name they sign in with (unique on this server)."))) var name: String
        @Option(help: ArgumentHelp(helpMessages.tr("librarian (sees every child of the site) or parent (sees only the children given with --child).")))
        var role: String
        @Option(name: .customLong("child"), help: ArgumentHelp(helpMessages.tr("A child a parent may see, by name (repeat for each child).")))
        var children: [String] = []

        func validate() throws {
            let trimmed = name.trimmingCharacters(in: .whitespaces)
            guard (1...60).contains(trimmed.count), Sanitizer.sanitizeLine(trimmed) == trimmed else {
                throw ValidationError(helpMessages.tr("--name: use 1 to 60 letters, digits, spaces or punctuation, without control characters"))
            }
            guard role == "librarian" || role == "parent" else {
                throw ValidationError(helpMessages.tr("--role '{role}': use librarian or parent", ["role": Sanitizer.sanitizeLine(role)]))
            }
            if role == "parent", children.isEmpty {
                throw ValidationError(helpMessages.tr("a parent sees only their children: name each with --child NAME"))
            }
            if role == "librarian", !children.isEmpty {
                throw ValidationError(helpMessages.tr("a librarian sees every child of the site: leave out --child"))
            }
            for child in children where child.trimmingCharacters(in: .whitespaces).isEmpty || Sanitizer.sanitizeLine(child) != child {
                throw ValidationError(helpMessages.tr("--child '{name}': give the child's name as a kiosk shows it", ["name": Sanitizer.sanitizeLine(child)]))
            }
        }

        func run() async throws {
            #if Server
                let (site, name, children) = (site, name.trimmingCharacters(in: .whitespaces), children)
                let role: StaffMember.Role = role == "librarian" ? .librarian : .parent
                let passphrase = try await database.task("staff add") {
                    try await $0.addStaff(site: site, name: name, role: role, children: children)
                }
                print(passphrase)
            #else
                try requireServerBuild()
            #endif
        }
    }

    struct List: AsyncParsableCommand {
        static let configuration = CommandConfiguration(abstract: helpMessages.tr("List the parents and librarians of every site."))
        @OptionGroup var database: DatabaseOptions

        func run() async throws {
            #if Server
                let staff = try await database.task("staff list") { try await $0.listStaff() }
                if staff.isEmpty {
                    print(helpMessages.tr("No parents or librarians yet: add one with 'storyreader serve staff add SITE --name NAME --role librarian'."))
                }
                for member in staff {
                    let children = member.children.isEmpty ? "" : " (" + member.children.map(Sanitizer.sanitizeLine).joined(separator: ", ") + ")"
                    print("\(Sanitizer.sanitizeLine(member.site))\t\(Sanitizer.sanitizeLine(member.name))\t\(member.role.rawValue)\(children)")
                }
            #else
                try requireServerBuild()
            #endif
        }
    }

    struct Remove: AsyncParsableCommand {
        static let configuration = CommandConfiguration(abstract: helpMessages.tr("Remove a parent or librarian; their sessions end at once."))
        @OptionGroup var database: DatabaseOptions
        @Option(help: ArgumentHelp(helpMessages.tr("The name they sign in with."))) var name: String

        func run() async throws {
            #if Server
                let name = name
                let removed = try await database.task("staff remove") { try await $0.removeStaff(name: name) }
                guard removed else {
                    throw StoreCommandSupport.fail(
                        helpMessages.tr(
                            "staff remove: nobody is called {name} on this server ('storyreader serve staff list' shows who is)",
                            ["name": Sanitizer.sanitizeLine(name)]))
                }
                print(helpMessages.tr("Removed {name}.", ["name": Sanitizer.sanitizeLine(name)]))
            #else
                try requireServerBuild()
            #endif
        }
    }
}
