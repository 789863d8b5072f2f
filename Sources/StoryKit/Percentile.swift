/// The one percentile every figure uses (issue 31: five helpers computed p99 three ways): the
/// nearest rank, the smallest value with at least `fraction` of the values at or below it. It is
/// always one of the values measured, never an interpolation; the median of an even count is
/// the lower middle one. No values: 0.
public enum Percentile {
    /// The `fraction` (0…1) percentile of `values`, in any order.
    public static func of(_ values: [Double], _ fraction: Double) -> Double {
        ofSorted(values.sorted(), fraction)
    }

    /// The same of values already sorted ascending (no copy made).
    public static func ofSorted(_ sorted: [Double], _ fraction: Double) -> Double {
        guard !sorted.isEmpty else { return 0 }
        let rank = Int((Double(sorted.count) * min(max(fraction, 0), 1)).rounded(.up))
        return sorted[max(rank, 1) - 1]
    }

    /// The 50th percentile.
    public static func median(_ values: [Double]) -> Double { of(values, 0.5) }
}
