/// How a story is shared between the processes that export it at once.
public enum ExportShares {
    /// Contiguous runs of `items` of about equal expected audio (at most `jobs`, none empty).
    /// Balanced by what eSpeak NG says, not by words: a long word takes longer than a short one,
    /// and every sentence ends with a pause whatever its length (see `expectedAudio`).
    public static func split(_ narration: Narration, jobs: Int) -> [Range<Int>] {
        split(narration, sentences: 0..<narration.items.count, jobs: jobs)
    }

    /// The same for the sentences `sentences` only (what is left of a story once its workers
    /// are ready): runs that cover them, in order. The first run is `firstShare` of the others
    /// (in hundredths: 95 gives it a twentieth less).
    public static func split(_ narration: Narration, sentences: Range<Int>, jobs: Int, firstShare: Int = 100) -> [Range<Int>] {
        let counts = narration.items[sentences].map(expectedAudio)
        let total = counts.reduce(0, +)
        let jobs = max(1, min(jobs, counts.count))
        // In hundredths of a run: the first run `firstShare`, each other 100.
        let parts = firstShare + 100 * (jobs - 1)
        var runs: [Range<Int>] = []
        var start = 0
        var sum = 0
        for (index, count) in counts.enumerated() {
            sum += count
            let wanted = total * (firstShare + 100 * runs.count) / parts
            if sum >= wanted, runs.count < jobs - 1, index + 1 < counts.count {
                // The sentence that crosses the mark goes to the run holding most of it.
                let end = sum - wanted > count / 2 && index > start ? index : index + 1
                runs.append(start..<end)
                start = end
            }
        }
        runs.append(start..<counts.count)
        return runs.filter { !$0.isEmpty }.map { ($0.lowerBound + sentences.lowerBound)..<($0.upperBound + sentences.lowerBound) }
    }

    /// A sentence's expected length in speech, in units of about a letter's time: its letters and
    /// digits, a pause for each comma, colon or dash inside it, and the pause that ends it (at
    /// rate 175, `espeak-ng -w` says about 12 letters a second and pauses about 0.3 s after a
    /// sentence: "Captain Nine and the Comet", 9,375 letters and 226 sentences, lasts 826 s).
    static func expectedAudio(_ item: Narration.Item) -> Int {
        var letters = 0
        var marks = 0
        for scalar in (item.prefix + item.text).unicodeScalars {
            if scalar.properties.isAlphabetic || scalar.properties.numericType != nil {
                letters += 1
            } else if ",;:—–".unicodeScalars.contains(scalar) {
                marks += 1
            }
        }
        return letters + 3 * marks + 4
    }
}
