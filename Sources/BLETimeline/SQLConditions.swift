/// WHERE clauses and the values they bind, with numbered placeholders.
///
/// `bind` returns `?N` for the value it appends, so a clause may use one value twice (as
/// `PacketKey.inCapture` does) and still bind it once: a bare `?` used twice and bound once is
/// how `timeline --capture N` once matched nothing.
struct SQLConditions {
    private(set) var clauses: [String] = []
    private(set) var values: [SQLiteValue] = []

    /// Appends `value` and returns its placeholder.
    mutating func bind(_ value: SQLiteValue) -> String {
        values.append(value)
        return "?\(values.count)"
    }

    mutating func add(_ clause: String) { clauses.append(clause) }

    /// ` WHERE a AND b`, or nothing.
    var whereClause: String { clauses.isEmpty ? "" : " WHERE " + clauses.joined(separator: " AND ") }
}
