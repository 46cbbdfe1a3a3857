import BLECore

/// LL_CONNECTION_UPDATE_IND parameters (Core v5.4 Vol 6 Part B 2.4.2.1).
///
/// Wire layout: `WinSize (1) | WinOffset (2) | Interval (2) | Latency (2) | Timeout (2) | Instant (2)`.
public struct LLConnectionUpdateInd: Sendable, Hashable {
    public var windowSize: UInt8
    public var windowOffset: UInt16
    /// Connection interval in units of 1.25 ms.
    public var interval: UInt16
    public var latency: UInt16
    /// Supervision timeout in units of 10 ms.
    public var timeout: UInt16
    /// The connection event counter value from which the new parameters apply.
    public var instant: UInt16

    public init(windowSize: UInt8, windowOffset: UInt16, interval: UInt16, latency: UInt16, timeout: UInt16, instant: UInt16) {
        self.windowSize = windowSize
        self.windowOffset = windowOffset
        self.interval = interval
        self.latency = latency
        self.timeout = timeout
        self.instant = instant
    }

    init(parameters r: inout ByteReader) throws(DecodeError) {
        windowSize = try r.readUInt8("WinSize")
        windowOffset = try r.readUInt16(.little, "WinOffset")
        interval = try r.readUInt16(.little, "Interval")
        latency = try r.readUInt16(.little, "Latency")
        timeout = try r.readUInt16(.little, "Timeout")
        instant = try r.readUInt16(.little, "Instant")
    }

    func append(to b: inout [UInt8]) {
        b.append(windowSize)
        b.append(le16: windowOffset)
        b.append(le16: interval)
        b.append(le16: latency)
        b.append(le16: timeout)
        b.append(le16: instant)
    }
}

/// LL_CHANNEL_MAP_IND parameters (Core v5.4 Vol 6 Part B 2.4.2.2).
///
/// Wire layout: `ChM (5) | Instant (2)`.
public struct LLChannelMapInd: Sendable, Hashable {
    public var channelMap: [UInt8]
    public var instant: UInt16

    public init(channelMap: [UInt8], instant: UInt16) {
        self.channelMap = channelMap
        self.instant = instant
    }

    init(parameters r: inout ByteReader) throws(DecodeError) {
        channelMap = Array(try r.readBytes(5, "ChM"))
        instant = try r.readUInt16(.little, "Instant")
    }

    func append(to b: inout [UInt8]) {
        b += channelMap
        b.append(le16: instant)
    }
}

/// LL_ENC_REQ parameters (Core v5.4 Vol 6 Part B 2.4.2.4).
///
/// Wire layout: `Rand (8) | EDIV (2) | SKDc (8) | IVc (4)`. Rand and EDIV identify the LTK;
/// SKDc and IVc are the central's halves of the session key diversifier and IV.
public struct LLEncReq: Sendable, Hashable {
    public var rand: UInt64
    public var ediv: UInt16
    public var skdCentral: UInt64
    public var ivCentral: UInt32

    public init(rand: UInt64, ediv: UInt16, skdCentral: UInt64, ivCentral: UInt32) {
        self.rand = rand
        self.ediv = ediv
        self.skdCentral = skdCentral
        self.ivCentral = ivCentral
    }

    init(parameters r: inout ByteReader) throws(DecodeError) {
        rand = try r.readUInt64(.little, "Rand")
        ediv = try r.readUInt16(.little, "EDIV")
        skdCentral = try r.readUInt64(.little, "SKDc")
        ivCentral = try r.readUInt32(.little, "IVc")
    }

    func append(to b: inout [UInt8]) {
        b.append(le64: rand)
        b.append(le16: ediv)
        b.append(le64: skdCentral)
        b.append(le32: ivCentral)
    }
}

/// LL_ENC_RSP parameters (Core v5.4 Vol 6 Part B 2.4.2.5).
///
/// Wire layout: `SKDp (8) | IVp (4)`.
public struct LLEncRsp: Sendable, Hashable {
    public var skdPeripheral: UInt64
    public var ivPeripheral: UInt32

    public init(skdPeripheral: UInt64, ivPeripheral: UInt32) {
        self.skdPeripheral = skdPeripheral
        self.ivPeripheral = ivPeripheral
    }

    init(parameters r: inout ByteReader) throws(DecodeError) {
        skdPeripheral = try r.readUInt64(.little, "SKDp")
        ivPeripheral = try r.readUInt32(.little, "IVp")
    }

    func append(to b: inout [UInt8]) {
        b.append(le64: skdPeripheral)
        b.append(le32: ivPeripheral)
    }
}

/// LL_VERSION_IND parameters (Core v5.4 Vol 6 Part B 2.4.2.13).
///
/// Wire layout: `VersNr (1) | CompId (2) | SubVersNr (2)`.
public struct LLVersionInd: Sendable, Hashable {
    public var version: UInt8
    public var companyID: UInt16
    public var subversion: UInt16

    public init(version: UInt8, companyID: UInt16, subversion: UInt16) {
        self.version = version
        self.companyID = companyID
        self.subversion = subversion
    }

    init(parameters r: inout ByteReader) throws(DecodeError) {
        version = try r.readUInt8("VersNr")
        companyID = try r.readUInt16(.little, "CompId")
        subversion = try r.readUInt16(.little, "SubVersNr")
    }

    func append(to b: inout [UInt8]) {
        b.append(version)
        b.append(le16: companyID)
        b.append(le16: subversion)
    }

    /// The Bluetooth version of a Link Layer version number (Assigned Numbers 2.1): 9 -> `5.0`.
    public static func versionName(_ v: UInt8) -> String? {
        let names = ["1.0b", "1.1", "1.2", "2.0+EDR", "2.1+EDR", "3.0+HS", "4.0", "4.1", "4.2",
                     "5.0", "5.1", "5.2", "5.3", "5.4", "6.0"]
        return Int(v) < names.count ? names[Int(v)] : nil
    }
}

/// LL_CONNECTION_PARAM_REQ and LL_CONNECTION_PARAM_RSP parameters (Core v5.4 Vol 6 Part B
/// 2.4.2.16, 2.4.2.17).
///
/// Wire layout: `Interval_Min (2) | Interval_Max (2) | Latency (2) | Timeout (2) |
/// PreferredPeriodicity (1) | ReferenceConnEventCount (2) | Offset0 … Offset5 (2 each)`.
public struct LLConnectionParameters: Sendable, Hashable {
    public var intervalMin: UInt16
    public var intervalMax: UInt16
    public var latency: UInt16
    public var timeout: UInt16
    public var preferredPeriodicity: UInt8
    public var referenceConnEventCount: UInt16
    public var offsets: [UInt16]

    public init(intervalMin: UInt16, intervalMax: UInt16, latency: UInt16, timeout: UInt16,
                preferredPeriodicity: UInt8, referenceConnEventCount: UInt16, offsets: [UInt16]) {
        self.intervalMin = intervalMin
        self.intervalMax = intervalMax
        self.latency = latency
        self.timeout = timeout
        self.preferredPeriodicity = preferredPeriodicity
        self.referenceConnEventCount = referenceConnEventCount
        self.offsets = offsets
    }

    init(parameters r: inout ByteReader) throws(DecodeError) {
        intervalMin = try r.readUInt16(.little, "Interval_Min")
        intervalMax = try r.readUInt16(.little, "Interval_Max")
        latency = try r.readUInt16(.little, "Latency")
        timeout = try r.readUInt16(.little, "Timeout")
        preferredPeriodicity = try r.readUInt8("PreferredPeriodicity")
        referenceConnEventCount = try r.readUInt16(.little, "ReferenceConnEventCount")
        var o: [UInt16] = []
        for i in 0..<6 { o.append(try r.readUInt16(.little, "Offset\(i)")) }
        offsets = o
    }

    func append(to b: inout [UInt8]) {
        b.append(le16: intervalMin)
        b.append(le16: intervalMax)
        b.append(le16: latency)
        b.append(le16: timeout)
        b.append(preferredPeriodicity)
        b.append(le16: referenceConnEventCount)
        for o in offsets.prefix(6) { b.append(le16: o) }
        for _ in offsets.count..<max(offsets.count, 6) { b.append(le16: 0xFFFF) }
    }
}

/// LL_LENGTH_REQ and LL_LENGTH_RSP parameters (Core v5.4 Vol 6 Part B 2.4.2.21, 2.4.2.22).
///
/// Wire layout: `MaxRxOctets (2) | MaxRxTime (2) | MaxTxOctets (2) | MaxTxTime (2)`.
public struct LLDataLength: Sendable, Hashable {
    public var maxRxOctets: UInt16
    public var maxRxTime: UInt16
    public var maxTxOctets: UInt16
    public var maxTxTime: UInt16

    public init(maxRxOctets: UInt16, maxRxTime: UInt16, maxTxOctets: UInt16, maxTxTime: UInt16) {
        self.maxRxOctets = maxRxOctets
        self.maxRxTime = maxRxTime
        self.maxTxOctets = maxTxOctets
        self.maxTxTime = maxTxTime
    }

    init(parameters r: inout ByteReader) throws(DecodeError) {
        maxRxOctets = try r.readUInt16(.little, "MaxRxOctets")
        maxRxTime = try r.readUInt16(.little, "MaxRxTime")
        maxTxOctets = try r.readUInt16(.little, "MaxTxOctets")
        maxTxTime = try r.readUInt16(.little, "MaxTxTime")
    }

    func append(to b: inout [UInt8]) {
        b.append(le16: maxRxOctets)
        b.append(le16: maxRxTime)
        b.append(le16: maxTxOctets)
        b.append(le16: maxTxTime)
    }
}

/// LL_PHY_UPDATE_IND parameters (Core v5.4 Vol 6 Part B 2.4.2.24).
///
/// Wire layout: `PHY_C_TO_P (1) | PHY_P_TO_C (1) | Instant (2)`; a PHY field is a bit field
/// with at most one bit set (0 = unchanged).
public struct LLPHYUpdateInd: Sendable, Hashable {
    public var centralToPeripheral: UInt8
    public var peripheralToCentral: UInt8
    public var instant: UInt16

    public init(centralToPeripheral: UInt8, peripheralToCentral: UInt8, instant: UInt16) {
        self.centralToPeripheral = centralToPeripheral
        self.peripheralToCentral = peripheralToCentral
        self.instant = instant
    }

    init(parameters r: inout ByteReader) throws(DecodeError) {
        centralToPeripheral = try r.readUInt8("PHY_C_TO_P")
        peripheralToCentral = try r.readUInt8("PHY_P_TO_C")
        instant = try r.readUInt16(.little, "Instant")
    }

    func append(to b: inout [UInt8]) {
        b.append(centralToPeripheral)
        b.append(peripheralToCentral)
        b.append(le16: instant)
    }
}
