import BLECore

/// The PDU Type of an advertising physical channel PDU (Core v5.4 Vol 6 Part B 2.3, Table 2.3).
///
/// Open: the reserved values 0b1001-0b1111 keep their number. Several types share a value and
/// are told apart by the channel: 0b0011 is SCAN_REQ on a primary channel and AUX_SCAN_REQ on a
/// secondary one, 0b0101 CONNECT_IND or AUX_CONNECT_REQ, 0b0111 ADV_EXT_IND or one of
/// AUX_ADV_IND, AUX_SCAN_RSP, AUX_SYNC_IND, AUX_CHAIN_IND.
public struct AdvertisingPDUType: RawRepresentable, Hashable, Sendable, CustomStringConvertible {
    public var rawValue: UInt8
    public init(rawValue: UInt8) { self.rawValue = rawValue & 0x0F }
    public init(_ rawValue: UInt8) { self.init(rawValue: rawValue) }

    public static let advInd = AdvertisingPDUType(0b0000)
    public static let advDirectInd = AdvertisingPDUType(0b0001)
    public static let advNonconnInd = AdvertisingPDUType(0b0010)
    public static let scanReq = AdvertisingPDUType(0b0011)
    public static let scanRsp = AdvertisingPDUType(0b0100)
    public static let connectInd = AdvertisingPDUType(0b0101)
    public static let advScanInd = AdvertisingPDUType(0b0110)
    public static let advExtInd = AdvertisingPDUType(0b0111)
    public static let auxConnectRsp = AdvertisingPDUType(0b1000)

    /// The name on a primary advertising channel (the legacy names).
    public var name: String {
        switch rawValue {
        case 0: "ADV_IND"
        case 1: "ADV_DIRECT_IND"
        case 2: "ADV_NONCONN_IND"
        case 3: "SCAN_REQ"
        case 4: "SCAN_RSP"
        case 5: "CONNECT_IND"
        case 6: "ADV_SCAN_IND"
        case 7: "ADV_EXT_IND"
        case 8: "AUX_CONNECT_RSP"
        default: "Reserved PDU type " + hex(rawValue)
        }
    }

    /// The name of type 0b0111 on a secondary channel, from the nRF Sniffer's auxiliary type
    /// (0 AUX_ADV_IND, 1 AUX_CHAIN_IND, 2 AUX_SYNC_IND, 3 AUX_SCAN_RSP).
    public static func auxiliaryName(_ auxiliaryType: UInt8?) -> String {
        switch auxiliaryType {
        case 1: "AUX_CHAIN_IND"
        case 2: "AUX_SYNC_IND"
        case 3: "AUX_SCAN_RSP"
        default: "AUX_ADV_IND"
        }
    }

    public var description: String { "\(name) (\(hex(rawValue)))" }
}

/// The 16-bit header of an advertising physical channel PDU (Core v5.4 Vol 6 Part B 2.3).
///
/// Wire layout: octet 0 = PDU Type (bits 0-3), RFU (bit 4), ChSel (bit 5), TxAdd (bit 6),
/// RxAdd (bit 7); octet 1 = Length (payload octets).
public struct AdvertisingPDUHeader: Sendable, Hashable {
    public var type: AdvertisingPDUType
    /// The advertiser supports channel selection algorithm #2 (ChSel).
    public var channelSelection2: Bool
    /// TxAdd: the address in the first address field is random.
    public var txAddRandom: Bool
    /// RxAdd: the address in the second address field is random.
    public var rxAddRandom: Bool
    /// The RFU bit as received.
    public var reservedBit: Bool
    public var length: UInt8

    public init(type: AdvertisingPDUType, channelSelection2: Bool = false, txAddRandom: Bool = false,
                rxAddRandom: Bool = false, reservedBit: Bool = false, length: UInt8) {
        self.type = type
        self.channelSelection2 = channelSelection2
        self.txAddRandom = txAddRandom
        self.rxAddRandom = rxAddRandom
        self.reservedBit = reservedBit
        self.length = length
    }

    public init(octets first: UInt8, _ second: UInt8) {
        type = AdvertisingPDUType(first)
        reservedBit = first & 0x10 != 0
        channelSelection2 = first & 0x20 != 0
        txAddRandom = first & 0x40 != 0
        rxAddRandom = first & 0x80 != 0
        length = second
    }

    public var octets: [UInt8] {
        var first = type.rawValue
        if reservedBit { first |= 0x10 }
        if channelSelection2 { first |= 0x20 }
        if txAddRandom { first |= 0x40 }
        if rxAddRandom { first |= 0x80 }
        return [first, length]
    }

    public var txAddressType: AddressType { txAddRandom ? .random : .public }
    public var rxAddressType: AddressType { rxAddRandom ? .random : .public }
}
