/// Names of `link_event` rows that the analysis reads back, kept in one place.
public enum LinkEventName {
    /// The link was open when the controller's HCI Reset completed (Core v5.4 Vol 4 Part E
    /// 7.3.2): it ended there, with no Disconnection Complete (`connection.disconnect_reason` NULL).
    public static let controllerReset = "Controller Reset"
}
