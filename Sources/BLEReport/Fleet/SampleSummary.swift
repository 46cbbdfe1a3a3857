import BLECore
import BLEAnalysis

/// What the report shows of a set of samples (latencies, durations): how many, their sum and
/// maximum, the nearest-rank percentiles at `levels`, and counts per histogram bucket.
///
/// The renderers take this, never the samples themselves, so the figures can be computed where
/// the samples are: in memory over one folder of captures (`init(sorted:bounds:)`), or in the
/// warehouse with SQL aggregates (BLEWarehouse), without pulling every sample back.
public struct SampleSummary: Sendable, Equatable {
    /// The percentiles every summary carries.
    public static let levels: [Double] = [0.5, 0.95, 0.99]

    public var count: Int
    public var sum: Int64
    /// Nil when there are no samples.
    public var max: Int64?
    /// Values at `levels` (nearest rank, `Percentiles.value`); empty when there are no samples.
    public var quantiles: [Int64]
    /// Counts per bucket of the bounds the summary was made with (`Histogram.counts`).
    public var histogram: [Int]

    public init(count: Int, sum: Int64, max: Int64?, quantiles: [Int64], histogram: [Int]) {
        self.count = count
        self.sum = sum
        self.max = max
        self.quantiles = quantiles
        self.histogram = histogram
    }

    /// The summary of samples sorted in ascending order.
    public init(sorted: [Int64], bounds: [Int64]) {
        self.init(count: sorted.count, sum: sorted.saturatingSum(), max: sorted.last,
                  quantiles: sorted.isEmpty ? [] : Self.levels.map { Percentiles.value(sorted, $0) },
                  histogram: Histogram.counts(sorted, bounds: bounds))
    }

    public var isEmpty: Bool { count == 0 }

    /// The percentile at one of `levels`; nil when there are no samples.
    public func percentile(_ p: Double) -> Int64? {
        guard let i = Self.levels.firstIndex(of: p), i < quantiles.count else { return nil }
        return quantiles[i]
    }
}
