import BLEReport

/// `SampleSummary` computed by the server over the rows of a query: count, sum, maximum,
/// nearest-rank percentiles (the value at position ⌈p·n⌉ of the sorted samples, clamped to
/// 1…n, with p·n in double precision as `Percentiles.value` computes it) and histogram bucket
/// counts (`width_bucket` over the bounds: the number of bounds at or below the value, as
/// `Histogram.counts`). One row per key comes back, never the samples.
enum SampleSummarySQL {
    /// `source` yields columns `k1`, `k2` (the key) and `v` (a non-null sample).
    static func summaries(_ db: PostgresConnection, source: String, bounds: [Int64], parameters: [String?] = [])
        throws(WarehouseError) -> [[String?]: SampleSummary] {
        let levels = SampleSummary.levels.map { p in
            "min(v) FILTER (WHERE rn = greatest(1, least(n, ceil(\(p)::float8 * n)::bigint)))"
        }.joined(separator: ", ")
        let rows = try db.execute("""
            SELECT k1, k2, count(*), least(sum(v), 9223372036854775807)::bigint, max(v), \(levels)
            FROM (SELECT k1, k2, v, row_number() OVER (PARTITION BY k1, k2 ORDER BY v) AS rn,
                         count(*) OVER (PARTITION BY k1, k2) AS n FROM (\(source)) src) x
            GROUP BY k1, k2
            """, parameters)
        let thresholds = "ARRAY[" + bounds.map(String.init).joined(separator: ",") + "]::bigint[]"
        var histograms: [[String?]: [Int]] = [:]
        for row in try db.execute("SELECT k1, k2, width_bucket(v, \(thresholds)), count(*) FROM (\(source)) src GROUP BY 1, 2, 3", parameters) {
            let key = [row[0], row[1]]
            var h = histograms[key] ?? Array(repeating: 0, count: bounds.count + 1)
            if let b = row.int(2), h.indices.contains(b) { h[b] += row.int(3) ?? 0 }
            histograms[key] = h
        }
        var out: [[String?]: SampleSummary] = [:]
        for row in rows {
            let key = [row[0], row[1]]
            out[key] = SampleSummary(count: row.int(2) ?? 0, sum: row.int64(3) ?? 0, max: row.int64(4),
                                     quantiles: (5..<(5 + SampleSummary.levels.count)).compactMap { row.int64($0) },
                                     histogram: histograms[key] ?? Array(repeating: 0, count: bounds.count + 1))
        }
        return out
    }
}

extension Array where Element == String? {
    func int(_ i: Int) -> Int? { i < count ? self[i].flatMap { Int($0) } : nil }
    func int64(_ i: Int) -> Int64? { i < count ? self[i].flatMap { Int64($0) } : nil }
    func text(_ i: Int) -> String? { i < count ? self[i] : nil }
    func bool(_ i: Int) -> Bool { i < count && self[i] == "t" }
}
