import BLECore

/// The HCI UART (H4) packet indicator byte (Core v5.4 Vol 4 Part A 2, table 2.1).
///
/// Open: a byte nobody has named survives as itself (kind `.other`).
public struct H4PacketType: RawRepresentable, Hashable, Sendable, CustomStringConvertible {
    public var rawValue: UInt8
    public init(rawValue: UInt8) { self.rawValue = rawValue }

    public static let command = H4PacketType(rawValue: 0x01)
    public static let acl = H4PacketType(rawValue: 0x02)
    public static let sco = H4PacketType(rawValue: 0x03)
    public static let event = H4PacketType(rawValue: 0x04)
    public static let iso = H4PacketType(rawValue: 0x05)

    /// The record kind this indicator announces.
    public var kind: PacketKind {
        switch rawValue {
        case 0x01: .command
        case 0x02: .acl
        case 0x03: .sco
        case 0x04: .event
        case 0x05: .iso
        default: .other
        }
    }

    /// The indicator for a record kind; nil for notes and `.other`, which H4 cannot carry.
    public init?(kind: PacketKind) {
        switch kind {
        case .command: self = .command
        case .acl: self = .acl
        case .sco: self = .sco
        case .event: self = .event
        case .iso: self = .iso
        case .note, .other: return nil
        }
    }

    public var description: String {
        switch rawValue {
        case 0x01: "HCI Command"
        case 0x02: "ACL Data"
        case 0x03: "SCO Data"
        case 0x04: "HCI Event"
        case 0x05: "ISO Data"
        default: "H4 type 0x" + String(rawValue, radix: 16, uppercase: true)
        }
    }
}
