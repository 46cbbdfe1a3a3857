import BLECore

/// A declarative central (Docs/replay.md "Central scripts"): steps run in order against the
/// simulated peripherals, with expectations and a reconnect policy.
public struct CentralScript: Sendable {
    /// Which characteristic (or raw handle) a step works on.
    public struct Target: Sendable, CustomStringConvertible {
        public var characteristic: BluetoothUUID?
        public var service: BluetoothUUID?
        public var handle: UInt16?
        public var description: String {
            if let handle { return "handle \(hex(handle, width: 4))" }
            let c = characteristic?.uuidString ?? "?"
            return service.map { "\(c) in \($0.uuidString)" } ?? c
        }
    }

    /// What an operation must come to. With no expectation, it must succeed.
    public struct Expectation: Sendable {
        public var value: [UInt8]?
        public var attError: ATTErrorCode?
        /// The operation must fail because the link went down (or timed out).
        public var fails: Bool = false
    }

    public struct DisconnectExpectation: Sendable {
        public var reason: HCIStatusCode?
        /// CBError raw code as the app would see it (REFERENCE.md mapping).
        public var cbError: Int?
        public var within: Int64
    }

    /// Reconnect after an unexpected disconnection: wait `initial`, then `initial * multiplier^k`
    /// capped at `maximum` (plus up to `jitter` of it, from the seeded generator), at most
    /// `attempts` times; then start the steps again from the top.
    public struct ReconnectPolicy: Sendable {
        public var attempts: Int
        public var initial: Int64
        public var maximum: Int64
        public var multiplier: Double
        public var jitter: Double

        /// The delay before reconnect attempt `k` (0-based).
        public func delay(attempt k: Int, rng: inout SplitMix64) -> Int64 {
            var d = Double(initial)
            for _ in 0..<k { d *= multiplier }
            d = min(d, Double(maximum))
            if jitter > 0 { d += d * jitter * rng.fraction() }
            return Int64(d.rounded())
        }
    }

    public indirect enum Step: Sendable {
        case scan(services: [BluetoothUUID], name: String?, address: String?, allowDuplicates: Bool, timeout: Int64?)
        case connect(timeout: Int64?)
        case discover(services: [BluetoothUUID]?)
        case read(Target, Expectation?)
        case write(Target, [UInt8], withResponse: Bool, Expectation?)
        case subscribe(Target, indicate: Bool, Expectation?)
        case unsubscribe(Target)
        case wait(Int64)
        case waitNotifications(Target, count: Int, timeout: Int64, value: [UInt8]?)
        case expectDisconnect(DisconnectExpectation)
        case disconnect
        case loop(count: Int, steps: [Labeled])
    }

    /// A step with where it sits in the script (`steps[3] read 2A29`), for reports.
    public struct Labeled: Sendable {
        public var step: Step
        public var label: String
    }

    /// Which GATT server the script drives (Docs/replay.md "Central scripts", `server`).
    public enum Server: String, Sendable {
        /// The capture's remote devices, simulated as peripherals.
        case remote
        /// The capture's own local GATT server (links where the local device was the
        /// peripheral), with the script as the remote central (`RecordedLocalServer`).
        case local
    }

    public var name: String
    /// Asked for with `"server"`; nil: the local server when the capture has only links with
    /// the local device as peripheral, else the remote devices.
    public var server: Server?
    /// Only this peripheral (address or name) is accepted by scans.
    public var peripheral: String?
    public var steps: [Labeled]
    public var reconnect: ReconnectPolicy?
    public var unmatched: ReplayConfiguration.Unmatched?
    public var mtu: UInt16
    /// Virtual time after which the run stops (default 1 h).
    public var limit: Int64
    /// Faults the script asks for (strings in the `--inject` grammar).
    public var faults: [FaultSpec]

    public init(name: String, peripheral: String? = nil, steps: [Labeled], reconnect: ReconnectPolicy? = nil,
                unmatched: ReplayConfiguration.Unmatched? = nil, mtu: UInt16 = 517, limit: Int64 = 3_600_000_000,
                faults: [FaultSpec] = []) {
        self.name = name
        self.peripheral = peripheral
        self.steps = steps
        self.reconnect = reconnect
        self.unmatched = unmatched
        self.mtu = mtu
        self.limit = limit
        self.faults = faults
    }
}
