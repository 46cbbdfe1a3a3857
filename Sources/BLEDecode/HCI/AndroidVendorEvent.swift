import BLECore

/// The sub-event code an Android host reads first in a vendor-specific event (HCI event 0xFF,
/// Core v5.4 Vol 4 Part E 7.7.70 leaves its parameters to the vendor).
///
/// AOSP `stack/include/hcidefs.h` (`HCI_VSE_SUBCODE_*`) dispatches the controller's vendor
/// events on their first byte; the codes below are the ones its LE vendor commands and Bluetooth
/// Quality Report make controllers send. Named only on a capture whose host sent Android's
/// vendor commands: another vendor's event may start with the same byte. An open set.
public struct AndroidVendorEvent: RawRepresentable, Hashable, Sendable {
    public var rawValue: UInt8
    public init(rawValue: UInt8) { self.rawValue = rawValue }

    public static let batchScanThreshold = AndroidVendorEvent(rawValue: 0x54)   // HCI_VSE_SUBCODE_BLE_THRESHOLD_SUB_EVT
    public static let multiAdvertisingStateChange = AndroidVendorEvent(rawValue: 0x55)   // HCI_VSE_SUBCODE_BLE_MULTI_ADV_ST_CHG
    public static let advertisementTracking = AndroidVendorEvent(rawValue: 0x56)   // HCI_VSE_SUBCODE_BLE_TRACKING_SUB_EVT
    public static let debugInfo = AndroidVendorEvent(rawValue: 0x57)   // HCI_VSE_SUBCODE_DEBUG_INFO_SUB_EVT
    public static let bluetoothQualityReport = AndroidVendorEvent(rawValue: 0x58)   // HCI_VSE_SUBCODE_BQR_SUB_EVT

    /// The name with its definer ("Android Bluetooth Quality Report"); nil for a code AOSP does not define.
    public var name: String? {
        switch rawValue {
        case 0x54: "Android LE Batch Scan Threshold"
        case 0x55: "Android LE Multi Advertising State Change"
        case 0x56: "Android LE Advertisement Tracking"
        case 0x57: "Android Controller Debug Info"
        case 0x58: "Android Bluetooth Quality Report"
        default: nil
        }
    }
}
