import Foundation

/// What a child may change, as one policy checked before a setting changes, on every path that
/// changes one (`set`, the settings screen's arrows, `+`/`-`, faster and slower). The kiosk used to
/// patch the effects afterwards (dropping utterances that mentioned "words per minute"), which broke
/// whenever a message was reworded.
extension Session {
    /// Voice, pitch, volume and hints stay as the parent set them in a locked session.
    func childMayChange(_ setting: SettingName) -> Bool {
        !state.options.isLocked || SettingName.childSettings.contains(setting)
    }

    /// The speeds allowed now: a kiosk keeps within 20 % of the parent's speed.
    var allowedRates: ClosedRange<Int> { state.kiosk?.rateRange ?? SpeechSettings.rateRange }

    /// A child's changes in a kiosk last for the session only: the profile stays as the parent set it.
    var keepsSettingChanges: Bool { state.kiosk == nil }

    func refusedSetting() -> [Effect] { [speak(tr("That is not available here."), .message)] }

    /// Holds a speed inside `allowedRates`; says so when a kiosk's bounds (not the engine's) held it.
    func allowedRate(_ rate: Int) -> (rate: Int, said: String?) {
        let range = allowedRates
        guard !range.contains(rate) else { return (rate, nil) }
        let held = range.clamp(rate)
        guard state.kiosk != nil else { return (held, nil) }
        return (
            held,
            tr(
                "Speed can go from {min} to {max} words per minute here, so it is {rate}.",
                ["min": String(range.lowerBound), "max": String(range.upperBound), "rate": String(held)])
        )
    }

    /// Holds a recording tempo inside the kiosk's bounds (the parent's ±20 %) as `allowedRate` holds a speed.
    func allowedTempo(_ tempo: Double) -> (tempo: Double, said: String?) {
        guard let range = state.kiosk?.tempoRange, !range.contains(tempo) else { return (tempo, nil) }
        let held = min(max(tempo, range.lowerBound), range.upperBound)
        return (
            held,
            tr(
                "Recording tempo can go from {min} to {max} here, so it is {tempo}.",
                ["min": RecordingTempo.text(range.lowerBound), "max": RecordingTempo.text(range.upperBound), "tempo": RecordingTempo.text(held)])
        )
    }
}
