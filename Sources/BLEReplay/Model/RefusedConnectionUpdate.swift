import BLECore

/// An LE Connection Update Complete whose status is not success (Core v5.4 Vol 4 Part E
/// 7.7.65.3; 0x3B Unacceptable Connection Parameters, 0x1A, 0x20, ...): the update did not take
/// effect and the link keeps its parameters, but the event happened, and the import makes a
/// `connection_update` row, an `error` row and an `unacceptable-parameters` finding of it. The
/// replay changes nothing on the link and writes the event, as recorded, at its recorded offset
/// (time anchoring, as accepted updates), so that a written capture imports the same way.
public struct RefusedConnectionUpdate: Sendable, Hashable {
    /// From the connection's start (µs).
    public var offset: Int64
    public var status: HCIStatusCode
    /// The event's parameter fields as the controller filled them (Connection_Interval in
    /// 1.25 ms, Peripheral_Latency in events, Supervision_Timeout in 10 ms): a failed update's
    /// say nothing the link uses, and are written back unchanged.
    public var interval: UInt16
    public var latency: UInt16
    public var supervisionTimeout: UInt16
    /// The recorded event's frame number: its order among events of the same microsecond.
    public var packetID: Int

    public init(offset: Int64, status: HCIStatusCode, interval: UInt16, latency: UInt16, supervisionTimeout: UInt16, packetID: Int) {
        self.offset = offset
        self.status = status
        self.interval = interval
        self.latency = latency
        self.supervisionTimeout = supervisionTimeout
        self.packetID = packetID
    }
}
