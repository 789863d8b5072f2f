import Foundation

extension SpeechRun {
    /// One synthesis for runs in several languages: eSpeak NG's SSML, each run in another language
    /// than the voice's inside `<voice xml:lang="…">` (its text escaped, and cut where a token is
    /// long enough to hurt eSpeak 1.51); nil when the voice's own language says it all.
    ///
    /// - Parameters:
    ///   - runs: the utterance's runs (``Utterance/runs``).
    ///   - voice: the eSpeak voice that speaks (`en`, `es+f3`); its language is the one left unmarked.
    public static func ssml(_ runs: [SpeechRun], voice: String?) -> String? {
        let base = (voice ?? "en").prefix { $0.isLetter }.lowercased()
        guard runs.contains(where: { $0.language != base }) else { return nil }
        let body = runs.map { run -> String in
            // Spaces at a run's edges are kept: they part its words from the next run's.
            let leading = run.text.prefix { $0 == " " }
            let trailing = String(run.text.reversed().prefix { $0 == " " })
            let words = Sanitizer.sanitizeLine(run.text).trimmingCharacters(in: .whitespaces)
            let spoken = String(leading) + (words.isEmpty ? "" : Narration.ssmlText(words)) + trailing
            return run.language == base ? spoken : "<voice xml:lang=\"\(run.language)\">\(spoken)</voice>"
        }
        return "<speak>" + body.joined() + "</speak>"
    }
}
