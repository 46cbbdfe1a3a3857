import BLECore
import BLETimeline

/// A controller event of a link that the replay does not simulate but writes as recorded, at its
/// recorded offset from the connection start (time anchoring, as connection updates), so that
/// `import` of a written capture gives the same timeline rows as the original's (`connection_update`,
/// `link_event`, the findings made of them): a refused LE Connection Update Complete, an LE PHY
/// Update Complete, an LE Data Length Change. None of them changes what the replay simulates.
public enum RecordedLinkEvent: Sendable, Hashable {
    case refusedConnectionUpdate(RefusedConnectionUpdate)
    case phyUpdate(PHYUpdate)
    case dataLengthChange(DataLengthChange)

    /// From the connection's start (µs).
    public var offset: Int64 {
        switch self {
        case .refusedConnectionUpdate(let u): u.offset
        case .phyUpdate(let u): u.offset
        case .dataLengthChange(let c): c.offset
        }
    }

    /// The recorded event's frame number: its order among events of the same microsecond.
    public var packetID: Int {
        switch self {
        case .refusedConnectionUpdate(let u): u.packetID
        case .phyUpdate(let u): u.packetID
        case .dataLengthChange(let c): c.packetID
        }
    }

    /// The HCI event, for the link's handle in the replay.
    func hciEvent(handle: UInt16) -> [UInt8] {
        switch self {
        case .refusedConnectionUpdate(let u):
            HCIPacketBuilder.leConnectionUpdateComplete(status: u.status.rawValue, handle: handle, interval: u.interval,
                                                        latency: u.latency, supervisionTimeout: u.supervisionTimeout)
        case .phyUpdate(let u):
            HCIPacketBuilder.lePHYUpdateComplete(status: u.status.rawValue, handle: handle, tx: u.tx, rx: u.rx)
        case .dataLengthChange(let c):
            HCIPacketBuilder.leDataLengthChange(handle: handle, maxTxOctets: c.maxTxOctets, maxTxTime: c.maxTxTime,
                                                maxRxOctets: c.maxRxOctets, maxRxTime: c.maxRxTime)
        }
    }
}

/// An LE Data Length Change (Core v5.4 Vol 4 Part E 7.7.65.7): the most octets and time per
/// link-layer packet each way. The replay's ACL fragmenting follows the LE ACL buffers, not this.
public struct DataLengthChange: Sendable, Hashable {
    public var offset: Int64
    public var maxTxOctets: UInt16
    public var maxTxTime: UInt16
    public var maxRxOctets: UInt16
    public var maxRxTime: UInt16
    public var packetID: Int

    public init(offset: Int64, maxTxOctets: UInt16, maxTxTime: UInt16, maxRxOctets: UInt16, maxRxTime: UInt16, packetID: Int) {
        self.offset = offset
        self.maxTxOctets = maxTxOctets
        self.maxTxTime = maxTxTime
        self.maxRxOctets = maxRxOctets
        self.maxRxTime = maxRxTime
        self.packetID = packetID
    }

    /// From `max_tx_octets=251 max_tx_time=2120 max_rx_octets=251 max_rx_time=2120`.
    init?(offset: Int64, detail: String, packetID: Int) {
        let f = LinkEventDetail.fields(detail)
        guard let txO = f["max_tx_octets"].flatMap({ UInt16($0) }), let txT = f["max_tx_time"].flatMap({ UInt16($0) }),
              let rxO = f["max_rx_octets"].flatMap({ UInt16($0) }), let rxT = f["max_rx_time"].flatMap({ UInt16($0) }) else { return nil }
        self.init(offset: offset, maxTxOctets: txO, maxTxTime: txT, maxRxOctets: rxO, maxRxTime: rxT, packetID: packetID)
    }
}
