import ArgumentParser
import StoryKit

/// `--bedtime story|chapter|MINUTES|off` on `repl`, `read` and `kiosk`: tonight's bedtime timer
/// for this run, over the profile's default (issue 46).
struct BedtimeOption: ParsableArguments {
    @Option(
        help: ArgumentHelp(
            helpMessages.tr(
                "Bedtime timer for this run: story or chapter stops at its end, a number of minutes (1–180) stops after them at the end of the sentence, off never. Default: the profile's."
            ),
            valueName: "when"))
    var bedtime: String?

    func validate() throws {
        if let bedtime, Bedtime(loose: bedtime) == nil {
            throw ValidationError(
                helpMessages.tr("{value} is not a choice for --bedtime: use story, chapter, off or a number of minutes from 1 to 180", ["value": bedtime]))
        }
    }

    func apply(to session: inout Session) {
        if let bedtime = bedtime.flatMap(Bedtime.init(loose:)) { session.setBedtimeForRun(bedtime) }
    }
}
