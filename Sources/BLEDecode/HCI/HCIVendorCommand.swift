import BLECore

/// A vendor-specific HCI command (OGF 0x3F) as the host that sends it defines it.
///
/// Core v5.4 Vol 4 Part E 5.4.1 reserves OGF 0x3F for vendor-specific commands: their parameters
/// and return parameters belong to the vendor, not to the spec. The Android stack defines LE
/// commands its controllers implement (AOSP `stack/include/hcidefs.h`: `HCI_BLE_VENDOR_CAP`
/// 0xFD53 … `HCI_CONTROLLER_DAB` 0xFD5F), several with a sub-opcode as first parameter that the
/// Command Complete echoes after its first return byte; it also sends Broadcom's Set ACL
/// Priority (`HCI_BRCM_SET_ACL_PRIORITY` 0xFC57) to Broadcom controllers.
public struct HCIVendorCommand: Sendable {
    public var opcode: HCIOpcode
    /// The name the definer gives it, prefixed with the definer ("Android LE Batch Scan").
    public var name: String
    /// True when the definer's host code reads the first return parameter of its Command Complete
    /// as a Status, 0x00 success (AOSP's completion callbacks `STREAM_TO_UINT8(status, p)` and
    /// compare it with `HCI_SUCCESS`). Its values are still the vendor's: never an HCI error code.
    public var firstReturnIsStatus: Bool
    /// Names of the sub-opcode sent as the first command parameter and echoed as the second
    /// return parameter; empty for a command without one.
    public var subOpcodes: [UInt8: String]

    init(_ opcode: HCIOpcode, _ name: String, firstReturnIsStatus: Bool, subOpcodes: [UInt8: String] = [:]) {
        self.opcode = opcode
        self.name = name
        self.firstReturnIsStatus = firstReturnIsStatus
        self.subOpcodes = subOpcodes
    }

    /// The sub-opcode's name, or its number when the definer names none.
    public func subOpcodeName(_ sub: UInt8) -> String? {
        guard !subOpcodes.isEmpty else { return nil }
        return subOpcodes[sub] ?? "sub-opcode " + Fmt.h2(sub)
    }

    /// The vendor commands whose definer is known, by opcode.
    public static func known(_ opcode: HCIOpcode) -> HCIVendorCommand? { table[opcode.rawValue] }

    /// One of Android's LE vendor commands (0xFD53-0xFD5F in the table), which only an Android
    /// host sends.
    public static func isAndroid(_ opcode: HCIOpcode) -> Bool {
        (0xFD53...0xFD5F).contains(opcode.rawValue) && table[opcode.rawValue] != nil
    }

    /// Android's LE vendor commands (`isAndroid`), in opcode order.
    public static let androidOpcodes: [HCIOpcode] = table.keys.sorted().map { HCIOpcode($0) }.filter { isAndroid($0) }

    /// AOSP `hcidefs.h` and `btm_ble_api_types.h` (sub codes); names in Wireshark's wording
    /// (`bthci_vendor.broadcom.opcode`) where it has one. First return parameter read as Status
    /// in AOSP: `btm_ble_vendor_capability_vsc_cmpl_cback` (0xFD53), the multi-advertising
    /// completion (0xFD54), `btm_ble_batchscan_vsc_cmpl_cback` (0xFD56), `btm_flt_update_cb`
    /// (0xFD57), `btm_ble_cont_energy_cmpl_cback` (0xFD59), `BqrVscCompleteCallback` (0xFD5E).
    static let table: [UInt16: HCIVendorCommand] = {
        let all = [
            HCIVendorCommand(.androidLEGetVendorCapabilities, "Android LE Get Vendor Capabilities", firstReturnIsStatus: true),
            HCIVendorCommand(.androidLEMultiAdvertising, "Android LE Multi Advertising", firstReturnIsStatus: true, subOpcodes: [
                0x01: "Set Parameter", 0x02: "Write Advertising Data", 0x03: "Write Scan Response Data",
                0x04: "Set Random Address", 0x05: "Enable",
            ]),
            HCIVendorCommand(.androidLEBatchScan, "Android LE Batch Scan", firstReturnIsStatus: true, subOpcodes: [
                0x01: "Enable/Disable Customer Feature", 0x02: "Set Storage Parameter", 0x03: "Set Parameter",
                0x04: "Read Results",
            ]),
            HCIVendorCommand(.androidLEAdvertisingFilter, "Android LE Advertising Filter", firstReturnIsStatus: true, subOpcodes: [
                0x00: "Enable", 0x01: "Feature Select", 0x02: "BDADDR", 0x03: "UUID", 0x04: "Solicitate UUID",
                0x05: "Local Name", 0x06: "Manufacturer Data", 0x07: "Service Data", 0x08: "All",
                // Android's HCI requirements (LE_APCF_Command): 0xFF APCF Read Extended Features.
                0xFF: "Read Extended Features",
            ]),
            HCIVendorCommand(.androidLETrackAdvertiser, "Android LE Track Advertiser", firstReturnIsStatus: false),
            HCIVendorCommand(.androidLEEnergyInfo, "Android LE Energy Info", firstReturnIsStatus: true),
            HCIVendorCommand(.androidLEExtendedScanParameters, "Android LE Extended Scan Parameters", firstReturnIsStatus: false),
            HCIVendorCommand(.androidControllerDebugInfo, "Android Controller Debug Info", firstReturnIsStatus: false),
            HCIVendorCommand(.androidA2DPOffload, "Android A2DP Offload", firstReturnIsStatus: false),
            HCIVendorCommand(.androidBluetoothQualityReport, "Android Bluetooth Quality Report", firstReturnIsStatus: true),
            HCIVendorCommand(.androidDynamicAudioBuffer, "Android Dynamic Audio Buffer", firstReturnIsStatus: false, subOpcodes: [
                0x01: "Get Buffer Time", 0x02: "Set Buffer Time",
            ]),
            HCIVendorCommand(.broadcomSetACLPriority, "Broadcom Set ACL Priority", firstReturnIsStatus: false),
        ]
        return Dictionary(uniqueKeysWithValues: all.map { ($0.opcode.rawValue, $0) })
    }()
}

extension HCIOpcode {
    // Android's LE vendor commands (AOSP hcidefs.h, OCF | HCI_GRP_VENDOR_SPECIFIC 0xFC00).
    public static let androidLEGetVendorCapabilities = HCIOpcode(0xFD53)   // HCI_BLE_VENDOR_CAP
    public static let androidLEMultiAdvertising = HCIOpcode(0xFD54)        // HCI_BLE_MULTI_ADV
    public static let androidLEBatchScan = HCIOpcode(0xFD56)               // HCI_BLE_BATCH_SCAN
    public static let androidLEAdvertisingFilter = HCIOpcode(0xFD57)       // HCI_BLE_ADV_FILTER (APCF)
    public static let androidLETrackAdvertiser = HCIOpcode(0xFD58)         // HCI_BLE_TRACK_ADV
    public static let androidLEEnergyInfo = HCIOpcode(0xFD59)              // HCI_BLE_ENERGY_INFO
    public static let androidLEExtendedScanParameters = HCIOpcode(0xFD5A)  // HCI_BLE_EXTENDED_SCAN_PARAMS
    public static let androidControllerDebugInfo = HCIOpcode(0xFD5B)       // HCI_CONTROLLER_DEBUG_INFO
    public static let androidA2DPOffload = HCIOpcode(0xFD5D)               // HCI_CONTROLLER_A2DP
    public static let androidBluetoothQualityReport = HCIOpcode(0xFD5E)    // HCI_CONTROLLER_BQR
    public static let androidDynamicAudioBuffer = HCIOpcode(0xFD5F)        // HCI_CONTROLLER_DAB
    /// Broadcom's Set ACL Priority, as AOSP sends it (`HCI_BRCM_SET_ACL_PRIORITY`).
    public static let broadcomSetACLPriority = HCIOpcode(0xFC57)
}

/// The first return parameter of a vendor command's Command Complete (Core v5.4 Vol 4 Part E
/// 7.7.14 with a vendor opcode): the vendor's, not an HCI status code (Vol 1 Part F), even when
/// the vendor's host reads it as a status.
public struct HCIVendorReturn: Sendable, Hashable {
    public var firstByte: UInt8
    /// The command's definer documents the byte as a Status (0x00 success).
    public var isStatus: Bool

    public init(firstByte: UInt8, isStatus: Bool) {
        self.firstByte = firstByte
        self.isStatus = isStatus
    }

    /// Whether the command failed: only known when the byte is a documented status.
    public var isFailure: Bool { isStatus && firstByte != 0 }

    /// "vendor status 0x17" for a documented status, "vendor-defined return 0x17" otherwise:
    /// never an HCI error's name.
    public var name: String {
        (isStatus ? "vendor status " : "vendor-defined return ") + Fmt.h2(firstByte)
    }
}
