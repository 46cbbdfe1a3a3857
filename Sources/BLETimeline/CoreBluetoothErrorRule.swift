import BLECore

/// The CoreBluetooth name of an HCI code on a link, decided from what the host knew when the
/// packet arrived (REFERENCE.md "HCI disconnect reason -> what a CoreBluetooth app sees").
///
/// One rule: the importer applies it as it writes each `error` row; the analysis applies the
/// same functions again, to timelines written by older versions and to add what only it knows
/// (an ATT transaction that timed out, Core v5.4 Vol 3 Part F 3.3.3); the findings use it too.
public enum CoreBluetoothErrorRule {
    public static let peerRemovedPairingInformation = "CBError.peerRemovedPairingInformation"
    public static let connectionTimeout = "CBError.connectionTimeout"

    /// Whether a `CBCentralManager` app hears about the link at all: LE links only, and not when
    /// the local controller was the peripheral (LE Connection Complete role 0x01, Vol 4 Part E
    /// 7.7.65.1): the app there is a `CBPeripheralManager`, which gets no disconnect or encryption
    /// callback. A link that began before the capture (role unknown) counts as central.
    public static func centralHears(isLE: Bool, localRole: String?) -> Bool {
        isLE && localRole != "peripheral"
    }

    /// The CBError of a Disconnection Complete (Vol 4 Part E 7.7.5) with `reason`.
    ///
    /// - After Encryption Change 0x06 PIN or Key Missing (7.7.8) on a bonded reconnect, the peer
    ///   lost the bond: `CBError.peerRemovedPairingInformation` (14), whoever sent the Disconnect.
    /// - A local 0x16 after an ATT transaction timed out: the stack closed the link,
    ///   `CBError.connectionTimeout` (6).
    /// - The local host asked for it (cancelPeripheralConnection, or the stack): no error,
    ///   whatever reason the controller reports back (0x16, or 0x13 on some controllers).
    /// - Otherwise the configured mapping.
    public static func disconnect(reason: HCIStatusCode, isLE: Bool, localRole: String?,
                                  localDisconnectRequested: Bool, keyMissingBefore: Bool, attTimeoutBefore: Bool,
                                  mapping: DisconnectMapping = .default) -> String? {
        guard centralHears(isLE: isLE, localRole: localRole) else { return nil }
        if keyMissingBefore { return peerRemovedPairingInformation }
        if attTimeoutBefore && reason.rawValue == 0x16 { return connectionTimeout }
        if localDisconnectRequested { return nil }
        return mapping.cbErrorName(for: reason)
    }

    /// The CBError of an Encryption Change (Vol 4 Part E 7.7.8) with a failure status: 0x06 PIN
    /// or Key Missing is `CBError.peerRemovedPairingInformation`; no name for the others.
    public static func encryptionFailure(status: HCIStatusCode, isLE: Bool, localRole: String?) -> String? {
        centralHears(isLE: isLE, localRole: localRole) && status.rawValue == 0x06 ? peerRemovedPairingInformation : nil
    }

    /// The CBError of an LE Connection Complete with a failure status (7.7.65.1): none after
    /// LE Create Connection Cancel (the app's own cancel), else the mapping (0x3E -> connectionFailed).
    public static func connectionFailure(status: HCIStatusCode, cancelled: Bool, isLE: Bool, localRole: String?,
                                         mapping: DisconnectMapping = .default) -> String? {
        guard centralHears(isLE: isLE, localRole: localRole), !cancelled else { return nil }
        return mapping.cbErrorName(for: status)
    }
}
