import BLECore

extension PacketDecoder {
    /// The PacketLogger record type of syslog lines (Wireshark `packet-packetlogger.c` PKT_SYSLOG).
    static let packetLoggerSyslogType: UInt16 = 0xF7

    /// The text of a PacketLogger syslog record (type 0xF7), laid out as Wireshark's
    /// `packet-packetlogger.c` `dissect_syslog` reads it: process ID u32 little-endian, message
    /// type u8, then NUL-terminated process, sender, subsystem, category and message.
    /// "syslog bluetoothd[97] (com.apple.bluetooth:Server): message". Nil for another record, or
    /// one without those five strings (its bytes are then shown as any note's are).
    static func packetLoggerSyslog(_ record: CaptureRecord) -> String? {
        guard record.kind == .note, record.rawType == packetLoggerSyslogType, record.payload.count > 5 else { return nil }
        let p = record.payload
        let pid = UInt32(p[0]) | UInt32(p[1]) << 8 | UInt32(p[2]) << 16 | UInt32(p[3]) << 24
        var fields: [String] = []
        var i = p.startIndex + 5
        while fields.count < 5, i < p.endIndex {
            let end = p[i...].firstIndex(of: 0) ?? p.endIndex
            fields.append(Fmt.noteText(Array(p[i..<end])))
            i = end + 1
        }
        guard fields.count == 5 else { return nil }
        let origin = [fields[2], fields[3]].filter { !$0.isEmpty }.joined(separator: ":")
        return "syslog " + (fields[0].isEmpty ? "pid \(pid)" : fields[0] + "[\(pid)]")
            + (origin.isEmpty ? "" : " (" + origin + ")") + ": " + fields[4]
    }
}
