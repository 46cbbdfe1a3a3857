import BLECore

/// Turning records back into the packet encodings the writers share: H4 and Linux monitor.
///
/// `CaptureRecord.originalLength` counts the H4 type byte when the reader removed one and not
/// otherwise, so an uncut record has `originalLength` equal to `payload.count` or one more; a
/// cut record (btsnooz v2, Android's filtered logs) is taken to be in H4 form, which is where
/// cut records come from.
package enum RecordEncoding {
    /// Whether a record travelled controller to host; `.unknown` (pcap 187) counts events as received.
    static func isReceived(_ record: CaptureRecord) -> Bool {
        switch record.direction {
        case .received: true
        case .sent: false
        case .unknown: record.kind == .event
        }
    }

    /// The original length of the H4 packet (type byte included).
    static func h4OriginalLength(_ record: CaptureRecord) -> Int {
        let framed = record.payload.count + 1
        return record.originalLength <= framed ? framed : record.originalLength
    }

    /// The original length of the packet without a type byte (H1, monitor bodies).
    static func unframedOriginalLength(_ record: CaptureRecord) -> Int {
        let count = record.payload.count
        return record.originalLength <= count + 1 ? count : record.originalLength - 1
    }

    /// The H4 packet (type byte + payload), or nil for notes and `.other`, which H4 cannot carry.
    static func h4Packet(_ record: CaptureRecord) -> [UInt8]? {
        guard let type = H4PacketType(kind: record.kind) else { return nil }
        return [type.rawValue] + record.payload
    }

    /// A Linux monitor packet: opcode, body and original body length; nil when the record has
    /// no monitor form (an `.other` record whose `rawType` a monitor reader would not read back
    /// as `.other`, such as PacketLogger LMP).
    ///
    /// Notes whose `rawType` is a monitor note opcode keep it: System Note text gets its NUL
    /// back, User Logging text is split into ident and message (priority 6, info, as the record
    /// does not keep the original); other notes (PacketLogger's) become System Notes.
    package static func monitorPacket(_ record: CaptureRecord) -> (opcode: MonitorOpcode, body: [UInt8], originalLength: Int)? {
        if let opcode = MonitorOpcode(kind: record.kind, direction: isReceived(record) ? .received : .sent) {
            return (opcode, record.payload, unframedOriginalLength(record))
        }
        let raw = MonitorOpcode(rawValue: record.rawType)
        switch record.kind {
        case .note:
            switch raw {
            case .newIndex, .deleteIndex, .openIndex, .closeIndex, .indexInfo:
                return (raw, record.payload, unframedOriginalLength(record))
            case .userLogging:
                let body = MonitorText.userLoggingBody(record.payload)
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
}
