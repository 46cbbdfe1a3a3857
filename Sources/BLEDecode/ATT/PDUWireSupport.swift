import BLECore

/// How many octets a UUID occupies on the wire (Core v5.4 Vol 3 Part B 2.5.1).
///
/// Kept beside a decoded UUID so that encoding gives back the bytes that were read: a SIG
/// UUID may legally be sent in its 16-octet form.
public enum UUIDWireSize: Int, Sendable, Hashable {
    case bits16 = 2
    case bits32 = 4
    case bits128 = 16

    /// The shortest size that represents `uuid` (16-bit SIG UUIDs as 2 octets, others as 16).
    public static func shortest(for uuid: BluetoothUUID) -> UUIDWireSize {
        uuid.uint16 != nil ? .bits16 : .bits128
    }
}

extension BluetoothUUID {
    /// The little-endian wire form at `size`; falls back to 16 octets when `size` cannot
    /// represent this UUID.
    public func wireBytes(_ size: UUIDWireSize) -> [UInt8] {
        switch size {
        case .bits16:
            if let v = uint16 { return [UInt8(truncatingIfNeeded: v), UInt8(truncatingIfNeeded: v >> 8)] }
        case .bits32:
            if let v = uint32 {
                return [UInt8(truncatingIfNeeded: v), UInt8(truncatingIfNeeded: v >> 8),
                        UInt8(truncatingIfNeeded: v >> 16), UInt8(truncatingIfNeeded: v >> 24)]
            }
        case .bits128:
            break
        }
        return bytes.reversed()
    }

    /// `2803 (Characteristic)` when the SIG assigned numbers name it, else the plain `uuidString`.
    var labelled: String {
        if let name = AssignedNumbers.uuidName(self) { return "\(uuidString) (\(name))" }
        return uuidString
    }

    /// The SIG name when there is one (`Characteristic`), else the `uuidString` (as Wireshark's Info column).
    var nameOrString: String { AssignedNumbers.uuidName(self) ?? uuidString }
}

extension ByteReader {
    /// Reads a UUID of exactly `size` octets (little-endian on the wire).
    mutating func readBluetoothUUID(_ size: UUIDWireSize, _ what: @autoclosure () -> String = "UUID") throws(DecodeError) -> BluetoothUUID {
        let raw = try readBytes(size.rawValue, what())
        // Cannot fail: the slice has 2, 4 or 16 bytes.
        return BluetoothUUID(littleEndian: raw) ?? BluetoothUUID(uint16: 0)
    }

    /// Throws `.malformed` at the first unread byte unless everything was consumed.
    func expectEnd(_ what: @autoclosure () -> String) throws(DecodeError) {
        if !isAtEnd {
            throw error("\(what()): \(remaining) unexpected trailing byte(s)")
        }
    }
}

extension Array where Element == UInt8 {
    mutating func append(le16 v: UInt16) {
        append(UInt8(truncatingIfNeeded: v))
        append(UInt8(truncatingIfNeeded: v >> 8))
    }

    mutating func append(le32 v: UInt32) {
        for shift in stride(from: 0, to: 32, by: 8) { append(UInt8(truncatingIfNeeded: v >> UInt32(shift))) }
    }

    mutating func append(le64 v: UInt64) {
        for shift in stride(from: 0, to: 64, by: 8) { append(UInt8(truncatingIfNeeded: v >> UInt64(shift))) }
    }
}

/// `0x002A`: a 16-bit handle as the timeline prints it.
func handleString(_ handle: UInt16) -> String { hex(handle, width: 4) }

/// Hex of a value for one-line summaries, cut after `limit` bytes.
func shortHex(_ bytes: [UInt8], limit: Int = 16) -> String {
    if bytes.isEmpty { return "(empty)" }
    if bytes.count <= limit { return hexString(bytes) }
    return hexString(bytes.prefix(limit)) + "… (\(bytes.count) bytes)"
}

/// `<redacted 16 bytes>`: how key material is shown unless the user asks for keys.
func redacted(_ count: Int) -> String { "<redacted \(count) bytes>" }

extension ByteReader {
    /// Reads an ATT Attribute Type that fills the rest of the PDU: a 2- or 16-octet UUID
    /// (Core v5.4 Vol 3 Part F 3.4.4.1). Fewer than 16 octets that are not exactly 2 count as
    /// truncated; more than 16 as malformed.
    mutating func readAttributeType(_ what: String = "Attribute Type") throws(DecodeError) -> (BluetoothUUID, UUIDWireSize) {
        switch remaining {
        case 2: return (try readBluetoothUUID(.bits16, what), .bits16)
        case 16: return (try readBluetoothUUID(.bits128, what), .bits128)
        case ..<16:
            throw error("\(what): need 2 or 16 byte(s) for a UUID, have \(remaining)", kind: .truncated)
        default:
            throw error("\(what): \(remaining) bytes, a UUID has 2 or 16")
        }
    }
}
