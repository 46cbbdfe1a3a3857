import BLECore

/// The parameters of a Pairing Request or Pairing Response: what each side can do and wants
/// (Core v5.4 Vol 3 Part H 3.5.1, 3.5.2).
///
/// Wire layout (after code 01 or 02): `IO Capability (1) | OOB Data Flag (1) | AuthReq (1) |
/// Maximum Encryption Key Size (1) | Initiator Key Distribution (1) | Responder Key Distribution (1)`.
public struct SMPPairingFeatures: Sendable, Hashable {
    public var ioCapability: SMPIOCapability
    /// 0x00 OOB authentication data not present, 0x01 present from the remote device; others reserved.
    public var oobDataFlag: UInt8
    public var authenticationRequirements: SMPAuthenticationRequirements
    /// 7 to 16 octets in a valid request; other values are kept as sent.
    public var maximumEncryptionKeySize: UInt8
    public var initiatorKeyDistribution: SMPKeyDistribution
    public var responderKeyDistribution: SMPKeyDistribution

    public init(ioCapability: SMPIOCapability, oobDataFlag: UInt8 = 0,
                authenticationRequirements: SMPAuthenticationRequirements,
                maximumEncryptionKeySize: UInt8 = 16,
                initiatorKeyDistribution: SMPKeyDistribution, responderKeyDistribution: SMPKeyDistribution) {
        self.ioCapability = ioCapability
        self.oobDataFlag = oobDataFlag
        self.authenticationRequirements = authenticationRequirements
        self.maximumEncryptionKeySize = maximumEncryptionKeySize
        self.initiatorKeyDistribution = initiatorKeyDistribution
        self.responderKeyDistribution = responderKeyDistribution
    }

    public init(parameters r: inout ByteReader) throws(DecodeError) {
        ioCapability = SMPIOCapability(try r.readUInt8("IO Capability"))
        oobDataFlag = try r.readUInt8("OOB Data Flag")
        authenticationRequirements = SMPAuthenticationRequirements(rawValue: try r.readUInt8("AuthReq"))
        maximumEncryptionKeySize = try r.readUInt8("Maximum Encryption Key Size")
        initiatorKeyDistribution = SMPKeyDistribution(rawValue: try r.readUInt8("Initiator Key Distribution"))
        responderKeyDistribution = SMPKeyDistribution(rawValue: try r.readUInt8("Responder Key Distribution"))
    }

    public func appendParameters(to bytes: inout [UInt8]) {
        bytes += [ioCapability.rawValue, oobDataFlag, authenticationRequirements.rawValue,
                  maximumEncryptionKeySize, initiatorKeyDistribution.rawValue, responderKeyDistribution.rawValue]
    }

    /// OOB authentication data from the remote device is present.
    public var oobDataPresent: Bool { oobDataFlag == 0x01 }

    /// As Wireshark names the flag.
    public var oobDataFlagName: String {
        switch oobDataFlag {
        case 0x00: "OOB Auth. Data Not Present"
        case 0x01: "OOB Auth. Data From Remote Device Present"
        default: "Reserved (\(hex(oobDataFlag)))"
        }
    }

    public var fields: [(String, String)] {
        [("IO Capability", "\(hex(ioCapability.rawValue)) \(ioCapability.name)"),
         ("OOB Data Flag", "\(hex(oobDataFlag)) \(oobDataFlagName)"),
         ("AuthReq", "\(hex(authenticationRequirements.rawValue)) \(authenticationRequirements)"),
         ("Max Encryption Key Size", String(maximumEncryptionKeySize)),
         ("Initiator Key Distribution", "\(hex(initiatorKeyDistribution.rawValue)) \(initiatorKeyDistribution)"),
         ("Responder Key Distribution", "\(hex(responderKeyDistribution.rawValue)) \(responderKeyDistribution)")]
    }

    /// `IO Capability: Display Yes/No | AuthReq: Bonding, MITM, SecureConnection | Max Key Size: 16 |
    /// Initiator Key(s): LTK, IRK | Responder Key(s): LTK, IRK` (Wireshark's Info, with the IO
    /// capability first, and every other field of the PDU: this is what `timeline -v` and
    /// `smp_events.detail` show of it). The OOB Data Flag appears when it is not 0x00 (`OOB`, or
    /// `OOB Data Flag: Reserved (0x02)`); the Maximum Encryption Key Size always, since a short one
    /// (7-15) is what ends a pairing with Encryption Key Size (0x06) (Core v5.4 Vol 3 Part H 3.5.1, 2.3.4).
    public var summaryDetail: String {
        var parts = ["IO Capability: \(ioCapability.name)"]
        if oobDataPresent { parts.append("OOB") } else if oobDataFlag != 0 { parts.append("OOB Data Flag: \(oobDataFlagName)") }
        parts += ["AuthReq: \(authenticationRequirements)",
                  "Max Key Size: \(maximumEncryptionKeySize)",
                  "Initiator Key(s): \(initiatorKeyDistribution)",
                  "Responder Key(s): \(responderKeyDistribution)"]
        return parts.joined(separator: " | ")
    }
}
