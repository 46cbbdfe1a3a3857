import BLECore

extension DecodeError.Layer {
    /// The LE link layer of an air capture (sniffer pseudo-headers, advertising and data
    /// channel PDUs, LL control).
    public static let linkLayer = DecodeError.Layer(rawValue: "ll")
}

/// One LE packet on the air, without its preamble: access address, PDU, CRC
/// (Core v5.4 Vol 6 Part B 2.1).
///
/// Wire layout (uncoded PHYs): `access address (4, LE) | PDU header (2; a data channel PDU
/// with CP = 1 has a third, CTEInfo, byte) | payload (Length octets) | CRC (3)`. The header's
/// second octet is the payload length for both advertising (2.3) and data channel PDUs (2.4).
/// What is missing is recorded in `problems` (with absolute offsets) and the parts present
/// are kept: a sniffer may cut a packet, and SweynTooth attacks send lengths that lie.
public struct LinkLayerPacket: Sendable, Equatable {
    /// The access address of every advertising physical channel packet (Vol 6 Part B 2.1.2).
    public static let advertisingAccessAddress: UInt32 = 0x8E89_BED6

    public var accessAddress: UInt32
    /// PDU header octets (2, or 3 with a CTEInfo octet).
    public var header: [UInt8]
    /// The payload the Length field announces, cut to what the frame holds.
    public var payload: ArraySlice<UInt8>
    /// The Length field.
    public var declaredLength: Int
    /// The 24-bit CRC as transmitted (3 octets, little-endian order of the frame); nil when cut.
    public var crc: UInt32?
    /// Absolute offset of payload byte 0.
    public var payloadOffset: Int
    public var problems: [DecodeError] = []

    /// True on the advertising access address.
    public var isAdvertising: Bool { accessAddress == Self.advertisingAccessAddress }
    /// The payload is shorter than its Length field says.
    public var isTruncated: Bool { payload.count < declaredLength }

    /// Splits `bytes` (from the access address on). `isDataChannel` says whether a CP bit can
    /// add a CTEInfo octet to the header. Throws only when the access address or PDU header is
    /// cut.
    public init(decoding bytes: ArraySlice<UInt8>, baseOffset: Int, isDataChannel: Bool) throws(DecodeError) {
        var r = ByteReader(bytes, baseOffset: baseOffset, layer: .linkLayer)
        accessAddress = try r.readUInt32(.little, "Access Address")
        let first = try r.readUInt8("PDU header")
        let second = try r.readUInt8("PDU header Length")
        header = [first, second]
        if isDataChannel, first & 0x20 != 0 {
            header.append(try r.readUInt8("CTEInfo"))
        }
        declaredLength = Int(second)
        payloadOffset = r.absoluteOffset
        let present = min(declaredLength, r.remaining)
        payload = try r.readBytes(present, "payload")
        if present < declaredLength {
            problems.append(DecodeError(layer: .linkLayer, offset: r.absoluteOffset, kind: .truncated,
                                        reason: "PDU payload: Length \(declaredLength), frame has \(present) byte(s)"))
            crc = nil
            return
        }
        if r.remaining < 3 {
            problems.append(DecodeError(layer: .linkLayer, offset: r.absoluteOffset, kind: .truncated,
                                        reason: "CRC: need 3 byte(s), have \(r.remaining)"))
            crc = nil
            return
        }
        crc = try r.readUInt24(.little, "CRC")
        if !r.isAtEnd {
            problems.append(DecodeError(layer: .linkLayer, offset: r.absoluteOffset, kind: .malformed,
                                        reason: "\(r.remaining) byte(s) after the CRC"))
        }
    }

    /// `0x8E89BED6`.
    public static func accessAddressString(_ aa: UInt32) -> String {
        hex(aa, width: 8)
    }
}
