import BLECore

/// A link that ended with its local controller, with no Disconnection Complete and no HCI reason
/// (`ControllerClosed` in BLEDecode; the timeline's `link_event` named
/// `LinkEventName.controllerClosed(note)`): btmon's Close Index (monitor opcode 9) or Delete Index
/// (opcode 1), or a successful HCI Reset's Command Complete (Core v5.4 Vol 4 Part E 7.3.2).
///
/// The local side did it (its host, its user, or its adapter going away), not the peripheral:
/// a faithful replay closes the controller at the recorded instant (`RecordedCentralDriver`), and
/// the written trace carries the record that did it, so a re-import ends the link the same way.
public struct ControllerClosing: Sendable, Equatable {
    /// What closed it, as the link event names it: `Close Index`, `Delete Index`, `HCI Reset`.
    public var note: String
    /// Microseconds from the connection's origin.
    public var time: Int64
    /// The record that closed it (frame number in the recorded capture).
    public var packetID: Int

    public init(note: String, time: Int64, packetID: Int) {
        self.note = note
        self.time = time
        self.packetID = packetID
    }

    /// True for an HCI Reset; false for btmon's Close Index and Delete Index notes.
    public var isReset: Bool { note == ControllerCloser.hciReset.rawValue }

    /// The btmon monitor opcode of the note that closed it (Close Index 9, Delete Index 1), nil for
    /// an HCI Reset, which any HCI capture carries as a command and its Command Complete.
    public var monitorOpcode: UInt16? { ControllerCloser(rawValue: note)?.monitorOpcode }

    /// `the controller was reset at packet 6 (HCI Reset completed with the link up)`, `the
    /// controller was closed at packet 4 (btmon Close Index with the link up)` (`removed` for a
    /// Delete Index): what happened, as `diagnose` words it. `at` names the record.
    public static func what(_ note: String, at: String) -> String {
        switch ControllerCloser(rawValue: note) {
        case .hciReset: "the controller was reset at \(at) (HCI Reset completed with the link up)"
        case .deleteIndex: "the controller was removed at \(at) (btmon Delete Index with the link up)"
        default: "the controller was closed at \(at) (btmon \(note) with the link up)"
        }
    }

    /// What the link's end lacks, as `diagnose` says it.
    public static let noReason = "no Disconnection Complete, so no HCI reason"
}
