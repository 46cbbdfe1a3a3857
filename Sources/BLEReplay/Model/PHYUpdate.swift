import BLECore
import BLETimeline

/// An LE PHY Update Complete the recording shows (Core v5.4 Vol 4 Part E 7.7.65.12): the
/// controller changed the link's PHYs (status 0) or failed to (0x1A Unsupported Remote Feature,
/// ...). The replay does not simulate PHYs (air time is in the recorded latencies); it writes the
/// event as recorded (`RecordedLinkEvent`), so that `import` of a written capture gives the same
/// `link_event` rows and `diagnose` the same PHY.
public struct PHYUpdate: Sendable, Hashable {
    /// From the connection's start (µs).
    public var offset: Int64
    public var status: HCIStatusCode
    /// TX_PHY and RX_PHY: 0x01 LE 1M, 0x02 LE 2M, 0x03 LE Coded.
    public var tx: UInt8
    public var rx: UInt8
    /// The recorded event's frame number: its order among events of the same microsecond.
    public var packetID: Int

    public init(offset: Int64, status: HCIStatusCode, tx: UInt8, rx: UInt8, packetID: Int) {
        self.offset = offset
        self.status = status
        self.tx = tx
        self.rx = rx
        self.packetID = packetID
    }

    /// TX_PHY and RX_PHY from the timeline's `link_event.detail`, `tx_phy=2M rx_phy=2M` (as the
    /// decoder names them: 1M, 2M, Coded, else the code in hex, `0x05`); nil when it says neither.
    static func phys(fromDetail detail: String) -> (tx: UInt8, rx: UInt8)? {
        func code(_ v: Substring?) -> UInt8? {
            switch v {
            case "1M": 1
            case "2M": 2
            case "Coded": 3
            case let v? where v.hasPrefix("0x"): UInt8(v.dropFirst(2), radix: 16)
            default: nil
            }
        }
        let f = LinkEventDetail.fields(detail)
        let tx = code(f["tx_phy"]), rx = code(f["rx_phy"])
        guard let tx, let rx else { return nil }
        return (tx, rx)
    }
}
