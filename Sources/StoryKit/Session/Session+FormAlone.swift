import Foundation

/// `storyreader profile add` on a terminal: the session is the REPL's profile form, spoken as in
/// the REPL (after its PIN prompt while a PIN is set), and leaving it ends the program: saved,
/// cancelled, Escape from the PIN prompt, or any other way out of the form.
extension Session {
    public mutating func startProfileFormAlone() -> [Effect] {
        state.options.endsWithForm = true
        return withLanguageRuns(asParent(.newProfile) + [.render])
    }

    /// The form (and its PIN prompt) was left some way that did not end the program already (the
    /// PIN prompt's Escape, `home`): nothing was added, and the program ends.
    mutating func endIfFormLeft(_ effects: [Effect]) -> [Effect] {
        guard state.options.endsWithForm, !state.hasQuit, !state.stack.contains(where: { $0 == .profileForm || $0 == .pinPrompt }) else {
            return effects
        }
        // What the screen under the form would say is not said: the program ends.
        return effects.filter { if case .speak = $0 { false } else { true } } + formEnded()
    }

    /// Leaving the form alone without saving: said, and the program ends.
    mutating func formEnded() -> [Effect] {
        state.hasQuit = true
        state.form = nil
        return [speak(tr("Cancelled: no profile was added."), .message), .exit]
    }
}
