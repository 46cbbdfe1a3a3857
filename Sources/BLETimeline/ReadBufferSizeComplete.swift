/// A stored Command Complete event (Core v5.4 Vol 4 Part E 7.7.14) of LE Read Buffer Size (7.8.2,
/// opcode 0x2002) or LE Read Buffer Size [v2] (7.8.93, 0x2060), as the timeline keeps its raw bytes:
/// event code 0x0E, parameter length, Num_HCI_Command_Packets, the command's opcode
/// (little-endian), then the return parameters (status, LE ACL data packet length, count, …).
/// Recognised by those bytes, never by the summary, which is display text.
public enum ReadBufferSizeComplete {
    /// The SQL condition that a `packet` row of kind `evt` meets when it is the event.
    public static let storedRow = "substr(raw, 1, 1) = x'0E' AND substr(raw, 4, 2) IN (x'0220', x'6020')"

    /// Whether `raw` (a stored event, event code first) is the event.
    public static func isEvent(_ raw: [UInt8]) -> Bool {
        raw.count >= 5 && raw[0] == 0x0E && raw[4] == 0x20 && (raw[3] == 0x02 || raw[3] == 0x60)
    }
}
