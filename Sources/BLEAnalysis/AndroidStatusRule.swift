import BLECore

/// The status an Android app's `BluetoothGattCallback` received for an error row, decided from
/// what the timeline knows (Docs/android.md "What an Android app receives").
///
/// From AOSP's Bluetooth stack (packages/modules/Bluetooth, formerly system/bt):
/// - a link that ends: `onConnectionStateChange(gatt, reason, STATE_DISCONNECTED)` with the HCI
///   reason itself (system/bta/gatt/bta_gattc_act.cc `bta_gattc_close`,
///   `cb_data.close.status = p_data->int_conn.reason`), or `GATT_SUCCESS` after the app's own
///   `BluetoothGatt.disconnect()` (the same function, `BTA_GATTC_API_CLOSE_EVT`);
/// - an attempt that fails: `GATT_ERROR` 133 (`bta_gattc_open_fail`, "Cannot establish
///   Connection … Return GATT_ERROR"); the 30 s direct-connect timeout
///   (system/stack/gatt/connection_manager.cc `DIRECT_CONNECT_TIMEOUT`) gives 133 up to
///   Android 14 and `GATT_CONNECTION_TIMEOUT` 147 from Android 15 (tentative, `AndroidGattStatus.connectionTimeout`);
/// - an ATT Error Response: the read, write or descriptor callback gets the peer's code.
///
/// Only a `BluetoothGatt` client hears these: links where the phone was the peripheral (a
/// `BluetoothGattServer` app) and BR/EDR links get none (nil).
public enum AndroidStatusRule {
    /// ATT discovery requests (Core v5.4 Vol 3 Part G 4.4-4.7): their Attribute Not Found ends
    /// the procedure, and the app's `onServicesDiscovered` gets `GATT_SUCCESS`, not an error.
    static let discoveryOpcodes: Set<Int> = [0x04, 0x06, 0x08, 0x10]

    /// Whether a `BluetoothGatt` client app hears about the link (LE, the phone not the peripheral).
    static func clientHears(isLE: Bool, localRole: String?) -> Bool { isLE && localRole != "peripheral" }

    /// `onConnectionStateChange` after a Disconnection Complete (Core v5.4 Vol 4 Part E 7.7.5).
    ///
    /// A local 0x16 after an ATT transaction timed out is the stack's own disconnect
    /// (system/stack/gatt/gatt_utils.cc `gatt_rsp_timeout` -> `gatt_disconnect`): 22
    /// `GATT_CONN_TERMINATE_LOCAL_HOST`, not the app's `GATT_SUCCESS`.
    ///
    /// The app's `BluetoothGatt.disconnect()` always sends HCI Disconnect with 0x13 Remote User
    /// Terminated Connection (`HCI_ERR_PEER_USER`); a Disconnect with any other reason
    /// (`disconnectReasonSent`: 0x05 after failed security, 0x15, 0x1A, 0x29, 0x3B, Core v5.4 Vol 4
    /// Part E 7.1.6) is the stack's own, and the app gets the reason the controller reports.
    /// When the host's Disconnect is not in the capture or its reason cannot be read
    /// (`disconnectReasonSent` nil), whose it was is unknown, and so is the status: nil.
    public static func disconnect(reason: HCIStatusCode, isLE: Bool, localRole: String?,
                                  localDisconnectRequested: Bool, attTimeoutBefore: Bool,
                                  disconnectReasonSent: UInt8?) -> AndroidGattStatus? {
        guard clientHears(isLE: isLE, localRole: localRole) else { return nil }
        if attTimeoutBefore && reason.rawValue == 0x16 { return .connTerminateLocalHost }
        if localDisconnectRequested {
            guard let sent = disconnectReasonSent else { return nil }
            if sent == 0x13 { return .success }
        }
        return .disconnect(reason: reason)
    }

    /// The status of the direct-connect timeout for an Android version (nil: not known, the
    /// versions most phones in the field run, 133).
    public static func directConnectTimeout(androidVersion: Int?) -> AndroidGattStatus {
        (androidVersion ?? 0) >= 15 ? .connectionTimeout : .error
    }

    /// Android's direct connect (`connectGatt` with autoConnect false) gives up after 30 s
    /// (connection_manager.cc `DIRECT_CONNECT_TIMEOUT (30 * 1000)`); the window allows for timer slack.
    public static let directConnectTimeoutUs: ClosedRange<Int64> = 29_500_000...31_000_000

    /// `onConnectionStateChange` after an LE Connection Complete with a failure status (7.7.65.1).
    /// An attempt the host cancelled 30 s after it began is the direct-connect timeout; other
    /// cancels are the app's or the stack's accept-list changes, which no callback reports.
    ///
    /// 0x3C Advertising Timeout ends the phone's own directed advertising, not a connect: the
    /// stack tells no GATT client of it (system/stack/acl/ble_acl.cc `acl_ble_connection_fail`:
    /// `if (status != HCI_ERR_ADVERTISING_TIMEOUT) connection_manager::on_connection_failed(…)`),
    /// whatever role byte the controller put in the failed event (AOSP takes it as unknown).
    public static func connectionFailure(status: HCIStatusCode, cancelled: Bool, waitedUs: Int64?, isLE: Bool,
                                         localRole: String?, androidVersion: Int?) -> AndroidGattStatus? {
        guard !isAdvertisingTimeout(status) else { return nil }
        guard clientHears(isLE: isLE, localRole: localRole) else { return nil }
        if cancelled {
            guard let waitedUs, directConnectTimeoutUs.contains(waitedUs) else { return nil }
            return directConnectTimeout(androidVersion: androidVersion)
        }
        return .error
    }

    /// The callback that ends an ATT read or write request the phone sent (nil for other
    /// requests: discovery and MTU exchange end in callbacks of their own, not claimed here).
    public static func callback(forRequestOpcode opcode: Int) -> String? {
        switch opcode {
        case 0x0A, 0x0C: "onCharacteristicRead (or onDescriptorRead)"
        case 0x12, 0x16: "onCharacteristicWrite (or onDescriptorWrite)"
        case 0x18: "onReliableWriteCompleted"
        default: nil
        }
    }

    /// The status of a read or write still awaiting its response when the link closed: every
    /// pending operation ends with `GATT_ERROR` before the app hears of the disconnect
    /// (system/stack/gatt/gatt_utils.cc `gatt_cleanup_upon_disc`:
    /// `gatt_end_operation(p_clcb, GATT_ERROR, NULL)`, then `gatt_disconnect_complete_notify_user`).
    public static let pendingAtDisconnect = AndroidGattStatus.error

    /// 0x3C Advertising Timeout (Core v5.4 Vol 1 Part F 2.60) in a failed LE Connection Complete.
    public static func isAdvertisingTimeout(_ status: HCIStatusCode) -> Bool { status.rawValue == 0x3C }

    /// The read, write or descriptor callback's status for an ATT Error Response the phone
    /// received (Core v5.4 Vol 3 Part F 3.4.1.1); nil for one it sent (its GATT server's) and for
    /// the Attribute Not Found that ends a discovery.
    public static func attError(_ code: ATTErrorCode, requestOpcode: Int?, receivedByPhone: Bool) -> AndroidGattStatus? {
        guard receivedByPhone else { return nil }
        if code == .attributeNotFound, let op = requestOpcode, discoveryOpcodes.contains(op) { return nil }
        return .att(code)
    }
}
