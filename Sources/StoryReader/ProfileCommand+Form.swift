import Foundation
import StoryKit

/// `storyreader profile add` on a terminal, with no flags: the REPL's profile form, the same
/// screen, keys and speech (a blind parent hears every field, value and problem), after the REPL's
/// PIN prompt while a PIN is set. Leaving the form ends the program; what happened is printed
/// once more on the normal screen, as `profile add` with flags prints it.
enum ProfileFormSession {
    static func add(global: GlobalOptions) throws {
        let library = global.loadLibrary()
        let store = try StoreCommandSupport.openStore(global)
        let before = Set(((try? store.profiles()) ?? []).compactMap(\.id))
        let runner = try SessionRunner(global: global, presentation: try PresentationOptions.parse([]), store: store)
        let session = runner.session(
            library: library, profile: nil, voices: ((try? EspeakEngine.shared.voices())?.languages ?? []).map(\.selector))
        let messages = session.state.messages
        let shell = try runner.shell(session, library: library, noAudio: false, device: nil, messages: messages)
        let status = try shell.run { $0.startProfileFormAlone() }
        if status != 0 { Foundation.exit(status) }
        if let added = ((try? store.profiles()) ?? []).first(where: { $0.id.map { !before.contains($0) } ?? false }) {
            print(messages.tr("Added {name}, age {age}.", ["name": added.name, "age": String(added.age)]))
        } else {
            print(messages.tr("Cancelled: no profile was added."))
        }
    }
}
