import BLECore

/// Linux monitor (btmon) opcodes: btsnoop datalink 2001 flags, pcap LINKTYPE 254 header.
///
/// Values from BlueZ `src/shared/btsnoop.h` / `monitor/packet.c` as listed in REFERENCE.md
/// "btsnoop". Open: unnamed opcodes read as `.other` with the opcode in `rawType`.
public struct MonitorOpcode: RawRepresentable, Hashable, Sendable, CustomStringConvertible {
    public var rawValue: UInt16
    public init(rawValue: UInt16) { self.rawValue = rawValue }

    public static let newIndex = MonitorOpcode(rawValue: 0)
    public static let deleteIndex = MonitorOpcode(rawValue: 1)
    public static let commandPacket = MonitorOpcode(rawValue: 2)
    public static let eventPacket = MonitorOpcode(rawValue: 3)
    public static let aclTransmit = MonitorOpcode(rawValue: 4)
    public static let aclReceive = MonitorOpcode(rawValue: 5)
    public static let scoTransmit = MonitorOpcode(rawValue: 6)
    public static let scoReceive = MonitorOpcode(rawValue: 7)
    public static let openIndex = MonitorOpcode(rawValue: 8)
    public static let closeIndex = MonitorOpcode(rawValue: 9)
    public static let indexInfo = MonitorOpcode(rawValue: 10)
    public static let vendorDiagnostic = MonitorOpcode(rawValue: 11)
    public static let systemNote = MonitorOpcode(rawValue: 12)
    public static let userLogging = MonitorOpcode(rawValue: 13)
    public static let controlOpen = MonitorOpcode(rawValue: 14)
    public static let controlClose = MonitorOpcode(rawValue: 15)
    public static let controlCommand = MonitorOpcode(rawValue: 16)
    public static let controlEvent = MonitorOpcode(rawValue: 17)
    public static let isoTransmit = MonitorOpcode(rawValue: 18)
    public static let isoReceive = MonitorOpcode(rawValue: 19)

    /// Kind and direction of a record with this opcode.
    public var classification: (kind: PacketKind, direction: Direction) {
        switch rawValue {
        case 2: (.command, .sent)
        case 3: (.event, .received)
        case 4: (.acl, .sent)
        case 5: (.acl, .received)
        case 6: (.sco, .sent)
        case 7: (.sco, .received)
        case 18: (.iso, .sent)
        case 19: (.iso, .received)
        case 0, 1, 8, 9, 10, 12, 13: (.note, .unknown)
        default: (.other, .unknown)
        }
    }

    /// The opcode that carries a packet of `kind` going `direction`; nil for notes and `.other`.
    public init?(kind: PacketKind, direction: Direction) {
        let received = direction == .received
        switch kind {
        case .command: self = .commandPacket
        case .event: self = .eventPacket
        case .acl: self = received ? .aclReceive : .aclTransmit
        case .sco: self = received ? .scoReceive : .scoTransmit
        case .iso: self = received ? .isoReceive : .isoTransmit
        case .note, .other: return nil
        }
    }

    public var description: String {
        switch rawValue {
        case 0: "New Index"
        case 1: "Delete Index"
        case 2: "Command Packet"
        case 3: "Event Packet"
        case 4: "ACL TX Packet"
        case 5: "ACL RX Packet"
        case 6: "SCO TX Packet"
        case 7: "SCO RX Packet"
        case 8: "Open Index"
        case 9: "Close Index"
        case 10: "Index Info"
        case 11: "Vendor Diagnostic"
        case 12: "System Note"
        case 13: "User Logging"
        case 14: "Control Open"
        case 15: "Control Close"
        case 16: "Control Command"
        case 17: "Control Event"
        case 18: "ISO TX Packet"
        case 19: "ISO RX Packet"
        default: "monitor opcode \(rawValue)"
        }
    }
}

/// Payloads of the monitor text records (system note, user logging).
enum MonitorText {
    /// The text of a System Note body: the bytes without trailing NULs.
    static func systemNote(_ body: UnsafeRawBufferPointer) -> [UInt8] {
        var count = body.count
        while count > 0 && body[count - 1] == 0 { count -= 1 }
        return Array(body[0..<count])
    }

    /// `ident: message` from a User Logging body (priority u8, ident length u8, ident, message;
    /// BlueZ `monitor/packet.c` `packet_user_logging`), or nil when the body does not fit that layout.
    static func userLogging(_ body: UnsafeRawBufferPointer) -> [UInt8]? {
        guard body.count >= 2 else { return nil }
        let identLength = Int(body[1])
        guard 2 + identLength <= body.count else { return nil }
        var identEnd = 2 + identLength
        while identEnd > 2 && body[identEnd - 1] == 0 { identEnd -= 1 }
        var messageEnd = body.count
        while messageEnd > 2 + identLength && body[messageEnd - 1] == 0 { messageEnd -= 1 }
        return Array(body[2..<identEnd]) + Array(": ".utf8) + Array(body[(2 + identLength)..<messageEnd])
    }

    /// A User Logging body for `text` as `userLogging` renders it: the ident is the part
    /// before the first ": " (empty when there is none); priority 6 (info), since the
    /// record does not keep the original priority.
    static func userLoggingBody(_ text: [UInt8]) -> [UInt8] {
        var ident: ArraySlice<UInt8> = []
        var message = text[...]
        if let colon = text.indices.first(where: { i in
            text[i] == UInt8(ascii: ":") && i + 1 < text.count && text[i + 1] == UInt8(ascii: " ")
        }) {
            ident = text[..<colon]
            message = text[(colon + 2)...]
        }
        let identBytes = Array(ident.prefix(254)) + [0]
        return [6, UInt8(identBytes.count)] + identBytes + message + [0]
    }
}
