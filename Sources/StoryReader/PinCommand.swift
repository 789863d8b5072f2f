import ArgumentParser
import Foundation
import StoryKit

/// `storyreader pin set|change|clear`: the parental PIN that guards profiles and settings.
struct PinCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "pin",
        abstract: helpMessages.tr("Set, change or clear the parental PIN (4 to 8 digits)."),
        discussion: helpParagraphs(
            helpMessages.tr(
                "On a kiosk joined to a site (storyreader sync join) the PIN is the site's: setting, changing and clearing it need the site's server, and every kiosk of the site takes it at its next sync."
            ),
            helpMessages.tr(
                "On a terminal the PIN is typed without being shown, and a new PIN is asked twice. From a pipe each PIN is one line of standard input: `set` reads the new PIN; `change` the current PIN then the new one; `clear` the current PIN. After 5 wrong tries the PIN is locked for 30 seconds, then 1, 2, 4 … minutes after each further wrong try."
            )),
        subcommands: [Set.self, Change.self, Clear.self]
    )

    /// Reads a new PIN (twice on a terminal), checking its shape.
    static func readNewPIN(_ prompter: Prompter, _ messages: MessageCatalog) throws -> String {
        guard let first = prompter.askSecret(messages.tr("New PIN (4 to 8 digits):") + " ") else {
            throw StoreCommandSupport.fail(messages.tr("no PIN was given: type 4 to 8 digits (from a pipe, one line)"))
        }
        let pin: String
        do { pin = try ParentalPIN.validate(first) } catch { throw StoreCommandSupport.fail(error, messages) }
        if prompter.isTerminal {
            guard let again = prompter.askSecret(messages.tr("Type the new PIN again:") + " "), again.trimmingCharacters(in: .whitespaces) == pin else {
                throw StoreCommandSupport.fail(messages.tr("PIN: the two PINs differ: nothing was changed; run the command again"))
            }
        }
        return pin
    }

    static func readCurrentPIN(_ prompter: Prompter, _ messages: MessageCatalog) throws -> String {
        guard let pin = prompter.askSecret(messages.tr("Current PIN:") + " ") else {
            throw StoreCommandSupport.fail(messages.tr("the current PIN is needed: type it (from a pipe, as the first line)"))
        }
        return pin
    }

    struct Set: ParsableCommand {
        static let configuration = CommandConfiguration(abstract: helpMessages.tr("Set the parental PIN when none is set."))
        @OptionGroup var global: GlobalOptions

        func run() throws {
            let store = try StoreCommandSupport.openStore(global)
            let messages = global.messages
            do {
                if try store.isPINSet() { throw StoreError.pinAlreadySet }
                try store.setPIN(try PinCommand.readNewPIN(Prompter(), messages))
                print(messages.tr("The parental PIN is set: adding, editing and removing profiles now asks for it."))
                if try store.isJoined() { print(messages.tr("It is the site's PIN: every kiosk of the site takes it at its next sync.")) }
            } catch let error as StoreError {
                throw StoreCommandSupport.fail(error, messages)
            }
        }
    }

    struct Change: ParsableCommand {
        static let configuration = CommandConfiguration(abstract: helpMessages.tr("Change the parental PIN (asks for the current one)."))
        @OptionGroup var global: GlobalOptions

        func run() throws {
            let store = try StoreCommandSupport.openStore(global)
            let messages = global.messages
            let prompter = Prompter()
            do {
                guard try store.isPINSet() else { throw StoreError.noPINSet }
                let remaining = try store.pinLockout().remaining(at: store.now)
                if remaining > 0 { throw StoreError.pinLocked(remaining: remaining) }
                let current = try PinCommand.readCurrentPIN(prompter, messages)
                try store.verifyPIN(current)
                let new = try PinCommand.readNewPIN(prompter, messages)
                try store.changePIN(current: current, to: new)
                print(messages.tr("The parental PIN is changed."))
                if try store.isJoined() { print(messages.tr("It is the site's PIN: every kiosk of the site takes it at its next sync.")) }
            } catch let error as StoreError {
                throw StoreCommandSupport.fail(error, messages)
            }
        }
    }

    struct Clear: ParsableCommand {
        static let configuration = CommandConfiguration(abstract: helpMessages.tr("Remove the parental PIN (asks for it)."))
        @OptionGroup var global: GlobalOptions

        func run() throws {
            let store = try StoreCommandSupport.openStore(global)
            let messages = global.messages
            do {
                guard try store.isPINSet() else { throw StoreError.noPINSet }
                let remaining = try store.pinLockout().remaining(at: store.now)
                if remaining > 0 { throw StoreError.pinLocked(remaining: remaining) }
                try store.clearPIN(current: try PinCommand.readCurrentPIN(Prompter(), messages))
                print(messages.tr("The parental PIN is cleared: profiles can be changed without it."))
            } catch let error as StoreError {
                throw StoreCommandSupport.fail(error, messages)
            }
        }
    }
}
