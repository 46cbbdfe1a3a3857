/// Where HCI commands and events carry key material (Core v5.4 Vol 4 Part E 7).
///
/// Positions are in the HCI packet without its H4 type byte: commands have a 3-byte header
/// (opcode u16, parameter length u8), events a 2-byte one (code u8, length u8). Arrays of
/// several parameters interleave them (5.2: `A[0], B[0], A[1], B[1], …`). Ranges are cut to
/// the bytes present, so a truncated packet still has what it holds of a key zeroed.
///
/// Key material: Long Term Keys, BR/EDR link keys and PIN codes, IRKs handed to the controller,
/// the key given to LE Encrypt and its output (hosts derive LTKs with it), out-of-band pairing
/// values, and the DHKey. Not key material: EDIV and Rand (they name an LTK and travel in clear
/// in every LL_ENC_REQ), public keys, addresses.
public enum HCIKeyMaterial {
    /// Key material in an HCI command packet.
    public static func commandSecrets(_ payload: [UInt8], frame: Int) -> [SecretRange] {
        guard payload.count > 3 else { return [] }
        let opcode = HCIOpcode(UInt16(payload[0]) | UInt16(payload[1]) << 8)
        return Redaction.clamped(commandParts(opcode, parameterCount: payload.count - 3),
                                 headerLength: 3, count: payload.count, frame: frame)
    }

    /// Key material in an HCI event packet.
    public static func eventSecrets(_ payload: [UInt8], frame: Int) -> [SecretRange] {
        guard payload.count > 2 else { return [] }
        return Redaction.clamped(eventParts(payload), headerLength: 2, count: payload.count, frame: frame)
    }

    /// Secret parameter ranges of a command (positions in its parameters).
    static func commandParts(_ opcode: HCIOpcode, parameterCount: Int) -> [(String, Range<Int>)] {
        switch opcode {
        case .linkKeyRequestReply: [("Link Key", 6..<22)]                  // Link Key Request Reply: BD_ADDR, Link_Key (7.1.10)
        case .pinCodeRequestReply: [("PIN Code", 7..<23)]                  // PIN Code Request Reply: BD_ADDR, length, PIN (7.1.12)
        case .remoteOOBDataRequestReply: [("OOB C and R", 6..<38)]               // Remote OOB Data Request Reply: BD_ADDR, C, R (7.1.34)
        case .remoteOOBExtendedDataRequestReply: [("OOB C and R", 6..<70)]               // Remote OOB Extended Data Request Reply (7.1.53)
        case .writeStoredLinkKey: linkKeyArray(parameterCount)            // Write Stored Link Key: n, {BD_ADDR, Link_Key} (7.3.9)
        case .leEncrypt: [("LE Encrypt Key", 0..<16)]            // LE Encrypt: Key, Plaintext_Data (7.8.22)
        case .leStartEncryption: [("LTK", 12..<28)]                      // LE Enable Encryption: handle, Rand, EDIV, LTK (7.8.24)
        case .leLongTermKeyRequestReply: [("LTK", 2..<18)]                       // LE Long Term Key Request Reply: handle, LTK (7.8.25)
        case .leAddDeviceToResolvingList: [("IRK", 7..<39)]                       // LE Add Device To Resolving List: type, address, peer IRK, local IRK (7.8.38)
        default: []
        }
    }

    /// Secret ranges of an event (positions after its 2-byte header).
    static func eventParts(_ payload: [UInt8]) -> [(String, Range<Int>)] {
        switch payload[0] {
        case 0x18: return [("Link Key", 6..<22)]                   // Link Key Notification: BD_ADDR, Link_Key, Key_Type (7.7.24)
        case 0x15: return linkKeyArray(payload.count - 2)       // Return Link Keys: n, {BD_ADDR, Link_Key} (7.7.21)
        case 0x0E:                                           // Command Complete: Num_HCI_Command_Packets, opcode, return parameters (7.7.14)
            guard payload.count >= 5 else { return [] }
            switch HCIOpcode(UInt16(payload[3]) | UInt16(payload[4]) << 8) {
            case .leEncrypt: return [("LE Encrypt output", 4..<20)]   // status, Encrypted_Data (7.8.22)
            case .readLocalOOBData: return [("OOB C and R", 4..<36)]         // Read Local OOB Data: status, C, R (7.3.60)
            case .readLocalOOBExtendedData: return [("OOB C and R", 4..<68)]         // Read Local OOB Extended Data (7.3.95)
            default: return []
            }
        case 0x3E:                                           // LE Meta: subevent code first
            guard payload.count >= 3 else { return [] }
            switch payload[2] {
            case 0x09: return [("DHKey", 2..<34)]            // LE Generate DHKey Complete: status, DHKey (7.7.65.9)
            default: return []
            }
        default: return []
        }
    }

    /// `Num_Keys u8` then per key `BD_ADDR (6), Link_Key (16)`: the link keys' positions.
    static func linkKeyArray(_ parameterCount: Int) -> [(String, Range<Int>)] {
        var out: [(String, Range<Int>)] = []
        var at = 1 + 6
        while at < parameterCount {
            out.append(("Link Key", at..<(at + 16)))
            at += 22
        }
        return out
    }
}
