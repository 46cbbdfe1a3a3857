import BLECore
import BLEDecode

/// How a peripheral advertises (DESIGN.md "Replay semantics": identity and advertising).
public struct AdvertisingModel: Sendable, Hashable {
    public var advertisingData: [UInt8]
    public var scanResponse: [UInt8]?
    /// Advertising interval, estimated from the spacing of the recorded reports.
    public var interval: Int64
    public var rssi: Int8
    /// Whether a central may connect in answer to it (ADV_IND, ADV_DIRECT_IND, or an extended
    /// report with the Connectable bit). A non-connectable advertiser (an iBeacon's
    /// ADV_NONCONN_IND) is reported by scans and never accepts a connection.
    public var connectable: Bool
    /// Whether it answers an active scan with a SCAN_RSP (ADV_IND, ADV_SCAN_IND, or the
    /// Scannable bit); a non-scannable one never sends its (recorded) scan response.
    public var scannable: Bool
    /// The HCI address type name of its reports as the timeline writes it ("public", "random", ...).
    public var addressType: String?
    /// True when the capture held no report for this device and the model was made up
    /// (flags, services from the GATT database, name).
    public var synthesized: Bool
    public var reportCount: Int
    /// Unix microseconds of its last report in the capture (nil for a synthesized model).
    public var lastReportTime: Int64?

    public init(advertisingData: [UInt8], scanResponse: [UInt8]?, interval: Int64, rssi: Int8, connectable: Bool,
                scannable: Bool = true, addressType: String? = nil, synthesized: Bool, reportCount: Int) {
        self.advertisingData = advertisingData
        self.scanResponse = scanResponse
        self.interval = interval
        self.rssi = rssi
        self.connectable = connectable
        self.scannable = scannable
        self.addressType = addressType
        self.synthesized = synthesized
        self.reportCount = reportCount
    }

    /// What the connectable and scannable bits of an advertising report's event type say (Core v5.4
    /// Vol 4 Part E 7.7.65.2 for legacy reports: 0 ADV_IND, 1 ADV_DIRECT_IND, 2 ADV_SCAN_IND,
    /// 3 ADV_NONCONN_IND, 4 SCAN_RSP; 7.7.65.13 for extended reports: bit 0 Connectable, bit 1
    /// Scannable, bit 3 Scan response).
    public static func properties(eventType: Int, extended: Bool) -> (connectable: Bool, scannable: Bool) {
        if extended { return (eventType & 0x01 != 0, eventType & 0x02 != 0) }
        switch eventType {
        case 0: return (true, true)
        case 1: return (true, false)
        case 2: return (false, true)
        default: return (false, false)
        }
    }

    /// The legacy report event type a scanner shows for these properties (7.7.65.2): ADV_IND,
    /// ADV_SCAN_IND or ADV_NONCONN_IND.
    public var legacyEventType: UInt8 {
        connectable ? 0 : scannable ? 2 : 3
    }

    /// Everything advertised: the advertising data and the scan response, each decoded as the AD
    /// sequence it is (Core v5.4 Vol 3 Part C 11: a zero length ends one early, so the padding of
    /// the first must not end the second), then joined.
    public var decoded: AdvertisingData {
        AdvertisingData(decoding: advertisingData).merged(with: AdvertisingData(decoding: scanResponse ?? []))
    }

    public var serviceUUIDs: [BluetoothUUID] { decoded.serviceUUIDs }
    public var localName: String? { decoded.localName }

    /// Estimates an interval from report times (µs): the lower quartile of the gaps between
    /// consecutive advertising reports (a scanner misses some events), less the 5 ms mean
    /// advDelay (Core v5.4 Vol 6 Part B 4.4.2.2.1), at least 20 ms; 100 ms with fewer than 2.
    public static func estimateInterval(reportTimes: [Int64]) -> Int64 {
        let sorted = reportTimes.sorted()
        var gaps: [Int64] = []
        for i in sorted.indices.dropFirst() where sorted[i].saturatingSubtracting(sorted[i - 1]) > 5_000 {
            gaps.append(sorted[i].saturatingSubtracting(sorted[i - 1]))
        }
        guard !gaps.isEmpty else { return 100_000 }
        gaps.sort()
        let quartile = gaps[gaps.count / 4]
        return max(20_000, quartile - 5_000)
    }

    /// Advertising made up for a device the capture never saw advertise: flags, the 16-bit
    /// primary services of its GATT database, its name; 100 ms, -60 dBm.
    public static func synthesized(name: String?, services: [BluetoothUUID]) -> AdvertisingModel {
        var data: [UInt8] = [0x02, 0x01, 0x06]
        let sixteen = services.compactMap(\.uint16).filter { $0 != 0x1800 && $0 != 0x1801 }
        if !sixteen.isEmpty {
            let bytes = sixteen.prefix(6).flatMap { [UInt8($0 & 0xFF), UInt8($0 >> 8)] }
            data += [UInt8(bytes.count + 1), 0x03] + bytes
        }
        var scanResponse: [UInt8]?
        if let name, !name.isEmpty {
            let n = Array(name.utf8.prefix(29))
            scanResponse = [UInt8(n.count + 1), 0x09] + n
        }
        return AdvertisingModel(advertisingData: data, scanResponse: scanResponse, interval: 100_000, rssi: -60,
                                connectable: true, synthesized: true, reportCount: 0)
    }
}
