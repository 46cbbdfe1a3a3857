import BLECore

/// The header of a data physical channel PDU on an ACL connection (Core v5.4 Vol 6 Part B 2.4).
///
/// Wire layout: octet 0 = LLID (bits 0-1), NESN (bit 2), SN (bit 3), MD (bit 4), CP (bit 5),
/// RFU (bits 6-7); octet 1 = Length (payload and MIC octets); when CP = 1 a CTEInfo octet
/// follows. LLID 0b01 is an L2CAP continuation fragment or, with Length 0, an Empty PDU;
/// 0b10 the start of an L2CAP PDU (or a complete one); 0b11 an LL Control PDU; 0b00 is reserved.
public struct DataChannelHeader: Sendable, Hashable {
    public static let continuation: UInt8 = 0b01
    public static let start: UInt8 = 0b10
    public static let control: UInt8 = 0b11

    public var llid: UInt8
    /// Next Expected Sequence Number: acknowledges the peer's last PDU when it differs from
    /// that PDU's SN (Vol 6 Part B 4.5.9).
    public var nesn: UInt8
    /// Sequence Number.
    public var sn: UInt8
    /// More Data.
    public var moreData: Bool
    /// CP: a CTEInfo octet follows the header.
    public var ctePresent: Bool
    public var reserved: UInt8
    public var length: UInt8
    public var cteInfo: UInt8?

    public init(llid: UInt8, nesn: UInt8 = 0, sn: UInt8 = 0, moreData: Bool = false, length: UInt8, cteInfo: UInt8? = nil) {
        self.llid = llid & 0x3
        self.nesn = nesn & 1
        self.sn = sn & 1
        self.moreData = moreData
        self.ctePresent = cteInfo != nil
        self.reserved = 0
        self.length = length
        self.cteInfo = cteInfo
    }

    /// From the 2 or 3 header octets of a `LinkLayerPacket`.
    public init(octets: [UInt8]) {
        let first = octets.first ?? 0
        llid = first & 0x03
        nesn = (first >> 2) & 1
        sn = (first >> 3) & 1
        moreData = first & 0x10 != 0
        ctePresent = first & 0x20 != 0
        reserved = first >> 6
        length = octets.count > 1 ? octets[1] : 0
        cteInfo = octets.count > 2 ? octets[2] : nil
    }

    public var octets: [UInt8] {
        var first = llid | nesn << 2 | sn << 3 | reserved << 6
        if moreData { first |= 0x10 }
        if ctePresent { first |= 0x20 }
        return [first, length] + (cteInfo.map { [$0] } ?? [])
    }

    /// LLID 0b01 with Length 0.
    public var isEmptyPDU: Bool { llid == Self.continuation && length == 0 }
}
