import BLECore

/// Connection parameters in microseconds (Core v5.4 Vol 6 Part B 4.5.1; REFERENCE.md timing
/// facts: interval 7.5 ms - 4 s, supervision timeout 100 ms - 32 s).
public struct ConnectionParameters: Sendable, Hashable {
    public var interval: Int64
    public var supervisionTimeout: Int64
    /// `latency` in 32 bits after the two words: 20 bytes, so that the 1-byte fields of what
    /// holds them can follow in the last word (issue 17). A count of connection events (at most
    /// 499, Core v5.4 Vol 6 Part B 4.5.1; 16 bits on the wire), held clamped.
    private var latencyEvents: Int32

    /// Peripheral latency: connection events the peripheral may skip.
    public var latency: Int {
        get { Int(latencyEvents) }
        set { latencyEvents = Int32(clamping: newValue) }
    }

    public init(interval: Int64, latency: Int, supervisionTimeout: Int64) {
        self.interval = interval
        self.supervisionTimeout = supervisionTimeout
        latencyEvents = Int32(clamping: latency)
    }

    /// What a phone asks for when nothing else is known: 30 ms, latency 0, 4 s (inside
    /// Apple's accessory guidelines, REFERENCE.md).
    public static let typical = ConnectionParameters(interval: 30_000, latency: 0, supervisionTimeout: 4_000_000)

    public var description: String {
        "interval \(VirtualDuration.short(interval)), latency \(latency), supervision timeout \(VirtualDuration.short(supervisionTimeout))"
    }
}

/// A device address with its HCI address type (0 public, 1 random, ...).
public struct PeerAddress: Sendable, Hashable, CustomStringConvertible {
    public var address: BluetoothAddress
    public var type: UInt8

    public init(address: BluetoothAddress, type: UInt8) {
        self.address = address
        self.type = type
    }

    /// From the timeline's text forms ('C4:7A:3B:12:9E:51', 'random').
    public init?(text: String?, typeName: String?) {
        guard let text, let a = BluetoothAddress(text) else { return nil }
        address = a
        switch typeName {
        case "public": type = 0
        case "random": type = 1
        case "public-identity": type = 2
        case "random-identity": type = 3
        default: type = 1
        }
    }

    public var littleEndianBytes: [UInt8] { address.littleEndianArray }
    public var description: String { address.description }
}
