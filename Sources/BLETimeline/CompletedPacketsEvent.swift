/// The handles and counts of a stored Number Of Completed Packets event (Core v5.4 Vol 4 Part E
/// 7.7.19), read from the packet's raw bytes as the timeline keeps them (event code first).
///
/// Layout: event code 0x13, parameter length, Num_Handles (u8), then per handle
/// Connection_Handle (u16, little-endian, 12 bits) and Num_Completed_Packets (u16, little-endian).
/// A short event yields the entries it holds whole, never a guess for the rest.
public enum CompletedPacketsEvent {
    /// The SQL condition that a `packet` row of kind `evt` meets when it is the event: its raw
    /// bytes start with event code 0x13 (a blob comparison; never the summary, which is display
    /// text). A row without raw bytes (`--no-raw`) has no entries to read and does not meet it.
    public static let storedRow = "raw >= x'13' AND raw < x'14'"

    /// Whether `raw` (a stored event, event code first) is the event.
    public static func isEvent(_ raw: [UInt8]) -> Bool { raw.first == 0x13 }

    /// The (handle, completed count) entries of `raw`; empty when `raw` is not the event.
    public static func entries(_ raw: [UInt8]) -> [(handle: UInt16, count: Int)] {
        guard raw.count >= 3, raw[0] == 0x13 else { return [] }
        var out: [(handle: UInt16, count: Int)] = []
        var i = 3
        for _ in 0..<Int(raw[2]) where i + 4 <= raw.count {
            let handle = UInt16(raw[i]) | UInt16(raw[i + 1] & 0x0F) << 8
            out.append((handle, Int(raw[i + 2]) | Int(raw[i + 3]) << 8))
            i += 4
        }
        return out
    }
}
