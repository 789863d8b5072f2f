import ArgumentParser
import Foundation
import StoryKit

/// `storyreader sync`: share profiles, read counts, places and the kiosk log with a site's server.
struct SyncCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "sync",
        abstract: helpMessages.tr("Share profiles, read counts, places and kiosk logs with a site's server."),
        discussion: helpParagraphs(
            helpMessages.tr(
                "A site (a library, a classroom) runs one 'storyreader serve'; each kiosk joins it once with the token the server printed, and then syncs by itself in the background (at start, after each finished read, every 60 s). Without a server, nothing changes: the kiosk keeps everything in its own data folder and starts no network code."
            ),
            helpLines(
                helpMessages.tr("Examples:"),
                "  storyreader sync join https://stories.library.example --token branch1.Q2x…   " + helpMessages.tr("join a site"),
                #"  echo "$TOKEN" | storyreader sync join https://stories.library.example         "# + helpMessages.tr("token from stdin"),
                "  storyreader sync                       " + helpMessages.tr("one round now, says what moved"),
                "  storyreader sync --status              " + helpMessages.tr("last success, changes waiting, last error"),
                "  storyreader sync --status --json"),
            helpMessages.tr("See docs/sites.md for running the server.")),
        subcommands: [SyncRoundCommand.self, SyncJoinCommand.self],
        defaultSubcommand: SyncRoundCommand.self)
}

struct SyncRoundCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "now", abstract: helpMessages.tr("Run one sync round (the default), or show the status with --status."))
    @OptionGroup var global: GlobalOptions
    @Flag(help: ArgumentHelp(helpMessages.tr("Show the last successful sync, the changes waiting to be sent and the last error; sync nothing."))) var status =
        false
    @Flag(help: ArgumentHelp(helpMessages.tr("With --status: print JSON."))) var json = false
    @Option(
        help: ArgumentHelp(
            helpMessages.tr("How many times to try when the server cannot be reached or does not answer (waiting 1 s, then 2 s, 4 s … between tries).")))
    var attempts = 3

    struct StatusReport: Encodable {
        var joined: Bool
        var server: String?
        var site: String?
        var lastSuccess: Date?
        var lastMoved: String?
        var outbox: Int
        var lastError: String?
        var clockWarning: String?
        /// Wrong PIN tries on every kiosk of the site, newest first.
        var pinFailures: [SyncStatus.PINFailure]
        /// Changes set aside as invalid (pulled, or refused by the server), and why the newest was.
        var setAside: Int
        var lastSetAside: String?
    }

    func run() async throws {
        let store = try StoreCommandSupport.openStore(global)
        let settings: SyncSettings?
        do { settings = try SyncClient.load(from: global.dataDirectory()) } catch { throw StoreCommandSupport.fail(error, global.messages) }
        if status {
            let state = try store.syncStatus()
            let report = StatusReport(
                joined: settings != nil && state.joined, server: settings?.url, site: settings?.site, lastSuccess: state.lastSuccess,
                lastMoved: state.lastMoved, outbox: state.outbox, lastError: state.lastError, clockWarning: state.clockWarning,
                pinFailures: state.pinFailures, setAside: state.setAside, lastSetAside: state.lastSetAside)
            if json { return try StoreCommandSupport.printJSON(report) }
            let messages = global.messages
            guard let settings else { return print(messages.tr("Not joined to a site: everything stays on this machine.")) }
            print(messages.tr("Site: {site} at {url}", ["site": settings.site, "url": settings.url]))
            let last = state.lastSuccess.map { $0.formatted(date: .abbreviated, time: .standard) } ?? messages.tr("never")
            print(messages.tr("Last successful sync: {time}", ["time": last]))
            if let moved = state.lastMoved { print("  \(moved)") }
            print(messages.tr("Changes waiting to be sent: {count}", ["count": String(state.outbox)]))
            if let error = state.lastError { print(messages.tr("Last error: {error}", ["error": StoreCommandSupport.safe(error)])) }
            if let warning = state.clockWarning { print(messages.tr("Warning: {warning}", ["warning": StoreCommandSupport.safe(messages.text(warning))])) }
            if state.setAside > 0 {
                print(
                    messages.trn(
                        "Set aside as invalid: {count} change (the last because {reason})", "Set aside as invalid: {count} changes (the last because {reason})",
                        state.setAside, ["reason": StoreCommandSupport.safe(state.lastSetAside ?? "")]))
            }
            if let last = state.pinFailures.first {
                let count = state.pinFailures.count
                print(
                    messages.tr(
                        "Wrong PIN tries on the site: {count} (the last on kiosk {kiosk}, {time}; each kiosk locks only itself)",
                        [
                            "count": String(count), "kiosk": StoreCommandSupport.safe(last.kiosk),
                            "time": last.at.formatted(date: .abbreviated, time: .standard),
                        ]))
            }
            return
        }
        let messages = global.messages
        if json { throw ValidationError(messages.tr("--json goes with --status")) }
        guard (1...10).contains(attempts) else {
            throw ValidationError(messages.tr("--attempts must be 1 to 10 (it was {count})", ["count": String(attempts)]))
        }
        guard let settings else {
            throw StoreCommandSupport.fail(messages.tr("this machine has not joined a site: run 'storyreader sync join URL --token TOKEN' first"))
        }
        do {
            // A grown-up waits at most three calls' deadlines and the waits between them.
            let round = try await SyncClient(settings: settings).roundRetrying(store, attempts: attempts) { failure, wait in
                let again = messages.trn("trying again in {count} second", "trying again in {count} seconds", Int(wait))
                FileHandle.standardError.write(Data("storyreader: \(failure.localized(messages)); \(again)\n".utf8))
            }
            print(messages.tr("Synced with {site}: {summary}.", ["site": settings.site, "summary": round.summary(messages)]))
            if round.setAside > 0 {
                print(
                    messages.trn(
                        "{count} invalid change was set aside (see 'storyreader sync --status').",
                        "{count} invalid changes were set aside (see 'storyreader sync --status').", round.setAside))
            }
            if let warning = round.clockWarning { print(messages.tr("Warning: {warning}", ["warning": StoreCommandSupport.safe(messages.text(warning))])) }
        } catch {
            let reason = (error as? SyncFailure)?.localized(messages) ?? String(describing: error)
            throw StoreCommandSupport.fail(
                messages.tr(
                    "sync with {url} failed: {reason} (the changes wait here for the next try)",
                    ["url": settings.url, "reason": reason]))
        }
    }
}

struct SyncJoinCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "join", abstract: helpMessages.tr("Join this kiosk to a site's server (saves the address and token, mode 0600)."))
    @OptionGroup var global: GlobalOptions
    @Argument(help: ArgumentHelp(helpMessages.tr("The server's address, https://… (plain http:// only to this machine, or with --insecure)."))) var url: String
    @Option(help: ArgumentHelp(helpMessages.tr("The kiosk token from 'storyreader serve site add SITE' (read from standard input when not given)."))) var token:
        String?
    @Flag(help: ArgumentHelp(helpMessages.tr("Allow plain http:// to another machine (the token crosses the network readable)."))) var insecure = false

    func run() async throws {
        let messages = global.messages
        do {
            _ = try SyncClient.checkURL(url, insecure: insecure)
        } catch {
            throw StoreCommandSupport.fail(error.localized(messages))
        }
        let given = token ?? readLine(strippingNewline: true)
        guard let token = given?.trimmingCharacters(in: .whitespaces), !token.isEmpty else {
            throw StoreCommandSupport.fail(messages.tr("no token: give --token TOKEN or type it on standard input"))
        }
        let site: String
        do { site = try SyncClient.site(ofToken: token) } catch { throw StoreCommandSupport.fail(error.localized(messages)) }
        let store = try StoreCommandSupport.openStore(global)
        let settings = SyncSettings(url: url, site: site, token: token)
        do {
            try SyncClient.save(settings, in: global.dataDirectory())
            try store.markJoined()
        } catch {
            throw StoreCommandSupport.fail(
                messages.tr(
                    "could not save the server in {folder}: {reason}",
                    ["folder": global.dataDirectory().path, "reason": String(describing: error)]))
        }
        print(messages.tr("Joined site {site} at {url}. Everything on this machine will be shared with it.", ["site": site, "url": url]))
        do {
            let round = try await SyncClient(settings: settings).round(store)
            print(messages.tr("First sync: {summary}.", ["summary": round.summary(messages)]))
        } catch {
            let reason = (error as? SyncFailure)?.localized(messages) ?? String(describing: error)
            print(messages.tr("The first sync did not work yet ({reason}); the kiosk keeps working and tries again later.", ["reason": reason]))
        }
    }
}
