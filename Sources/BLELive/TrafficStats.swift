import BLECore
import BLEDecode

/// What the status line shows, counted over the records the recording keeps.
public struct TrafficStats: Sendable {
    public var packets = 0
    /// Connections that completed with success and have not disconnected (plus those found in progress).
    public var openConnections: Set<Int> = []
    public var advertisers: Set<BluetoothAddress> = []
    public var attErrors = 0
    public var disconnects = 0
    public var lastDisconnectReason: HCIStatusCode?

    public init() {}

    mutating func count(_ packet: DecodedPacket) {
        packets += 1
        for event in packet.events {
            switch event {
            case .advertisingReport(let report):
                advertisers.insert(report.address)
            case .connectionComplete(let c) where c.status == .success:
                openConnections.insert(c.connection.index)
            case .connectionFoundInProgress(let ref, _):
                openConnections.insert(ref.index)
            case .disconnectionComplete(let d) where d.status == .success:
                disconnects += 1
                lastDisconnectReason = d.reason
                if let ref = d.connection { openConnections.remove(ref.index) }
            case .att(let att) where att.opcode == .errorResponse:
                attErrors += 1
            default:
                break
            }
        }
    }

    /// `1234 packets, 2 connected, 15 advertisers, 3 ATT errors, 1 disconnect (last 0x08 Connection Timeout)`
    public var summary: String {
        func plural(_ n: Int, _ word: String) -> String { "\(n) \(word)\(n == 1 ? "" : "s")" }
        var text = "\(plural(packets, "packet")), \(openConnections.count) connected, \(plural(advertisers.count, "advertiser")), "
            + "\(plural(attErrors, "ATT error")), \(plural(disconnects, "disconnect"))"
        if let reason = lastDisconnectReason { text += " (last \(reason))" }
        return text
    }
}
