import BLEDecode
import BLEReplay
import Foundation

/// What a `CBCentralManager` scan shows an iOS app of one device's advertising: the advertising
/// PDU's AD structures and its scan response's (Core v5.4 Vol 3 Part C 11), decoded together as
/// iOS merges them into one dictionary, with every **iBeacon** structure withheld.
///
/// An iBeacon structure is Manufacturer Specific Data (AD type 0xFF, CSS Part A 1.4) of exactly
/// 25 octets: company 0x004C (Apple, little-endian `4C 00`), then `02 15` and the 21 octets of
/// proximity UUID, major, minor and measured power; iOS reads that header only with Apple's
/// company identifier (StackOverflow 43301395: "the exact header (including the company code)
/// must be as specified for iOS to interpret an advertisement as an iBeacon transmission").
/// A structure of another length or company is ordinary manufacturer data here (not checked on
/// a device).
///
/// Since iOS 7, iOS hands iBeacon advertising to CoreLocation only (`CLBeaconRegion` ranging and
/// monitoring), never to CoreBluetooth: StackOverflow 28255475 ("CoreBluetooth - You can also
/// detect other ad-structures in the beacon's advertisement. If the beacon advertises in iBeacon
/// format too, you cannot see the iBeacon" part); StackOverflow 41737833 (a "pure beacon" is
/// seen "only through CoreLocation"; "If it's a mix, it can be seen with CoreBluetooth");
/// Estimote's iBeacon overview (developer.estimote.com/ibeacon, after "Bluetooth devices can be
/// detected on iOS via the Core Bluetooth framework": "iBeacon packets cannot be detected v…",
/// the copy read was cut there). Not checked on a device here. So:
/// - a **pure iBeacon**, whose advertising leaves nothing else an app could see (no local name,
///   service UUIDs, service data, other manufacturer data, TX power level or solicited
///   services: flags alone do not count), is never reported by
///   `centralManager(_:didDiscover:advertisementData:rssi:)` (`isWithheld`);
/// - any other device is reported without the iBeacon: `CBAdvertisementDataManufacturerDataKey`
///   holds its other manufacturer data when it has some (iOS's dictionary holds one value),
///   else nothing.
/// OS X's CoreBluetooth reported iBeacons (mlwelles/BeaconScanner, an OS X iBeacon scanner on
/// `CBCentralManager`); the replay behaves as iOS does on every platform.
struct CBScanAdvertisement {
    /// Everything advertised, the advertising PDU's structures first, iBeacons left out.
    let visible: AdvertisingData
    /// Whether an iBeacon structure was left out.
    let hadIBeacon: Bool
    /// The event's connectable property, as `CBAdvertisementDataIsConnectable`.
    let connectable: Bool

    /// Each PDU is decoded on its own (zero padding or a malformed structure in the advertising
    /// data does not swallow the scan response), then the two are joined.
    init(advertisingData: [UInt8], scanResponse: [UInt8]?, connectable: Bool) {
        let all = AdvertisingData(decoding: advertisingData).merged(with: AdvertisingData(decoding: scanResponse ?? []))
        let kept = all.structures.filter { !Self.isIBeacon($0) }
        visible = AdvertisingData(structures: kept)
        hadIBeacon = kept.count != all.structures.count
        self.connectable = connectable
    }

    /// One advertising event as the host reported it (the scan response only when it was sent).
    init(_ report: AdvertisingEvent) {
        self.init(advertisingData: report.advertisingData, scanResponse: report.scanResponse, connectable: report.connectable)
    }

    /// How a peripheral advertises, as a scan would report it (CentralHost sends the scan
    /// response only for a scannable advertiser).
    init(_ model: AdvertisingModel) {
        self.init(advertisingData: model.advertisingData, scanResponse: model.scannable ? model.scanResponse : nil,
                  connectable: model.connectable)
    }

    /// Apple's iBeacon layout: AD type 0xFF, `4C 00 02 15`, 21 more octets.
    static func isIBeacon(_ s: ADStructure) -> Bool {
        s.type == .manufacturerSpecificData && s.data.count == 25 && s.data.starts(with: [0x4C, 0x00, 0x02, 0x15])
    }

    /// A pure iBeacon: iOS never reports it to a `CBCentralManager`, so an app never gets a
    /// `CBPeripheral` for it.
    var isWithheld: Bool {
        hadIBeacon && dictionary.keys.allSatisfy { $0 == CBAdvertisementDataIsConnectable }
    }

    /// The advertisement-data dictionary of `didDiscover`.
    var dictionary: [String: Any] {
        let ad = visible
        var d: [String: Any] = [CBAdvertisementDataIsConnectable: NSNumber(value: connectable)]
        if let name = ad.localName { d[CBAdvertisementDataLocalNameKey] = name }
        if let tx = ad.txPowerLevel { d[CBAdvertisementDataTxPowerLevelKey] = NSNumber(value: Int(tx)) }
        let services = ad.serviceUUIDs
        if !services.isEmpty { d[CBAdvertisementDataServiceUUIDsKey] = services.map { CBUUID(bluetoothUUID: $0) } }
        if let m = ad.manufacturerData.first {
            d[CBAdvertisementDataManufacturerDataKey] = Data([UInt8(m.companyID & 0xFF), UInt8(m.companyID >> 8)] + m.data)
        }
        let serviceData = ad.serviceData
        if !serviceData.isEmpty {
            var sd: [CBUUID: Data] = [:]
            for (uuid, bytes) in serviceData { sd[CBUUID(bluetoothUUID: uuid)] = Data(bytes) }
            d[CBAdvertisementDataServiceDataKey] = sd
        }
        let solicited = ad.solicitedServiceUUIDs
        if !solicited.isEmpty { d[CBAdvertisementDataSolicitedServiceUUIDsKey] = solicited.map { CBUUID(bluetoothUUID: $0) } }
        return d
    }
}
