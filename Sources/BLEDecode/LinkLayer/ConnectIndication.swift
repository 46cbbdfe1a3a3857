import BLECore

/// CONNECT_IND (AUX_CONNECT_REQ on a secondary channel): an initiator opens a connection
/// (Core v5.4 Vol 6 Part B 2.3.3.1).
///
/// Wire layout (34 octets): `InitA (6) | AdvA (6) | LLData: AA (4) | CRCInit (3) | WinSize (1) |
/// WinOffset (2) | Interval (2) | Latency (2) | Timeout (2) | ChM (5) | Hop (5 bits) + SCA (3 bits)`,
/// all little-endian. TxAdd types InitA, RxAdd types AdvA.
public struct ConnectIndication: Sendable, Hashable {
    public static let length = 34

    public var initiatorAddress: BluetoothAddress
    public var advertiserAddress: BluetoothAddress
    /// The access address of the new connection.
    public var accessAddress: UInt32
    public var crcInit: UInt32
    /// Transmit window size in units of 1.25 ms.
    public var windowSize: UInt8
    /// Transmit window offset in units of 1.25 ms.
    public var windowOffset: UInt16
    /// Connection interval in units of 1.25 ms.
    public var interval: UInt16
    public var latency: UInt16
    /// Supervision timeout in units of 10 ms.
    public var timeout: UInt16
    /// Channel map: bit n set = data channel n used (37 bits in 5 octets).
    public var channelMap: [UInt8]
    /// Hop increment (5-16) for channel selection algorithm #1.
    public var hop: UInt8
    /// Sleep clock accuracy of the central (0 = 251-500 ppm … 7 = 0-20 ppm).
    public var sleepClockAccuracy: UInt8

    public init(initiatorAddress: BluetoothAddress, advertiserAddress: BluetoothAddress, accessAddress: UInt32,
                crcInit: UInt32, windowSize: UInt8, windowOffset: UInt16, interval: UInt16, latency: UInt16,
                timeout: UInt16, channelMap: [UInt8], hop: UInt8, sleepClockAccuracy: UInt8) {
        self.initiatorAddress = initiatorAddress
        self.advertiserAddress = advertiserAddress
        self.accessAddress = accessAddress
        self.crcInit = crcInit
        self.windowSize = windowSize
        self.windowOffset = windowOffset
        self.interval = interval
        self.latency = latency
        self.timeout = timeout
        self.channelMap = channelMap
        self.hop = hop
        self.sleepClockAccuracy = sleepClockAccuracy
    }

    /// Reads the 34 payload octets; throws `.truncated` at the first missing field.
    public init(payload r: inout ByteReader) throws(DecodeError) {
        initiatorAddress = try r.readAddress("InitA")
        advertiserAddress = try r.readAddress("AdvA")
        accessAddress = try r.readUInt32(.little, "AA")
        crcInit = try r.readUInt24(.little, "CRCInit")
        windowSize = try r.readUInt8("WinSize")
        windowOffset = try r.readUInt16(.little, "WinOffset")
        interval = try r.readUInt16(.little, "Interval")
        latency = try r.readUInt16(.little, "Latency")
        timeout = try r.readUInt16(.little, "Timeout")
        channelMap = Array(try r.readBytes(5, "ChM"))
        let last = try r.readUInt8("Hop, SCA")
        hop = last & 0x1F
        sleepClockAccuracy = last >> 5
    }

    public var encoded: [UInt8] {
        var b = initiatorAddress.littleEndianArray + advertiserAddress.littleEndianArray
        b.append(le32: accessAddress)
        b.append(UInt8(truncatingIfNeeded: crcInit))
        b.append(UInt8(truncatingIfNeeded: crcInit >> 8))
        b.append(UInt8(truncatingIfNeeded: crcInit >> 16))
        b.append(windowSize)
        b.append(le16: windowOffset)
        b.append(le16: interval)
        b.append(le16: latency)
        b.append(le16: timeout)
        b += channelMap.prefix(5)
        b += [UInt8](repeating: 0, count: max(0, 5 - channelMap.count))
        b.append(hop & 0x1F | sleepClockAccuracy << 5)
        return b
    }

    /// Data channels the map marks used.
    public var usedChannels: Int { LinkLayerFormat.usedChannels(channelMap) }

    /// What is wrong with the parameters against Vol 6 Part B 2.3.3.1 (empty when valid).
    public var parameterProblems: [String] {
        var out: [String] = []
        if !(6...3200).contains(interval) { out.append("Interval \(interval) outside 6-3200") }
        if latency > 499 { out.append("Latency \(latency) above 499") }
        if !(10...3200).contains(timeout) { out.append("Timeout \(timeout) outside 10-3200") }
        if !(5...16).contains(hop) { out.append("Hop \(hop) outside 5-16") }
        if usedChannels < 2 { out.append("channel map uses \(usedChannels) channel(s), at least 2 needed") }
        if windowSize < 1 || windowSize > 8 { out.append("WinSize \(windowSize) outside 1-8") }
        return out
    }
}

/// Formatting shared by the link-layer summaries.
enum LinkLayerFormat {
    /// Number of set bits among data channels 0-36 of a 5-octet channel map.
    static func usedChannels(_ map: [UInt8]) -> Int {
        var n = 0
        for (i, byte) in map.prefix(5).enumerated() {
            let bits = i == 4 ? byte & 0x1F : byte
            n += bits.nonzeroBitCount
        }
        return n
    }

    /// Sleep clock accuracy ranges (Vol 6 Part B 2.3.3.1, Table 2.19).
    static func sleepClockAccuracy(_ sca: UInt8) -> String {
        switch sca {
        case 0: "251 ppm to 500 ppm"
        case 1: "151 ppm to 250 ppm"
        case 2: "101 ppm to 150 ppm"
        case 3: "76 ppm to 100 ppm"
        case 4: "51 ppm to 75 ppm"
        case 5: "31 ppm to 50 ppm"
        case 6: "21 ppm to 30 ppm"
        default: "0 ppm to 20 ppm"
        }
    }

    /// `AA:BB:CC:DD:EE:FF (random)`.
    static func address(_ a: BluetoothAddress, _ type: AddressType) -> String {
        Fmt.address(a) + " (" + type.name + ")"
    }
}
