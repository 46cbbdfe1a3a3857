import BLECore
import BLECapture

/// One record as a btsnoop file carries it: the flags word, the original length and the
/// packet bytes (REFERENCE.md "btsnoop"; FTE "BT Snoop File Format").
struct BtsnoopPacket: Sendable, Hashable {
    var flags: UInt32
    var originalLength: UInt32
    var cumulativeDrops: UInt32
    /// Microseconds since the Unix epoch (the file stores it since 0000-01-01).
    var timestamp: Int64
    var body: [UInt8]
}

/// Packet encodings <-> capture records, with exactly the meaning BLECapture gives them.
///
/// Decoding mirrors `BtsnoopReader` (H4 type byte -> `kind`/`rawType`; H1 flags; Linux monitor
/// opcode -> kind and direction, System Note text without its NULs, User Logging as
/// `ident: message`); encoding mirrors `BtsnoopWriter` (H4 flags bit 0 received, bit 1
/// command/event; monitor flags `index << 16 | opcode`; notes re-encoded as System Note or
/// User Logging). The recorder sends every record through `encode` then `decode`, so what the
/// timeline stores is what importing the written btsnoop file reads back (tests check both
/// directions against BLECapture).
enum RecordCoding {
    /// Largest btsnoop included length BLECapture reads: an H4 type byte plus 4 + 65535 bytes of ACL.
    static let maxIncludedLength = 65_540

    // MARK: Decoding

    /// The record a btsnoop reader makes of `packet` in a file of `datalink`.
    static func decode(_ packet: BtsnoopPacket, datalink: BtsnoopDatalink, frameNumber: Int,
                       fileOffset: Int) -> CaptureRecord {
        var record = CaptureRecord(frameNumber: frameNumber, timestamp: packet.timestamp, direction: .unknown,
                                   kind: .other, payload: [], fileOffset: fileOffset,
                                   originalLength: Int(packet.originalLength),
                                   cumulativeDrops: packet.cumulativeDrops)
        let body = packet.body[...]
        switch datalink {
        case .h4:
            record.direction = packet.flags & 1 != 0 ? .received : .sent
            setH4(body, on: &record)
        case .h1:
            let received = packet.flags & 1 != 0
            record.direction = received ? .received : .sent
            let type: H4PacketType = packet.flags & 2 == 0 ? .acl : (received ? .event : .command)
            record.kind = type.kind
            record.rawType = UInt16(type.rawValue)
            record.payload = packet.body
        default:
            setMonitor(opcode: MonitorOpcode(rawValue: UInt16(truncatingIfNeeded: packet.flags)),
                       index: UInt16(truncatingIfNeeded: packet.flags >> 16), body: body, on: &record)
        }
        return record
    }

    /// An H4 packet (type byte, then the HCI packet); an empty packet stays `.other`.
    static func setH4(_ packet: ArraySlice<UInt8>, on record: inout CaptureRecord) {
        guard let type = packet.first else { return }
        let indicator = H4PacketType(rawValue: type)
        record.kind = indicator.kind
        record.rawType = UInt16(type)
        record.payload = Array(packet.dropFirst())
    }

    /// A Linux monitor packet: kind and direction from the opcode (BlueZ `monitor/packet.c`).
    static func setMonitor(opcode: MonitorOpcode, index: UInt16, body: ArraySlice<UInt8>,
                           on record: inout CaptureRecord) {
        record.controllerIndex = index
        record.rawType = opcode.rawValue
        (record.kind, record.direction) = opcode.classification
        switch opcode {
        case .systemNote:
            record.payload = Array(body.reversed().drop(while: { $0 == 0 }).reversed())
        case .userLogging:
            record.payload = userLoggingText(body) ?? Array(body)
        default:
            record.payload = Array(body)
        }
    }

    /// `ident: message` from a User Logging body (priority u8, ident length u8, ident with its
    /// NUL, message with its NUL; BlueZ `monitor/packet.c` `packet_user_logging`), or nil.
    static func userLoggingText(_ body: ArraySlice<UInt8>) -> [UInt8]? {
        let b = Array(body)
        guard b.count >= 2 else { return nil }
        let identLength = Int(b[1])
        guard 2 + identLength <= b.count else { return nil }
        let ident = b[2..<(2 + identLength)].reversed().drop(while: { $0 == 0 }).reversed()
        let message = b[(2 + identLength)...].reversed().drop(while: { $0 == 0 }).reversed()
        return Array(ident) + Array(": ".utf8) + Array(message)
    }

    // MARK: Encoding

    /// How `record` is written in a file of `datalink`, or nil when that datalink cannot carry
    /// it (notes and unknown types in H4).
    static func encode(_ record: CaptureRecord, datalink: BtsnoopDatalink) -> BtsnoopPacket? {
        let received: Bool = switch record.direction {
        case .received: true
        case .sent: false
        case .unknown: record.kind == .event
        }
        var packet = BtsnoopPacket(flags: 0, originalLength: 0, cumulativeDrops: record.cumulativeDrops,
                                   timestamp: record.timestamp, body: [])
        let original: Int
        switch datalink {
        case .h4:
            guard let type = H4PacketType(kind: record.kind) else { return nil }
            packet.body = [type.rawValue] + record.payload
            let framed = record.payload.count + 1
            original = record.originalLength <= framed ? framed : record.originalLength
            packet.flags = (received ? 1 : 0) | (record.kind == .command || record.kind == .event ? 2 : 0)
        case .h1:
            guard [.command, .event, .acl].contains(record.kind) else { return nil }
            packet.body = record.payload
            original = unframedOriginalLength(record)
            packet.flags = (received ? 1 : 0) | (record.kind == .acl ? 0 : 2)
        default:
            guard let (opcode, body, length) = monitorPacket(record, received: received) else { return nil }
            packet.body = body
            original = length
            packet.flags = UInt32(record.controllerIndex) << 16 | UInt32(opcode.rawValue)
        }
        guard packet.body.count <= maxIncludedLength, let length = UInt32(exactly: original) else { return nil }
        packet.originalLength = length
        return packet
    }

    /// The original length without a type byte (H1, monitor bodies).
    static func unframedOriginalLength(_ record: CaptureRecord) -> Int {
        let count = record.payload.count
        return record.originalLength <= count + 1 ? count : record.originalLength - 1
    }

    /// A Linux monitor packet (opcode, body, original length), or nil when the record has none.
    static func monitorPacket(_ record: CaptureRecord, received: Bool) -> (MonitorOpcode, [UInt8], Int)? {
        if let opcode = MonitorOpcode(kind: record.kind, direction: received ? .received : .sent) {
            return (opcode, record.payload, unframedOriginalLength(record))
        }
        let raw = MonitorOpcode(rawValue: record.rawType)
        switch record.kind {
        case .note:
            switch raw {
            case .newIndex, .deleteIndex, .openIndex, .closeIndex, .indexInfo:
                return (raw, record.payload, unframedOriginalLength(record))
            case .userLogging:
                let body = userLoggingBody(record.payload)
                return (raw, body, body.count)
            default:
                let body = record.payload + [0]
                return (.systemNote, body, body.count)
            }
        case .other:
            guard raw.classification.kind == .other else { return nil }
            return (raw, record.payload, unframedOriginalLength(record))
        default:
            return nil
        }
    }

    /// A User Logging body for `ident: message` text (priority 6, info: the record keeps no priority).
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

    /// The 24-byte btsnoop record header followed by the packet.
    static func fileBytes(_ packet: BtsnoopPacket) -> [UInt8] {
        var out: [UInt8] = []
        out.reserveCapacity(24 + packet.body.count)
        let stamp = UInt64(bitPattern: packet.timestamp &+ Timestamp.btsnoopEpochOffset)
        for word in [packet.originalLength, UInt32(packet.body.count), packet.flags, packet.cumulativeDrops,
                     UInt32(truncatingIfNeeded: stamp >> 32), UInt32(truncatingIfNeeded: stamp)] {
            out.append(UInt8(truncatingIfNeeded: word >> 24))
            out.append(UInt8(truncatingIfNeeded: word >> 16))
            out.append(UInt8(truncatingIfNeeded: word >> 8))
            out.append(UInt8(truncatingIfNeeded: word))
        }
        out += packet.body
        return out
    }

    /// The 16-byte btsnoop file header: `btsnoop\0`, version 1, datalink (big-endian).
    static func fileHeader(datalink: BtsnoopDatalink) -> [UInt8] {
        var out = Array("btsnoop\0".utf8) + [0, 0, 0, 1]
        for shift in stride(from: 24, through: 0, by: -8) {
            out.append(UInt8(truncatingIfNeeded: datalink.rawValue >> UInt32(shift)))
        }
        return out
    }
}
