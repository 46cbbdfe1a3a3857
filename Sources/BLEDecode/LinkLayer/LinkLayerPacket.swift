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

extension LinkLayerPacket {
    /// Splits what follows a sniffer's pseudo-header (`header`) in an air capture's frame, as the
    /// decoder reads it: a data channel packet unless the access address is the advertising one
    /// (or, with fewer than 4 bytes, unless the sniffer says it is not data).
    public init(decoding air: ArraySlice<UInt8>, after header: SnifferHeader, baseOffset: Int) throws(DecodeError) {
        var isData = header.pduKind == .data
        if air.count >= 4 {
            let i = air.startIndex
            let aa = UInt32(air[i]) | UInt32(air[i + 1]) << 8 | UInt32(air[i + 2]) << 16 | UInt32(air[i + 3]) << 24
            isData = aa != Self.advertisingAccessAddress
        }
        try self.init(decoding: air, baseOffset: baseOffset, isDataChannel: isData)
    }

    /// The packet of an air capture's whole frame (a record's payload, as the timeline keeps it in
    /// `packet.raw`) of link type `linkType` (LINKTYPE 251, 256, 272): the sniffer's pseudo-header,
    /// then the packet. Offsets count from the frame's first byte.
    public init(frame: ArraySlice<UInt8>, linkType: UInt16) throws(DecodeError) {
        let header = try SnifferHeader(linkType: linkType, decoding: frame, baseOffset: 0)
        try self.init(decoding: frame.dropFirst(header.length), after: header, baseOffset: header.length)
    }
}
