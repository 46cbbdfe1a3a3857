import BLECore

/// Names of `link_event` rows that the analysis reads back, kept in one place.
public enum LinkEventName {
    /// The link was open when its controller was closed, removed or reset (`ControllerClosed` in
    /// BLEDecode): it ended at that record, with no Disconnection Complete
    /// (`connection.disconnect_reason` NULL). `note` names the record: Close Index, Delete Index,
    /// HCI Reset.
    public static func controllerClosed(_ note: String) -> String { "Controller closed (" + note + ")" }
    /// The link was open when the controller's HCI Reset completed (Core v5.4 Vol 4 Part E 7.3.2).
    public static let controllerReset = controllerClosed(ControllerCloser.hciReset.rawValue)
    /// A Connection Complete gave the link's handle to a new link while the capture still showed
    /// it open: it ended by then, its Disconnection Complete not in the capture
    /// (`connection.disconnect_reason` NULL, `disconnect_packet_id` that event).
    public static let handleReused = "Handle given to a new link"
}
