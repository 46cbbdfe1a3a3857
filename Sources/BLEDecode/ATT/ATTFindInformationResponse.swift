import BLECore

/// Find Information Response: handle and type of each attribute found (Core v5.4 Vol 3 Part F 3.4.3.2).
///
/// Wire layout: `05 | Format (1) | Information Data`, where Format 0x01 gives entries of
/// `handle (2, LE) | 16-bit UUID (2)` and 0x02 entries of `handle (2, LE) | 128-bit UUID (16)`.
/// At least one entry; the data must divide into whole entries.
public struct ATTFindInformationResponse: ATTPDUBody {
    public static let opcode = ATTOpcode.findInformationResponse

    /// The Format field: which UUID size every entry carries. Only two values are
    /// assigned; any other makes the PDU undecodable, so this is a closed set.
    public enum Format: UInt8, Sendable, Hashable {
        case uuid16 = 0x01
        case uuid128 = 0x02

        var size: UUIDWireSize { self == .uuid16 ? .bits16 : .bits128 }
        var name: String { self == .uuid16 ? "Handle(s) and 16-bit Bluetooth UUID(s)" : "Handle(s) and 128-bit UUID(s)" }
    }

    /// One attribute: its handle and type.
    public struct Information: Sendable, Hashable {
        public var handle: UInt16
        public var uuid: BluetoothUUID
        public init(handle: UInt16, uuid: BluetoothUUID) { self.handle = handle; self.uuid = uuid }
    }

    public var format: Format
    public var information: [Information]

    public init(format: Format, information: [Information]) {
        self.format = format
        self.information = information
    }

    public init(parameters r: inout ByteReader) throws(DecodeError) {
        let formatOffset = r.absoluteOffset
        let raw = try r.readUInt8("Format")
        guard let format = Format(rawValue: raw) else {
            throw DecodeError(layer: r.layer, offset: formatOffset, kind: .malformed,
                              reason: "Format \(hex(raw)) is neither 0x01 (16-bit UUIDs) nor 0x02 (128-bit UUIDs)")
        }
        self.format = format
        let entrySize = 2 + format.size.rawValue
        var list: [Information] = []
        // At least one entry: the first read reports what is missing.
        repeat {
            let leftover = r.remaining
            let handle = try r.readUInt16(.little, "Handle (\(leftover) byte(s) left, entries are \(entrySize))")
            let uuid = try r.readBluetoothUUID(format.size, "UUID (entries are \(entrySize) bytes)")
            list.append(Information(handle: handle, uuid: uuid))
        } while !r.isAtEnd
        information = list
    }

    public func appendParameters(to bytes: inout [UInt8]) {
        bytes.append(format.rawValue)
        for entry in information {
            bytes.append(le16: entry.handle)
            bytes += entry.uuid.wireBytes(format.size)
        }
    }

    public var fields: [(String, String)] {
        [("Format", "\(hex(format.rawValue)) \(format.name)")]
            + information.map { ("Handle \(handleString($0.handle))", $0.uuid.labelled) }
    }

    /// `Find Information Response, Handle: 0x000C (Client Characteristic Configuration), Handle: 0x000D (…)`.
    public var summary: String {
        ([Self.opcode.name] + information.map { "Handle: \(handleString($0.handle)) (\($0.uuid.nameOrString))" })
            .joined(separator: ", ")
    }
}

