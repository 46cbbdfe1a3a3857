/// The `status` an Android app's `BluetoothGattCallback` receives, with the name of the constant
/// it can compare it to.
///
/// Every number and name is AOSP's (Docs/android.md "What an Android app receives" lists the
/// sources). A name the framework publishes (`BluetoothGatt.GATT_READ_NOT_PERMITTED`) is given as
/// the framework spells it; the others are the Bluetooth stack's (`gatt_api.h`), which an app
/// receives as a bare integer. An open struct: a status nobody has named keeps its number.
public struct AndroidGattStatus: Hashable, Sendable, CustomStringConvertible {
    /// The integer passed to the callback.
    public var status: Int
    /// The constant's name; nil when AOSP names none for this number.
    public var name: String?
    /// True where the value depends on the Android version (Docs/android.md marks these).
    public var tentative: Bool

    public init(_ status: Int, _ name: String?, tentative: Bool = false) {
        self.status = status
        self.name = name
        self.tentative = tentative
    }

    /// "133 GATT_ERROR", "20" for an unnamed status.
    public var description: String { name.map { "\(status) \($0)" } ?? String(status) }

    // MARK: Framework constants (framework/java/android/bluetooth/BluetoothGatt.java)

    /// `BluetoothGatt.GATT_SUCCESS` = 0.
    public static let success = AndroidGattStatus(0, "GATT_SUCCESS")
    /// `BluetoothGatt.GATT_CONNECTION_CONGESTED` = 0x8f (the stack's `GATT_CONGESTED`, gatt_api.h).
    public static let connectionCongested = AndroidGattStatus(0x8F, "GATT_CONNECTION_CONGESTED")
    /// `BluetoothGatt.GATT_CONNECTION_TIMEOUT` = 0x93: a direct connect that gave up after 30 s.
    /// Tentative: the constant and the stack path that sends it (system/bta/gatt/bta_gattc_act.cc,
    /// "Connection timed out after 30 seconds … Return GATT_CONNECTION_TIMEOUT") are Android 15's;
    /// earlier versions report 133 `GATT_ERROR` for the same event.
    public static let connectionTimeout = AndroidGattStatus(0x93, "GATT_CONNECTION_TIMEOUT", tentative: true)
    /// `BluetoothGatt.GATT_FAILURE` = 0x101: the framework's own failure (for example a client
    /// that could not register, BluetoothGatt.java `onClientRegistered`).
    public static let failure = AndroidGattStatus(0x101, "GATT_FAILURE")

    // MARK: The stack's statuses (system/stack/include/gatt_api.h, `tGATT_STATUS`)

    /// `GATT_ERROR` = 0x85 (133): what `bta_gattc_open_fail` and the disconnect of a pending
    /// direct connect send when a connection could not be opened (system/bta/gatt/bta_gattc_act.cc).
    public static let error = AndroidGattStatus(0x85, "GATT_ERROR")
    /// `GATT_AUTH_FAIL` = 0x89 (137): a read or write whose encryption or pairing failed
    /// (system/stack/gatt/gatt_auth.cc `gatt_sec_check_complete`).
    public static let authFail = AndroidGattStatus(0x89, "GATT_AUTH_FAIL")

    // MARK: Link statuses (gatt_api.h `tGATT_DISCONN_REASON`, whose values are hcidefs.h's HCI codes)

    /// `GATT_CONN_TIMEOUT` = `HCI_ERR_CONNECTION_TOUT` 0x08.
    public static let connTimeout = AndroidGattStatus(0x08, "GATT_CONN_TIMEOUT")
    /// `GATT_CONN_TERMINATE_PEER_USER` = `HCI_ERR_PEER_USER` 0x13.
    public static let connTerminatePeerUser = AndroidGattStatus(0x13, "GATT_CONN_TERMINATE_PEER_USER")
    /// `GATT_CONN_TERMINATE_LOCAL_HOST` = `HCI_ERR_CONN_CAUSE_LOCAL_HOST` 0x16.
    public static let connTerminateLocalHost = AndroidGattStatus(0x16, "GATT_CONN_TERMINATE_LOCAL_HOST")
    /// `GATT_CONN_LMP_TIMEOUT` = `HCI_ERR_LMP_RESPONSE_TIMEOUT` 0x22 (LMP or LL Response Timeout).
    public static let connLMPTimeout = AndroidGattStatus(0x22, "GATT_CONN_LMP_TIMEOUT")
    /// `GATT_CONN_FAIL_ESTABLISH` = `HCI_ERR_CONN_FAILED_ESTABLISHMENT` 0x3E; the newest gatt_api.h
    /// calls it `GATT_CONN_FAILED_ESTABLISHMENT` (same number). Tentative: the name only.
    public static let connFailEstablish = AndroidGattStatus(0x3E, "GATT_CONN_FAIL_ESTABLISH", tentative: true)
    /// `GATT_CONN_TERMINATED_POWER_OFF` = `HCI_ERR_REMOTE_POWER_OFF` 0x15: named only in the newest
    /// gatt_api.h (tentative: older versions pass 0x15 through unnamed).
    public static let connTerminatedPowerOff = AndroidGattStatus(0x15, "GATT_CONN_TERMINATED_POWER_OFF", tentative: true)
    /// `GATT_CONN_L2C_FAILURE` = 1: the stack's general L2CAP failure.
    public static let connL2CFailure = AndroidGattStatus(0x01, "GATT_CONN_L2C_FAILURE")
    /// `GATT_CONN_CANCEL` = `L2CAP_CONN_CANCEL` 0x0100 in the older gatt_api.h; newer versions
    /// have `BTA_GATT_CONN_NONE` = 0x0101 instead (tentative).
    public static let connCancel = AndroidGattStatus(0x100, "GATT_CONN_CANCEL", tentative: true)

    /// HCI disconnect reason -> its `tGATT_DISCONN_REASON` name (gatt_api.h). The stack passes
    /// every reason through as the status (bta_gattc_act.cc `bta_gattc_close`:
    /// `cb_data.close.status = p_data->int_conn.reason`); these are the ones it names.
    public static let linkNames: [UInt8: AndroidGattStatus] = [
        0x08: .connTimeout, 0x13: .connTerminatePeerUser, 0x15: .connTerminatedPowerOff,
        0x16: .connTerminateLocalHost, 0x22: .connLMPTimeout, 0x3E: .connFailEstablish,
    ]

    /// ATT error -> `tGATT_STATUS` (gatt_api.h), the framework's name where BluetoothGatt.java
    /// publishes one (2, 3, 5, 6, 7, 8, 0x0d, 0x0f). The stack hands the peer's code to the
    /// read, write and descriptor callbacks unchanged.
    public static let attNames: [UInt8: String] = [
        0x01: "GATT_INVALID_HANDLE", 0x02: "GATT_READ_NOT_PERMITTED", 0x03: "GATT_WRITE_NOT_PERMITTED",
        0x04: "GATT_INVALID_PDU", 0x05: "GATT_INSUFFICIENT_AUTHENTICATION", 0x06: "GATT_REQUEST_NOT_SUPPORTED",
        0x07: "GATT_INVALID_OFFSET", 0x08: "GATT_INSUFFICIENT_AUTHORIZATION", 0x09: "GATT_PREPARE_Q_FULL",
        0x0A: "GATT_NOT_FOUND", 0x0B: "GATT_NOT_LONG", 0x0C: "GATT_INSUF_KEY_SIZE",
        0x0D: "GATT_INVALID_ATTRIBUTE_LENGTH", 0x0E: "GATT_ERR_UNLIKELY", 0x0F: "GATT_INSUFFICIENT_ENCRYPTION",
        0x10: "GATT_UNSUPPORT_GRP_TYPE", 0x11: "GATT_INSUF_RESOURCE", 0x12: "GATT_DATABASE_OUT_OF_SYNC",
        0x13: "GATT_VALUE_NOT_ALLOWED", 0xFC: "GATT_WRITE_REQ_REJECTED", 0xFD: "GATT_CCC_CFG_ERR",
        0xFE: "GATT_PRC_IN_PROGRESS", 0xFF: "GATT_OUT_OF_RANGE",
    ]

    /// The ATT errors whose name depends on the Android version: 0x12, 0x13 and 0xFC are named
    /// only by newer gatt_api.h files (older ones pass the number through unnamed).
    public static let tentativeATT: Set<UInt8> = [0x12, 0x13, 0xFC]

    /// The status of `onConnectionStateChange(…, STATE_DISCONNECTED)` for a link that ended with
    /// `reason` (Core v5.4 Vol 4 Part E 7.7.5), when the app did not ask for it: the reason itself.
    public static func disconnect(reason: HCIStatusCode) -> AndroidGattStatus {
        linkNames[reason.rawValue] ?? AndroidGattStatus(Int(reason.rawValue), nil)
    }

    /// The status a read, write or descriptor callback gets for an ATT Error Response with `code`
    /// (Core v5.4 Vol 3 Part F 3.4.1.1). Application errors 0x80-0x9F pass through unnamed: their
    /// numbers overlap the stack's own statuses (0x85 is also `GATT_ERROR`), and the app cannot
    /// tell them apart.
    public static func att(_ code: ATTErrorCode) -> AndroidGattStatus {
        AndroidGattStatus(Int(code.rawValue), attNames[code.rawValue], tentative: tentativeATT.contains(code.rawValue))
    }
}
