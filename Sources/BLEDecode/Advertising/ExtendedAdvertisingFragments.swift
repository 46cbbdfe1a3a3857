import BLECore

/// Joins the fragments of an extended advertisement that the controller split over several
/// LE Extended Advertising Reports (Core v5.4 Vol 4 Part E 7.7.65.13).
///
/// A report whose Data_Status is 0b01 ("incomplete, more data to come") is followed, for the
/// same advertising set (address and Advertising_SID), by reports carrying the rest; the last
/// has status 0b00 (complete) or 0b10 (truncated). Reports of other advertisers may come in
/// between. Every fragment stays a report of its own (tshark and the timeline count reports);
/// the last one carries the whole data and what it says (name, services, ...), the earlier ones
/// their own bytes and nothing parsed, since a fragment may end or begin inside an AD structure.
struct ExtendedAdvertisingFragments {
    struct Key: Hashable {
        var controller: UInt16
        var address: BluetoothAddress
        var addressType: AddressType
        var sid: UInt8
    }

    /// Extended advertising data is at most 1650 bytes (Vol 6 Part B 2.3.4.9); a run that
    /// grows past it, or an advertiser that never sends its last fragment, is dropped.
    static let maximumLength = 1650
    static let maximumPending = 64

    private var pending: [Key: [UInt8]] = [:]
    /// Keys in the order their runs began, to drop the oldest when too many are open.
    private var order: [Key] = []

    /// Forgets the run of `key`: a sniffer sees an advertiser's data begin again with its
    /// AUX_ADV_IND, whether or not it saw the last chain PDU before.
    mutating func discard(_ key: Key) {
        if pending.removeValue(forKey: key) != nil { order.removeAll { $0 == key } }
    }

    /// Files `report` (its `dataStatus` already set) under `key`; returns it as it should be
    /// stored: a middle fragment without parsed data, a last fragment with the whole data.
    mutating func add(_ report: AdvertisingReport, key: Key) -> AdvertisingReport {
        var report = report
        let earlier = pending.removeValue(forKey: key)
        if earlier != nil { order.removeAll { $0 == key } }
        switch report.dataStatus {
        case 1:
            let joined = (earlier ?? []) + report.data
            if joined.count <= Self.maximumLength {
                pending[key] = joined
                order.append(key)
                if order.count > Self.maximumPending { pending[order.removeFirst()] = nil }
            }
            report.parsed = AdvertisingData(decoding: [UInt8]())
        default:
            if let earlier {
                report.data = earlier + report.data
                report.parsed = AdvertisingData(decoding: report.data)
            }
        }
        return report
    }
}
