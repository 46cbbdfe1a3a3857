import BLECore

/// ADV_IND, ADV_NONCONN_IND, ADV_SCAN_IND and SCAN_RSP: an advertiser address and up to 31
/// octets of advertising (or scan response) data (Core v5.4 Vol 6 Part B 2.3.1.1, 2.3.1.3,
/// 2.3.1.4, 2.3.2.2).
///
/// Wire layout: `AdvA (6) | AdvData or ScanRspData (0-31)`; TxAdd types AdvA.
public struct AdvertisingIndication: Sendable, Hashable {
    public static let maximumDataLength = 31
    public var advertiserAddress: BluetoothAddress
    public var data: [UInt8]

    public init(advertiserAddress: BluetoothAddress, data: [UInt8]) {
        self.advertiserAddress = advertiserAddress
        self.data = data
    }

    public init(payload r: inout ByteReader) throws(DecodeError) {
        advertiserAddress = try r.readAddress("AdvA")
        data = Array(r.readRemaining())
    }

    public var encoded: [UInt8] { advertiserAddress.littleEndianArray + data }
}

/// ADV_DIRECT_IND: connectable directed advertising (Core v5.4 Vol 6 Part B 2.3.1.2).
///
/// Wire layout: `AdvA (6) | TargetA (6)`; TxAdd types AdvA, RxAdd TargetA.
public struct DirectedAdvertisingIndication: Sendable, Hashable {
    public var advertiserAddress: BluetoothAddress
    public var targetAddress: BluetoothAddress

    public init(advertiserAddress: BluetoothAddress, targetAddress: BluetoothAddress) {
        self.advertiserAddress = advertiserAddress
        self.targetAddress = targetAddress
    }

    public init(payload r: inout ByteReader) throws(DecodeError) {
        advertiserAddress = try r.readAddress("AdvA")
        targetAddress = try r.readAddress("TargetA")
        try r.expectEnd("ADV_DIRECT_IND")
    }

    public var encoded: [UInt8] { advertiserAddress.littleEndianArray + targetAddress.littleEndianArray }
}

/// SCAN_REQ (AUX_SCAN_REQ on a secondary channel): a scanner asks for a scan response
/// (Core v5.4 Vol 6 Part B 2.3.2.1).
///
/// Wire layout: `ScanA (6) | AdvA (6)`; TxAdd types ScanA, RxAdd AdvA.
public struct ScanRequest: Sendable, Hashable {
    public var scannerAddress: BluetoothAddress
    public var advertiserAddress: BluetoothAddress

    public init(scannerAddress: BluetoothAddress, advertiserAddress: BluetoothAddress) {
        self.scannerAddress = scannerAddress
        self.advertiserAddress = advertiserAddress
    }

    public init(payload r: inout ByteReader) throws(DecodeError) {
        scannerAddress = try r.readAddress("ScanA")
        advertiserAddress = try r.readAddress("AdvA")
        try r.expectEnd("SCAN_REQ")
    }

    public var encoded: [UInt8] { scannerAddress.littleEndianArray + advertiserAddress.littleEndianArray }
}

/// An advertising physical channel PDU's payload, by PDU type (Core v5.4 Vol 6 Part B 2.3).
///
/// `extended` holds every PDU of the Common Extended Advertising Payload Format (type 0b0111 on
/// any channel, 0b1000 AUX_CONNECT_RSP); `unknown` the reserved types with their raw payload.
/// `encoded` is the exact inverse of `init(type:decoding:)`.
public enum AdvertisingChannelPDU: Sendable, Hashable {
    case advInd(AdvertisingIndication)
    case advDirectInd(DirectedAdvertisingIndication)
    case advNonconnInd(AdvertisingIndication)
    case scanReq(ScanRequest)
    case scanRsp(AdvertisingIndication)
    case connectInd(ConnectIndication)
    case advScanInd(AdvertisingIndication)
    case extended(type: AdvertisingPDUType, ExtendedAdvertisingPayload)
    case unknown(type: AdvertisingPDUType, payload: [UInt8])

    /// Decodes the payload of a PDU of `type`. Throws `.truncated` when a field is cut and
    /// `.malformed` when a fixed-size PDU has bytes left over.
    public init(type: AdvertisingPDUType, decoding payload: ArraySlice<UInt8>, baseOffset: Int) throws(DecodeError) {
        var r = ByteReader(payload, baseOffset: baseOffset, layer: .linkLayer)
        switch type {
        case .advInd: self = .advInd(try AdvertisingIndication(payload: &r))
        case .advDirectInd: self = .advDirectInd(try DirectedAdvertisingIndication(payload: &r))
        case .advNonconnInd: self = .advNonconnInd(try AdvertisingIndication(payload: &r))
        case .scanReq: self = .scanReq(try ScanRequest(payload: &r))
        case .scanRsp: self = .scanRsp(try AdvertisingIndication(payload: &r))
        case .connectInd:
            let c = try ConnectIndication(payload: &r)
            try r.expectEnd("CONNECT_IND")
            self = .connectInd(c)
        case .advScanInd: self = .advScanInd(try AdvertisingIndication(payload: &r))
        case .advExtInd, .auxConnectRsp: self = .extended(type: type, try ExtendedAdvertisingPayload(payload: &r))
        default: self = .unknown(type: type, payload: Array(r.readRemaining()))
        }
    }

    public var type: AdvertisingPDUType {
        switch self {
        case .advInd: .advInd
        case .advDirectInd: .advDirectInd
        case .advNonconnInd: .advNonconnInd
        case .scanReq: .scanReq
        case .scanRsp: .scanRsp
        case .connectInd: .connectInd
        case .advScanInd: .advScanInd
        case .extended(let t, _), .unknown(let t, _): t
        }
    }

    public var encoded: [UInt8] {
        switch self {
        case .advInd(let p), .advNonconnInd(let p), .scanRsp(let p), .advScanInd(let p): p.encoded
        case .advDirectInd(let p): p.encoded
        case .scanReq(let p): p.encoded
        case .connectInd(let p): p.encoded
        case .extended(_, let p): p.encoded
        case .unknown(_, let payload): payload
        }
    }

    /// The advertising data a legacy PDU carries (AdvData or ScanRspData).
    public var legacyData: [UInt8]? {
        switch self {
        case .advInd(let p), .advNonconnInd(let p), .scanRsp(let p), .advScanInd(let p): p.data
        default: nil
        }
    }

    /// The event type an HCI LE Advertising Report would give this legacy PDU
    /// (Core v5.4 Vol 4 Part E 7.7.65.2): 0 ADV_IND, 1 ADV_DIRECT_IND, 2 ADV_SCAN_IND,
    /// 3 ADV_NONCONN_IND, 4 SCAN_RSP.
    public var legacyReportEventType: UInt16? {
        switch self {
        case .advInd: 0
        case .advDirectInd: 1
        case .advScanInd: 2
        case .advNonconnInd: 3
        case .scanRsp: 4
        default: nil
        }
    }
}
