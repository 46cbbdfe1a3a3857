/// The `packet` table's key: `capture_id << 32 | frame` in one INTEGER PRIMARY KEY.
///
/// One key instead of two columns and an index on them: a packet is found by its capture and
/// frame number through the table's own B-tree, and a capture's packets are one key range in
/// frame order. The base table derives `capture_id` and `frame` from it as generated columns;
/// queries that look packets up should compare `rowid` through these helpers so SQLite can seek.
public enum PacketKey {
    /// Frame numbers are below 2^32 (a btsnoop or pcap file cannot hold more records).
    public static let frameBits: Int64 = 32

    /// The key of `frame` in `capture`.
    public static func make(capture: Int64, frame: Int) -> Int64 {
        capture << frameBits | Int64(frame)
    }

    /// SQL for the key of frame `frame` in capture `capture` (both SQL expressions).
    public static func sql(capture: String, frame: String) -> String {
        "((\(capture)) << 32 | (\(frame)))"
    }

    /// SQL condition: `column` (default `rowid`) is a key of capture `capture` (an SQL expression).
    public static func inCapture(_ capture: String, column: String = "rowid") -> String {
        "\(column) BETWEEN ((\(capture)) << 32) AND ((\(capture)) << 32 | 4294967295)"
    }
}
