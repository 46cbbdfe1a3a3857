/// The `decode_problem` row the timeline writes where the capture's writer dropped records (the
/// btsnoop cumulative-drops counter rose, RFC 1761 as btsnoop extends it): its reason text, and
/// how the analysis and the replay find those rows again. One definition, so a rewording of the
/// reason cannot silently lose the `capture-gap` finding or the replay's gaps.
public enum WriterDropsProblem {
    /// The reason's first words, which every such row starts with.
    static let reasonPrefix = "writer dropped"

    /// The reason of a row for `count` dropped records.
    static func reason(count: Int) -> String { "\(reasonPrefix) \(count) packet(s) before this record" }

    /// An SQL condition on a `decode_problem` row (as `table.reason`, or `reason` when `table` is
    /// nil) that holds for these rows.
    public static func sqlMatch(table: String? = nil) -> String {
        "\(table.map { $0 + "." } ?? "")reason LIKE '\(reasonPrefix)%'"
    }
}
