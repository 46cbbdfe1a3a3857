import BLECore
import BLECapture

/// A record from a live source, with its btsnoop encoding when the input carried one.
///
/// A btsnoop stream or a monitor frame arrives already encoded; the recorder writes those
/// bytes unchanged when the output has the same datalink (so a User Logging priority or any
/// other detail the record does not model survives), and encodes the record otherwise.
public struct LiveRecord: Sendable {
    public var record: CaptureRecord
    /// The packet as received and the datalink it is encoded for.
    var original: (packet: BtsnoopPacket, datalink: BtsnoopDatalink)?

    public init(_ record: CaptureRecord) {
        self.record = record
    }

    init(_ record: CaptureRecord, original: BtsnoopPacket, datalink: BtsnoopDatalink) {
        self.record = record
        self.original = (original, datalink)
    }
}

/// What a live source has for the recorder after one wait.
public enum SourceEvent: Sendable {
    /// The next record, in arrival order.
    case record(LiveRecord)
    /// Nothing arrived within the timeout.
    case idle
    /// Something the person recording should know (reconnected, file rotated), already worded.
    case notice(String)
    /// The source has ended normally (end of input, the peer went away for good).
    case end
}

/// A live capture source: the BlueZ monitor socket, a growing btsnoop file, standard input,
/// or a TCP stream. Every source turns its input into capture records for the one recording
/// path (`LiveRecorder`). Sources are driven from one thread and wait with a timeout, so the
/// recorder can flush, commit and notice a stop request while the input is quiet.
public protocol LiveSource: AnyObject {
    /// `monitor`, the followed path, `<stdin>`, `tcp:HOST:PORT`.
    var name: String { get }
    /// What the input is, once its first bytes have arrived.
    var format: LiveStreamFormat? { get }
    /// Recoverable oddities so far (a record cut short by a rotation or a dropped connection):
    /// something is missing from the recording, whose capture then ends `truncated`.
    var warnings: [String] { get }
    /// What the person recording should know although nothing was lost (a TCP server that
    /// started its stream over, whose repeats were not stored again; a btsnoop stream labelled
    /// 1001 read as H4): kept with the capture's warnings, the capture stays `complete`.
    var notes: [String] { get }
    /// Waits up to `timeoutMilliseconds` for the next event. Throws when the source fails for
    /// good (malformed bytes, cannot connect at all); records returned before stay valid.
    func next(timeoutMilliseconds: Int) throws(LiveError) -> SourceEvent
}

extension LiveSource {
    public var notes: [String] { [] }
}
