/// A cursor over rows that belong to packets, in packet-key order, walked forward alongside a
/// packet cursor (a merge join): the first two columns are `capture_id` and `packet_id`, and the
/// statement orders by them. One query for the whole walk instead of one per packet.
final class KeyedCursor {
    let statement: SQLiteStatement
    /// The key of the row the statement is on; nil past the last row.
    private var current: Int64?

    init(_ statement: SQLiteStatement) throws {
        self.statement = statement
        try advance()
    }

    private func advance() throws {
        current = try statement.step() ? PacketKey.make(capture: statement.int64(0), frame: statement.int(1)) : nil
    }

    /// Calls `body` on each row of the packet keyed `key`, skipping rows of earlier packets
    /// (keys must be asked for in increasing order).
    func forEachRow(at key: Int64, _ body: (SQLiteStatement) throws -> Void) throws {
        while let k = current, k < key { try advance() }
        while let k = current, k == key {
            try body(statement)
            try advance()
        }
    }
}
