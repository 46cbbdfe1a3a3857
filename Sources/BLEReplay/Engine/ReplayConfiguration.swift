import BLECore

/// Everything that shapes a replay besides the models (Docs/replay.md).
public struct ReplayConfiguration: Sendable {
    /// How the peripheral answers a request the recording never saw (`--unmatched`).
    public enum Unmatched: Sendable, Equatable {
        /// No answer, and the run counts as diverged.
        case strict
        /// Answered from the reconstructed GATT database and values.
        case database
        /// Answered with this ATT error.
        case error(ATTErrorCode)
    }

    /// Whether recorded actions keep their event anchors or fall back to time since the connection start.
    public enum Anchoring: String, Sendable {
        case events, time
    }

    public var unmatched: Unmatched = .database
    /// With `unmatched == .database`: how a Read Request for a value the recording never showed
    /// is answered (ValueHistory.swift, Docs/replay.md "Values the recording never showed").
    public var unrecordedValues: UnrecordedValues = .error(ATTErrorCode(0x02))
    public var anchoring: Anchoring = .events
    public var faults: [FaultSpec] = []
    public var disconnectMapping: DisconnectMapping = .default
    /// The central's host disconnects (0x13) when an ATT transaction times out, as BlueZ and
    /// Android do; off for a faithful replay, where the recorded central decides.
    public var disconnectOnATTTimeout = true
    /// Client Rx MTU the central asks for.
    public var clientRxMTU: UInt16 = 517
    /// The central's controller LE ACL buffers (LE Read Buffer Size): data bytes per packet, packets.
    public var aclBufferSize = 27
    public var aclBufferCount = 8
    /// Keep the HCI records (for `--write-capture`).
    public var keepTrace = false
    /// The recording's links were on several controllers (a btmon capture of two adapters): the
    /// written trace is a Linux monitor btsnoop (2001) keeping each link on its controller. Also
    /// set when a btmon Close Index or Delete Index ended a link (`ControllerClosing`): only that
    /// datalink carries the note.
    public var severalControllers = false
    public var seed: UInt64 = 0
    /// Unix microseconds of virtual time zero, for the written capture.
    public var epoch: Int64 = 1_772_323_200_000_000

    public init() {}

    /// The product of every `latency-scale` fault.
    public var latencyScale: Double {
        faults.reduce(1.0) { acc, f in
            if case .latencyScale(let x) = f.kind { return acc * x }
            return acc
        }
    }
}

/// How a read of a value no recording shows is answered: never an empty value presented as real.
public enum UnrecordedValues: Sendable, Equatable {
    /// An ATT Error Response with this code (default 0x02 Read Not Permitted).
    case error(ATTErrorCode)
    /// No answer, and the request counts as unmatched (the run diverged).
    case strict
    /// An empty value (the old behaviour; it reads as real data to the app).
    case empty
}
