/// An SMP Pairing Failed reason (Core v5.4 Vol 3 Part H 3.5.5).
///
/// An open set: values nobody has named yet keep their number and print as hex.
public struct SMPPairingFailedReason: RawRepresentable, Hashable, Sendable, Comparable, CustomStringConvertible {
    public var rawValue: UInt8
    public init(rawValue: UInt8) { self.rawValue = rawValue }
    public init(_ rawValue: UInt8) { self.rawValue = rawValue }
    public static func < (l: Self, r: Self) -> Bool { l.rawValue < r.rawValue }

    public static let passkeyEntryFailed = SMPPairingFailedReason(rawValue: 0x01)
    public static let oOBNotAvailable = SMPPairingFailedReason(rawValue: 0x02)
    public static let authenticationRequirements = SMPPairingFailedReason(rawValue: 0x03)
    public static let confirmValueFailed = SMPPairingFailedReason(rawValue: 0x04)
    public static let pairingNotSupported = SMPPairingFailedReason(rawValue: 0x05)
    public static let encryptionKeySize = SMPPairingFailedReason(rawValue: 0x06)
    public static let commandNotSupported = SMPPairingFailedReason(rawValue: 0x07)
    public static let unspecifiedReason = SMPPairingFailedReason(rawValue: 0x08)
    public static let repeatedAttempts = SMPPairingFailedReason(rawValue: 0x09)
    public static let invalidParameters = SMPPairingFailedReason(rawValue: 0x0A)
    public static let dHKeyCheckFailed = SMPPairingFailedReason(rawValue: 0x0B)
    public static let numericComparisonFailed = SMPPairingFailedReason(rawValue: 0x0C)
    public static let bREDRPairingInProgress = SMPPairingFailedReason(rawValue: 0x0D)
    public static let crossTransportKeyDerivationGenerationNotAllowed = SMPPairingFailedReason(rawValue: 0x0E)
    public static let keyRejected = SMPPairingFailedReason(rawValue: 0x0F)

    /// The spec's name; nil when the value is not defined.
    public var specName: String? {
        switch rawValue {
        case 0x01: "Passkey Entry Failed"
        case 0x02: "OOB Not Available"
        case 0x03: "Authentication Requirements"
        case 0x04: "Confirm Value Failed"
        case 0x05: "Pairing Not Supported"
        case 0x06: "Encryption Key Size"
        case 0x07: "Command Not Supported"
        case 0x08: "Unspecified Reason"
        case 0x09: "Repeated Attempts"
        case 0x0A: "Invalid Parameters"
        case 0x0B: "DHKey Check Failed"
        case 0x0C: "Numeric Comparison Failed"
        case 0x0D: "BR/EDR Pairing in Progress"
        case 0x0E: "Cross-transport Key Derivation/Generation Not Allowed"
        case 0x0F: "Key Rejected"
        default: nil
        }
    }

    /// The spec's name, or `Unknown (0xNN)`.
    public var name: String { specName ?? "Unknown (\(hex(rawValue)))" }
    public var description: String { "\(hex(rawValue)) \(name)" }
}
