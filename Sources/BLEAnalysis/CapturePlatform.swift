import BLECore
import BLEDecode
import BLETimeline

/// Which host stack most likely wrote a capture: what the diagnosis says the platform does (iOS
/// never times out a pending connect; Android gives a direct connect 30 s) and which app view
/// `diagnose` shows (an Android app's `BluetoothGattCallback` status, a CoreBluetooth app's error).
///
/// Inferred, not known, from facts the import already stored (no pass over the packets):
/// - the format: PacketLogger is Apple's (iOS or macOS); btsnooz and btsnoop H4 (datalink 1002)
///   are what Android writes, but other tools write H4 btsnoop too; btsnoop datalink 2001 and
///   pcap DLT 254 are the Linux monitor format btmon writes (BlueZ);
/// - the host's vendor commands, from the `command` table (its index on capture and opcode):
///   Android's stack sends the Google-defined LE vendor commands of hcidefs.h (`HCI_BLE_VENDOR_CAP_OCF`
///   0xFD53 … `HCI_CONTROLLER_DAB` 0xFD5F: `HCIVendorCommand.androidOpcodes`), which no other host sends;
/// - the bugreport: a capture read out of an `adb bugreport` zip is Android's whatever its format
///   (`bugreportSaysAndroid`, the hook for the phone identity kept per capture).
public enum CapturePlatform: String, Equatable, Sendable {
    case apple, android, bluez, unknown

    /// The Android host's vendor-specific command opcodes (OGF 0x3F), from hcidefs.h: the decoder's table.
    public static let androidVendorOpcodes: [Int] = HCIVendorCommand.androidOpcodes.map { Int($0.rawValue) }

    /// From the format alone.
    public init(format: String, linkType: Int) {
        switch (format, linkType) {
        case ("packetlogger", _): self = .apple
        case ("btsnooz", _), ("btsnoop", 1002): self = .android
        case ("btsnoop", 2001), ("pcap", 254), ("pcapng", 254): self = .bluez
        default: self = .unknown
        }
    }

    /// From the format, the bugreport and the host's vendor commands. Android's vendor commands
    /// make any HCI capture Android's (an H4 pcap from a phone, too); they never override Apple's
    /// own format.
    public init(format: String, linkType: Int, fromBugreport: Bool, androidVendorCommands: Bool) {
        let byFormat = CapturePlatform(format: format, linkType: linkType)
        if byFormat == .apple { self = .apple; return }
        self = fromBugreport || androidVendorCommands ? .android : byFormat
    }

    public static func load(captureID: Int64, from db: SQLiteDatabase) throws -> CapturePlatform {
        try infer(captureID: captureID, from: db).platform
    }

    /// The platform and what it was told by, as a sentence says it.
    public struct Inference: Sendable, Equatable {
        public var platform: CapturePlatform
        /// "the btsnoop H4 format Android writes (datalink 1002) and Android's vendor commands (0xFD53, …)".
        public var evidence: String
        /// Android's by more than the format: its vendor commands or a bugreport. Other tools
        /// write btsnoop H4 too, so the format alone shows both app views.
        public var confirmed: Bool

        public init(platform: CapturePlatform, evidence: String, confirmed: Bool = true) {
            self.platform = platform
            self.evidence = evidence
            self.confirmed = confirmed
        }

        /// The Android view on Android captures (confirmed), the CoreBluetooth view on Apple's,
        /// both where the host is not known or only the format says Android.
        public var showsAndroidView: Bool { platform != .apple }
        public var showsCoreBluetoothView: Bool { platform != .android || !confirmed }
    }

    public static func infer(captureID: Int64, from db: SQLiteDatabase) throws -> Inference {
        let row = try db.rows("SELECT format, link_type FROM capture WHERE id = ?1", [.integer(captureID)]).first
        let format = row?[0].string ?? "", linkType = row?[1].int ?? 0
        let placeholders = androidVendorOpcodes.map(String.init).joined(separator: ", ")
        let vendor = try db.rows("""
            SELECT DISTINCT opcode FROM command WHERE capture_id = ?1 AND opcode IN (\(placeholders)) ORDER BY opcode
            """, [.integer(captureID)]).compactMap { $0[0].int }
        let bugreport = try bugreportSaysAndroid(captureID: captureID, db: db)
        let platform = CapturePlatform(format: format, linkType: linkType, fromBugreport: bugreport, androidVendorCommands: !vendor.isEmpty)
        guard platform == .android else { return Inference(platform: platform, evidence: platform.evidence) }
        let confirmed = bugreport || !vendor.isEmpty
        var reasons: [String] = []
        if bugreport { reasons.append("an Android bugreport") }
        if CapturePlatform(format: format, linkType: linkType) == .android { reasons.append(CapturePlatform.android.evidence) }
        if !vendor.isEmpty {
            reasons.append("Android's vendor commands (" + vendor.map { hex($0, width: 4) }.joined(separator: ", ") + ")")
        }
        return Inference(platform: platform, evidence: reasons.joined(separator: " and "), confirmed: confirmed)
    }

    /// Whether the capture came out of an Android bugreport: the phone identity the bugreport
    /// import keeps per capture (`capture.android_version`, `build_fingerprint`) is set.
    static func bugreportSaysAndroid(captureID: Int64, db: SQLiteDatabase) throws -> Bool {
        try db.scalarInt("SELECT android_version IS NOT NULL OR build_fingerprint IS NOT NULL FROM capture WHERE id = ?1",
                         [.integer(captureID)]) ?? 0 != 0
    }

    /// "a PacketLogger capture, so iOS or macOS".
    public var evidence: String {
        switch self {
        case .apple: "a PacketLogger capture, so iOS or macOS"
        case .android: "the btsnoop H4 format Android writes (datalink 1002)"
        case .bluez: "a Linux monitor capture (btmon), so BlueZ"
        case .unknown: "a capture whose format does not tell the host stack"
        }
    }

}

extension CapturePlatform {
    /// The Android major version of the phone that wrote the capture, when the bugreport told it
    /// (`capture.android_version`, "15" or "15.0.1"); nil when it is not set.
    public static func androidVersion(captureID: Int64, db: SQLiteDatabase) throws -> Int? {
        let text = try db.rows("SELECT android_version FROM capture WHERE id = ?1", [.integer(captureID)]).first?[0].string
        return text.flatMap { Int($0.prefix { $0.isNumber }) }
    }
}

extension CapturePlatform.Inference {
    /// A host nothing tells: both views.
    public static let unknown = CapturePlatform.Inference(platform: .unknown, evidence: CapturePlatform.unknown.evidence)
}
