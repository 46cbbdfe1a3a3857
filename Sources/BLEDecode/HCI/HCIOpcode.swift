import BLECore

/// An HCI command opcode: OGF (upper 6 bits) and OCF (lower 10 bits).
///
/// Wire layout: u16 little-endian, first field of every command packet
/// (Core v5.4 Vol 4 Part E 5.4.1). An open set: opcodes without a name keep their number.
public struct HCIOpcode: RawRepresentable, Hashable, Sendable, CustomStringConvertible {
    public var rawValue: UInt16
    public init(rawValue: UInt16) { self.rawValue = rawValue }
    public init(_ rawValue: UInt16) { self.rawValue = rawValue }
    public init(ogf: UInt8, ocf: UInt16) { rawValue = UInt16(ogf & 0x3F) << 10 | (ocf & 0x3FF) }

    /// Opcode Group Field (0x01 Link Control … 0x08 LE Controller, 0x3F vendor).
    public var ogf: UInt8 { UInt8(rawValue >> 10) }
    /// Opcode Command Field.
    public var ocf: UInt16 { rawValue & 0x3FF }
    public var isVendorSpecific: Bool { ogf == 0x3F }

    public static let noOperation = HCIOpcode(0x0000)
    public static let disconnect = HCIOpcode(0x0406)
    public static let createConnection = HCIOpcode(0x0405)
    public static let createConnectionCancel = HCIOpcode(0x0408)
    public static let acceptConnectionRequest = HCIOpcode(0x0409)
    public static let leSetScanEnable = HCIOpcode(0x200C)
    public static let leCreateConnection = HCIOpcode(0x200D)
    public static let leCreateConnectionCancel = HCIOpcode(0x200E)
    public static let leConnectionUpdate = HCIOpcode(0x2013)
    public static let leStartEncryption = HCIOpcode(0x2019)
    public static let leLongTermKeyRequestReply = HCIOpcode(0x201A)
    public static let leSetDataLength = HCIOpcode(0x2022)
    public static let leSetPHY = HCIOpcode(0x2032)
    public static let leSetExtendedScanEnable = HCIOpcode(0x2042)
    public static let leExtendedCreateConnection = HCIOpcode(0x2043)
    public static let leExtendedCreateConnectionV2 = HCIOpcode(0x2085)
    // Commands that carry key material (`HCIKeyMaterial`).
    public static let linkKeyRequestReply = HCIOpcode(0x040B)
    public static let pinCodeRequestReply = HCIOpcode(0x040D)
    public static let remoteOOBDataRequestReply = HCIOpcode(0x0430)
    public static let remoteOOBExtendedDataRequestReply = HCIOpcode(0x0445)
    public static let writeStoredLinkKey = HCIOpcode(0x0C11)
    public static let readLocalOOBData = HCIOpcode(0x0C57)
    public static let readLocalOOBExtendedData = HCIOpcode(0x0C7D)
    public static let leEncrypt = HCIOpcode(0x2017)
    public static let leAddDeviceToResolvingList = HCIOpcode(0x2027)

    /// The command's name (Wireshark's wording where it has one, else Core v5.4's); for OGF
    /// 0x3F the definer's name of a known vendor command (`HCIVendorCommand`), else
    /// `Vendor 0xFCxx (OCF 0xNNN)`; `Unknown command 0xNNNN` otherwise.
    public var name: String {
        if let n = HCINames.commands[rawValue] { return n }
        if isVendorSpecific {
            if let v = HCIVendorCommand.known(self) { return v.name }
            return "Vendor " + Fmt.h4(rawValue) + " (OCF " + hex(ocf, width: 3) + ")"
        }
        return "Unknown command " + Fmt.h4(rawValue)
    }

    public var description: String { Fmt.h4(rawValue) + " " + name }
}
