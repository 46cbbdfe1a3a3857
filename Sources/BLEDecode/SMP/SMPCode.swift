import BLECore

/// An SMP command code (Core v5.4 Vol 3 Part H 3.3, 3.5-3.6).
///
/// Wire layout: the first octet of every SMP PDU (L2CAP CID 0x0006). An open set: codes
/// nobody has named keep their value and print as `Unknown (0xNN)`.
public struct SMPCode: RawRepresentable, Hashable, Sendable, Comparable, CustomStringConvertible {
    public var rawValue: UInt8
    public init(rawValue: UInt8) { self.rawValue = rawValue }
    public init(_ rawValue: UInt8) { self.rawValue = rawValue }
    public static func < (l: Self, r: Self) -> Bool { l.rawValue < r.rawValue }

    public static let pairingRequest = SMPCode(0x01)
    public static let pairingResponse = SMPCode(0x02)
    public static let pairingConfirm = SMPCode(0x03)
    public static let pairingRandom = SMPCode(0x04)
    public static let pairingFailed = SMPCode(0x05)
    public static let encryptionInformation = SMPCode(0x06)
    public static let centralIdentification = SMPCode(0x07)
    public static let identityInformation = SMPCode(0x08)
    public static let identityAddressInformation = SMPCode(0x09)
    public static let signingInformation = SMPCode(0x0A)
    public static let securityRequest = SMPCode(0x0B)
    public static let pairingPublicKey = SMPCode(0x0C)
    public static let pairingDHKeyCheck = SMPCode(0x0D)
    public static let pairingKeypressNotification = SMPCode(0x0E)

    /// Every code Core v5.4 assigns, in numeric order.
    public static let allAssigned: [SMPCode] = (0x01...0x0E).map { SMPCode($0) }

    /// The name as Wireshark spells it (0x07 with the Core v5.3 name, "Central Identification",
    /// where Wireshark 4.0 still says "Master Identification"); nil when not assigned.
    public var specName: String? {
        switch rawValue {
        case 0x01: "Pairing Request"
        case 0x02: "Pairing Response"
        case 0x03: "Pairing Confirm"
        case 0x04: "Pairing Random"
        case 0x05: "Pairing Failed"
        case 0x06: "Encryption Information"
        case 0x07: "Central Identification"
        case 0x08: "Identity Information"
        case 0x09: "Identity Address Information"
        case 0x0A: "Signing Information"
        case 0x0B: "Security Request"
        case 0x0C: "Pairing Public Key"
        case 0x0D: "Pairing DHKey Check"
        case 0x0E: "Pairing Keypress Notification"
        default: nil
        }
    }

    /// The name, or `Unknown (0xNN)`.
    public var name: String { specName ?? "Unknown (\(hex(rawValue)))" }
    public var description: String { "\(hex(rawValue)) \(name)" }
}
