import BLECore

/// The type byte of an Apple PacketLogger record (captures/MANIFEST.md "PacketLogger record
/// layout"; Wireshark `wiretap/packetlogger.c`; BlueZ `src/shared/btsnoop.c` `get_pklg_opcode`,
/// which adds ISO data 0x12 sent and 0x13 received). Open: unknown types read as `.other`.
public struct PacketLoggerType: RawRepresentable, Hashable, Sendable, CustomStringConvertible {
    public var rawValue: UInt8
    public init(rawValue: UInt8) { self.rawValue = rawValue }

    public static let hciCommand = PacketLoggerType(rawValue: 0x00)
    public static let hciEvent = PacketLoggerType(rawValue: 0x01)
    public static let aclSent = PacketLoggerType(rawValue: 0x02)
    public static let aclReceived = PacketLoggerType(rawValue: 0x03)
    public static let scoSent = PacketLoggerType(rawValue: 0x08)
    public static let scoReceived = PacketLoggerType(rawValue: 0x09)
    public static let lmpSent = PacketLoggerType(rawValue: 0x0A)
    public static let lmpReceived = PacketLoggerType(rawValue: 0x0B)
    public static let isoSent = PacketLoggerType(rawValue: 0x12)
    public static let isoReceived = PacketLoggerType(rawValue: 0x13)
    public static let syslog = PacketLoggerType(rawValue: 0xF7)
    public static let kernel = PacketLoggerType(rawValue: 0xF8)
    public static let kernelDebug = PacketLoggerType(rawValue: 0xF9)
    public static let error = PacketLoggerType(rawValue: 0xFA)
    public static let power = PacketLoggerType(rawValue: 0xFB)
    public static let note = PacketLoggerType(rawValue: 0xFC)
    public static let config = PacketLoggerType(rawValue: 0xFD)
    public static let newController = PacketLoggerType(rawValue: 0xFE)

    /// Whether PacketLogger writes this type (the detection heuristic accepts only these).
    public var isKnown: Bool {
        switch rawValue {
        case 0x00...0x03, 0x08...0x0B, 0x12, 0x13, 0xF7...0xFE: true
        default: false
        }
    }

    /// Kind and direction of a record of this type.
    public var classification: (kind: PacketKind, direction: Direction) {
        switch rawValue {
        case 0x00: (.command, .sent)
        case 0x01: (.event, .received)
        case 0x02: (.acl, .sent)
        case 0x03: (.acl, .received)
        case 0x08: (.sco, .sent)
        case 0x09: (.sco, .received)
        case 0x0A: (.other, .sent)
        case 0x0B: (.other, .received)
        case 0x12: (.iso, .sent)
        case 0x13: (.iso, .received)
        case 0xF7...0xFE: (.note, .unknown)
        default: (.other, .unknown)
        }
    }

    /// `CaptureRecord.rawType` of a record whose length field is 8: the timestamp and no type
    /// byte. Wireshark's reader takes such a record (an empty packet, which its dissector calls
    /// malformed) and goes on; it is an `.other` record here, so frame numbers stay Wireshark's.
    /// Outside every other format's `rawType` of an `.other` record (link types 251/256/272 mark
    /// air records; btmon opcodes stop at 19).
    public static let noTypeByte: UInt16 = 0xFFFF

    public var description: String {
        switch rawValue {
        case 0x00: "HCI Command"
        case 0x01: "HCI Event"
        case 0x02: "Sent ACL Data"
        case 0x03: "Received ACL Data"
        case 0x08: "Sent SCO Data"
        case 0x09: "Received SCO Data"
        case 0x0A: "Sent LMP"
        case 0x0B: "Received LMP"
        case 0x12: "Sent ISO Data"
        case 0x13: "Received ISO Data"
        case 0xF7: "Syslog"
        case 0xF8: "Kernel"
        case 0xF9: "Kernel Debug"
        case 0xFA: "Error"
        case 0xFB: "Power"
        case 0xFC: "Note"
        case 0xFD: "Config"
        case 0xFE: "New Controller"
        default: "PacketLogger type 0x" + String(rawValue, radix: 16, uppercase: true)
        }
    }
}
