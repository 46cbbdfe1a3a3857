import BLECore

/// The Common Extended Advertising Payload Format of ADV_EXT_IND, AUX_ADV_IND, AUX_SCAN_RSP,
/// AUX_SYNC_IND, AUX_CHAIN_IND and AUX_CONNECT_RSP (Core v5.4 Vol 6 Part B 2.3.4).
///
/// Wire layout: `Extended Header Length (6 bits) + AdvMode (2 bits) | Extended Header
/// (Length octets: Extended Header Flags (1), then the fields the flags announce in this order:
/// AdvA (6), TargetA (6), CTEInfo (1), ADI (2), AuxPtr (3), SyncInfo (18), TxPower (1), then
/// ACAD to the end of the header) | AdvData (the rest)`.
public struct ExtendedAdvertisingPayload: Sendable, Hashable {
    /// 0 non-connectable non-scannable, 1 connectable, 2 scannable.
    public var advMode: UInt8
    /// False when the Extended Header Length is 0 (no flags octet).
    public var hasExtendedHeader: Bool
    public var flags: UInt8
    public var advertiserAddress: BluetoothAddress?
    public var targetAddress: BluetoothAddress?
    public var cteInfo: UInt8?
    /// Advertising Data Info: DID (12 bits) | SID (4 bits).
    public var adi: UInt16?
    /// AuxPtr: channel index (6 bits), CA, offset units, aux offset (13 bits), aux PHY (3 bits).
    public var auxPointer: [UInt8]?
    public var syncInfo: [UInt8]?
    public var txPower: Int8?
    /// Additional Controller Advertising Data.
    public var acad: [UInt8]
    public var data: [UInt8]

    public init(payload r: inout ByteReader) throws(DecodeError) {
        let first = try r.readUInt8("Extended Header Length, AdvMode")
        advMode = first >> 6
        let headerLength = Int(first & 0x3F)
        var h = try r.subReader(headerLength, "Extended Header")
        flags = 0
        acad = []
        hasExtendedHeader = headerLength > 0
        if hasExtendedHeader {
            flags = try h.readUInt8("Extended Header Flags")
            if flags & 0x01 != 0 { advertiserAddress = try h.readAddress("AdvA") }
            if flags & 0x02 != 0 { targetAddress = try h.readAddress("TargetA") }
            if flags & 0x04 != 0 { cteInfo = try h.readUInt8("CTEInfo") }
            if flags & 0x08 != 0 { adi = try h.readUInt16(.little, "ADI") }
            if flags & 0x10 != 0 { auxPointer = Array(try h.readBytes(3, "AuxPtr")) }
            if flags & 0x20 != 0 { syncInfo = Array(try h.readBytes(18, "SyncInfo")) }
            if flags & 0x40 != 0 { txPower = try h.readInt8("TxPower") }
            acad = Array(h.readRemaining())
        }
        data = Array(r.readRemaining())
    }

    public var encoded: [UInt8] {
        var header: [UInt8] = []
        var f = flags & 0x80
        if let a = advertiserAddress { f |= 0x01; header += a.littleEndianArray }
        if let a = targetAddress { f |= 0x02; header += a.littleEndianArray }
        if let c = cteInfo { f |= 0x04; header.append(c) }
        if let a = adi { f |= 0x08; header.append(le16: a) }
        if let p = auxPointer { f |= 0x10; header += p }
        if let s = syncInfo { f |= 0x20; header += s }
        if let t = txPower { f |= 0x40; header.append(UInt8(bitPattern: t)) }
        header += acad
        let body = hasExtendedHeader ? [f] + header : []
        return [UInt8(body.count & 0x3F) | advMode << 6] + body + data
    }

    /// The SID of the ADI field.
    public var advertisingSID: UInt8? { adi.map { UInt8($0 >> 12) } }

    /// The data channel index the AuxPtr points at.
    public var auxChannel: UInt8? { auxPointer.map { $0[0] & 0x3F } }

    /// The 16-bit event type of an HCI LE Extended Advertising Report for this PDU
    /// (Core v5.4 Vol 4 Part E 7.7.65.13): connectable, scannable, directed, scan response;
    /// data status "incomplete, more data to come" when an AuxPtr follows.
    func reportEventType(isScanResponse: Bool) -> UInt16 {
        var t: UInt16 = 0
        if advMode & 0x01 != 0 { t |= 0x01 }
        if advMode & 0x02 != 0 { t |= 0x02 }
        if targetAddress != nil { t |= 0x04 }
        if isScanResponse { t |= 0x08 }
        if auxPointer != nil { t |= 0x20 }
        return t
    }
}
