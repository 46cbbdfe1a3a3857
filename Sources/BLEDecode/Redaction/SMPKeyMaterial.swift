/// Where SMP PDUs carry key material (Core v5.4 Vol 3 Part H 3.5, 3.6), on LE (CID 0x0006) and
/// BR/EDR (CID 0x0007) alike. Decided by the code byte and the bytes present, so a malformed
/// PDU still has its key zeroed.
///
/// The rule, and why:
/// - **Distributed keys** are secret: LTK (Encryption Information), IRK (Identity Information),
///   CSRK (Signing Information). With them anyone decrypts the link, tracks the device through
///   its private addresses, or signs writes in its name.
/// - **Pairing Confirm and Pairing Random** are secret. In LE legacy pairing they let a tool such
///   as crackle brute-force the TK (zero for Just Works, at most 999 999 for Passkey Entry),
///   hence the STK and every key distributed under it; in LE Secure Connections Passkey Entry
///   the twenty confirm/random rounds give the passkey away bit by bit. Which method was used is
///   not always in the capture, so they are zeroed in every pairing: their values tell a
///   diagnosis nothing (their presence and order stay).
/// - **Pairing Public Key** is public: the DHKey cannot be computed from both public keys. Unless
///   one side uses the debug key of 2.3.5.6.1, whose private key is in the spec: then the DHKey,
///   and so the LTK, follows from the other side's public key, and both public keys of that
///   pairing are zeroed (see `PairingKeyWatch`).
/// - **DHKey Check** (a MAC under a key derived from the DHKey), **Central Identification**
///   (EDIV and Rand name an LTK and travel in clear in every LL_ENC_REQ), addresses, features and
///   failure reasons are not key material and stay.
public enum SMPKeyMaterial {
    /// Secret ranges of an SMP PDU (positions in the PDU, code at 0), before cutting to its length.
    static func parts(code: UInt8) -> [(String, Range<Int>)] {
        switch code {
        case 0x03: [("Pairing Confirm", 1..<17)]
        case 0x04: [("Pairing Random", 1..<17)]
        case 0x06: [("LTK", 1..<17)]
        case 0x08: [("IRK", 1..<17)]
        case 0x0A: [("CSRK", 1..<17)]
        default: []
        }
    }

    /// Secret ranges of `pdu` (an SMP PDU, code first), cut to its length.
    public static func secrets(in pdu: ArraySlice<UInt8>) -> [(String, Range<Int>)] {
        guard let code = pdu.first else { return [] }
        return parts(code: code).compactMap { what, r in
            let upper = min(r.upperBound, pdu.count)
            return r.lowerBound < upper ? (what, r.lowerBound..<upper) : nil
        }
    }

    /// The debug public key of Core v5.4 Vol 3 Part H 2.3.5.6.1, X then Y, in wire order
    /// (least significant octet first). Its private key is published in the same section.
    public static let debugPublicKey: [UInt8] = {
        let x: [UInt8] = [0x20, 0xb0, 0x03, 0xd2, 0xf2, 0x97, 0xbe, 0x2c, 0x5e, 0x2c, 0x83, 0xa7, 0xe9, 0xf9, 0xa5, 0xb9,
                          0xef, 0xf4, 0x91, 0x11, 0xac, 0xf4, 0xfd, 0xdb, 0xcc, 0x03, 0x01, 0x48, 0x0e, 0x35, 0x9d, 0xe6]
        let y: [UInt8] = [0xdc, 0x80, 0x9c, 0x49, 0x65, 0x2a, 0xeb, 0x6d, 0x63, 0x32, 0x9a, 0xbf, 0x5a, 0x52, 0x15, 0x5c,
                          0x76, 0x63, 0x45, 0xc2, 0x8f, 0xed, 0x30, 0x24, 0x74, 0x1c, 0x8e, 0xd0, 0x15, 0x89, 0xd2, 0x8b]
        return Array(x.reversed()) + Array(y.reversed())
    }()

    /// Whether `pdu` is a Pairing Public Key carrying the debug key.
    public static func isDebugPublicKey(_ pdu: ArraySlice<UInt8>) -> Bool {
        pdu.count == 65 && pdu.first == 0x0C && pdu.dropFirst().elementsEqual(debugPublicKey)
    }
}

/// Per connection, the Pairing Public Keys seen, so that a debug key zeroes both sides' keys
/// even when the other side's came first (its record is already written: the range names it).
///
/// Bounded: a few ranges per connection, and connections beyond `capacity` forget the oldest.
struct PairingKeyWatch: Sendable {
    struct Entry: Sendable {
        var ranges: [SecretRange] = []
        var debugKeySeen = false
    }
    static let capacity = 256
    private var entries: [Int: Entry] = [:]

    /// A Pairing Public Key at `ranges` on `connection`: returns what to zero now.
    mutating func publicKey(connection: Int, ranges: [SecretRange], isDebug: Bool) -> [SecretRange] {
        var e = entries[connection] ?? Entry()
        if entries[connection] == nil, entries.count >= Self.capacity, let oldest = entries.keys.min() {
            entries[oldest] = nil
        }
        defer { entries[connection] = e }
        if isDebug && !e.debugKeySeen {
            e.debugKeySeen = true
            let earlier = e.ranges
            e.ranges = []
            return earlier + ranges
        }
        if e.debugKeySeen { return ranges }
        e.ranges = Array((e.ranges + ranges).suffix(8))
        return []
    }
}
