import BLECore

/// IO Capability of a pairing device (Core v5.4 Vol 3 Part H 3.5.1, Table 3.4).
///
/// Wire layout: one octet. 0x05-0xFF are reserved; they keep their value.
public struct SMPIOCapability: RawRepresentable, Hashable, Sendable, CustomStringConvertible {
    public var rawValue: UInt8
    public init(rawValue: UInt8) { self.rawValue = rawValue }
    public init(_ rawValue: UInt8) { self.rawValue = rawValue }

    public static let displayOnly = SMPIOCapability(0x00)
    public static let displayYesNo = SMPIOCapability(0x01)
    public static let keyboardOnly = SMPIOCapability(0x02)
    public static let noInputNoOutput = SMPIOCapability(0x03)
    public static let keyboardDisplay = SMPIOCapability(0x04)

    /// As Wireshark names it (`Display Yes/No`), or `Reserved (0xNN)`.
    public var name: String {
        switch rawValue {
        case 0x00: "Display Only"
        case 0x01: "Display Yes/No"
        case 0x02: "Keyboard Only"
        case 0x03: "No Input, No Output"
        case 0x04: "Keyboard, Display"
        default: "Reserved (\(hex(rawValue)))"
        }
    }
    public var description: String { name }
}

/// The AuthReq field (Core v5.4 Vol 3 Part H 3.5.1, Figure 3.3).
///
/// Wire layout: one octet; bits 0-1 Bonding Flags (01 = Bonding), bit 2 MITM, bit 3 SC
/// (Secure Connections), bit 4 Keypress, bit 5 CT2, bits 6-7 reserved.
public struct SMPAuthenticationRequirements: OptionSet, Hashable, Sendable, CustomStringConvertible {
    public var rawValue: UInt8
    public init(rawValue: UInt8) { self.rawValue = rawValue }

    public static let bonding = SMPAuthenticationRequirements(rawValue: 0x01)
    public static let mitm = SMPAuthenticationRequirements(rawValue: 0x04)
    public static let secureConnections = SMPAuthenticationRequirements(rawValue: 0x08)
    public static let keypress = SMPAuthenticationRequirements(rawValue: 0x10)
    public static let ct2 = SMPAuthenticationRequirements(rawValue: 0x20)

    /// Bits 0-1: 0b00 No Bonding, 0b01 Bonding, 0b10 and 0b11 reserved.
    public var bondingFlags: UInt8 { rawValue & 0x03 }

    /// `Bonding, MITM, SecureConnection, Keypress, CT2` (Wireshark's words), `No Bonding` when
    /// none is set; reserved bits as `Reserved (0xNN)`.
    public var description: String {
        var parts: [String] = []
        switch bondingFlags {
        case 0b01: parts.append("Bonding")
        case 0b00: break
        default: parts.append("Bonding Flags \(hex(bondingFlags))")
        }
        if contains(.mitm) { parts.append("MITM") }
        if contains(.secureConnections) { parts.append("SecureConnection") }
        if contains(.keypress) { parts.append("Keypress") }
        if contains(.ct2) { parts.append("CT2") }
        if rawValue & 0xC0 != 0 { parts.append("Reserved (\(hex(rawValue & 0xC0)))") }
        return parts.isEmpty ? "No Bonding" : parts.joined(separator: ", ")
    }
}

/// Initiator / Responder Key Distribution (Core v5.4 Vol 3 Part H 3.6.1, Figure 3.11).
///
/// Wire layout: one octet; bit 0 EncKey (LTK, EDIV, Rand), bit 1 IdKey (IRK, identity
/// address), bit 2 SignKey (CSRK), bit 3 LinkKey (derive a BR/EDR link key), bits 4-7 reserved.
public struct SMPKeyDistribution: OptionSet, Hashable, Sendable, CustomStringConvertible {
    public var rawValue: UInt8
    public init(rawValue: UInt8) { self.rawValue = rawValue }

    public static let encryptionKey = SMPKeyDistribution(rawValue: 0x01)
    public static let identityKey = SMPKeyDistribution(rawValue: 0x02)
    public static let signingKey = SMPKeyDistribution(rawValue: 0x04)
    public static let linkKey = SMPKeyDistribution(rawValue: 0x08)

    /// `LTK, IRK, CSRK, Linkkey` (Wireshark's words), `None` when empty.
    public var description: String {
        var parts: [String] = []
        if contains(.encryptionKey) { parts.append("LTK") }
        if contains(.identityKey) { parts.append("IRK") }
        if contains(.signingKey) { parts.append("CSRK") }
        if contains(.linkKey) { parts.append("Linkkey") }
        if rawValue & 0xF0 != 0 { parts.append("Reserved (\(hex(rawValue & 0xF0)))") }
        return parts.isEmpty ? "None" : parts.joined(separator: ", ")
    }
}

/// Pairing Keypress Notification type (Core v5.4 Vol 3 Part H 3.5.8, Table 3.10).
public struct SMPKeypressNotificationType: RawRepresentable, Hashable, Sendable, CustomStringConvertible {
    public var rawValue: UInt8
    public init(rawValue: UInt8) { self.rawValue = rawValue }
    public init(_ rawValue: UInt8) { self.rawValue = rawValue }

    public static let passkeyEntryStarted = SMPKeypressNotificationType(0x00)
    public static let passkeyDigitEntered = SMPKeypressNotificationType(0x01)
    public static let passkeyDigitErased = SMPKeypressNotificationType(0x02)
    public static let passkeyCleared = SMPKeypressNotificationType(0x03)
    public static let passkeyEntryCompleted = SMPKeypressNotificationType(0x04)

    public var name: String {
        switch rawValue {
        case 0x00: "Passkey Entry Started"
        case 0x01: "Passkey Digit Entered"
        case 0x02: "Passkey Digit Erased"
        case 0x03: "Passkey Cleared"
        case 0x04: "Passkey Entry Completed"
        default: "Reserved (\(hex(rawValue)))"
        }
    }
    public var description: String { name }
}
