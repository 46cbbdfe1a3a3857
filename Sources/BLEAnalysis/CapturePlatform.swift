import BLETimeline

/// Which host stack most likely wrote a capture, from its format: what the diagnosis says the
/// platform does (iOS never times out a pending connect; Android gives a direct connect 30 s).
///
/// Inferred, not known: a btsnoop H4 file (datalink 1002) is what Android writes, but other
/// tools write it too; PacketLogger is Apple's (iOS or macOS); btsnoop datalink 2001 is the
/// Linux monitor format btmon writes (BlueZ).
enum CapturePlatform: Equatable {
    case apple, android, bluez, unknown

    init(format: String, linkType: Int) {
        switch (format, linkType) {
        case ("packetlogger", _): self = .apple
        case ("btsnooz", _), ("btsnoop", 1002): self = .android
        case ("btsnoop", 2001), ("pcap", 254), ("pcapng", 254): self = .bluez
        default: self = .unknown
        }
    }

    static func load(captureID: Int64, from db: SQLiteDatabase) throws -> CapturePlatform {
        let row = try db.rows("SELECT format, link_type FROM capture WHERE id = ?1", [.integer(captureID)]).first
        return CapturePlatform(format: row?[0].string ?? "", linkType: row?[1].int ?? 0)
    }

    /// "a PacketLogger capture, so iOS or macOS".
    var evidence: String {
        switch self {
        case .apple: "a PacketLogger capture, so iOS or macOS"
        case .android: "a btsnoop H4 capture (datalink 1002), the format Android writes"
        case .bluez: "a Linux monitor capture (btmon), so BlueZ"
        case .unknown: "a capture whose format does not tell the host stack"
        }
    }
}
