/// A capture in which every place the spec puts key material holds a known, distinct key, so a
/// test can scan every output for them (Core v5.4 Vol 3 Part H 3.5-3.6; Vol 4 Part E 7).
///
/// - Connection 1 (handle 0x0040, local central): GATT discovery and a read, LE legacy pairing
///   (Confirm, Random), LE Start Encryption with the STK, then the peer's key distribution:
///   Encryption Information (LTK, split over two ACL fragments: the key spans them), Central
///   Identification, Identity Information (IRK), Identity Address Information, Signing
///   Information (CSRK); the local side distributes an LTK too.
/// - Connection 2 (handle 0x0041, local peripheral): LE Secure Connections pairing in which the
///   local side sends the debug public key (2.3.5.6.1): both public keys are key material then,
///   the peer's sent first. Then LE Long Term Key Request and its Reply.
/// - Connection 3 (handle 0x0042): LE Secure Connections with ordinary public keys, which are
///   not key material and stay, and a DHKey Check (stays).
/// - Controller: LE Encrypt and its output, LE Generate DHKey Complete, LE Add Device To
///   Resolving List (IRKs), Read Local OOB Data.
/// - BR/EDR (handle 0x0050): Link Key Request Reply, Link Key Notification, PIN Code Request
///   Reply, Write Stored Link Key (two keys), Return Link Keys (two keys).
public enum KeyMaterialCapture {
    /// A 16-byte key nobody else uses: bytes of a SplitMix64 sequence seeded with `n`, so no
    /// two keys share a run of bytes.
    public static func key(_ n: UInt64) -> [UInt8] {
        var state = 0x5EC2_E7_00 &+ n
        var out: [UInt8] = []
        while out.count < 16 {
            state &+= 0x9E37_79B9_7F4A_7C15
            var z = state
            z = (z ^ (z >> 30)) &* 0xBF58_476D_1CE4_E5B9
            z = (z ^ (z >> 27)) &* 0x94D0_49BB_1331_11EB
            z ^= z >> 31
            out += withUnsafeBytes(of: z.littleEndian) { Array($0) }
        }
        return out
    }

    /// Every secret in the capture, named, in wire order.
    public static let secrets: [(String, [UInt8])] = [
        ("legacy Mconfirm", key(1)), ("legacy Sconfirm", key(2)), ("legacy Mrand", key(3)), ("legacy Srand", key(4)),
        ("STK in LE Start Encryption", key(5)), ("peer LTK (fragmented)", key(6)), ("peer IRK", key(7)),
        ("peer CSRK", key(8)), ("local LTK", key(9)),
        ("SC debug pairing: peer public key X", key(10) + key(11)), ("SC debug pairing: peer public key Y", key(12) + key(13)),
        ("SC debug pairing: Ca", key(14)), ("SC debug pairing: Na", key(15)),
        ("LTK in LE LTK Request Reply", key(16)), ("LE Encrypt key", key(17)), ("LE Encrypt output", key(18)),
        ("DHKey", key(19) + key(20)), ("resolving list peer IRK", key(21)), ("resolving list local IRK", key(22)),
        ("OOB C", key(23)), ("OOB R", key(24)),
        ("BR/EDR Link Key Request Reply", key(25)), ("BR/EDR Link Key Notification", key(26)),
        ("BR/EDR Write Stored Link Key #1", key(27)), ("BR/EDR Write Stored Link Key #2", key(28)),
        ("BR/EDR Return Link Keys #1", key(29)), ("BR/EDR Return Link Keys #2", key(30)),
        ("BR/EDR PIN code", Array("8452917360481259".utf8)),
        ("SC ordinary pairing: Cb", key(40)), ("SC ordinary pairing: Nb", key(41)),
    ]

    /// Values that are not key material and must survive redaction (wire order).
    public static let publicValues: [(String, [UInt8])] = [
        ("SC ordinary pairing: public key (initiator)", key(50) + key(51) + key(52) + key(53)),
        ("SC ordinary pairing: public key (responder)", key(54) + key(55) + key(56) + key(57)),
        ("SC ordinary pairing: DHKey Check Ea", key(58)),
        ("legacy Central Identification Rand", [0x71, 0x72, 0x73, 0x74, 0x75, 0x76, 0x77, 0x78]),
    ]

    static let peer1: [UInt8] = [0xC4, 0x11, 0x22, 0x33, 0x44, 0x01]
    static let peer2: [UInt8] = [0xC4, 0x11, 0x22, 0x33, 0x44, 0x02]
    static let peer3: [UInt8] = [0xC4, 0x11, 0x22, 0x33, 0x44, 0x03]
    static let bredrPeer: [UInt8] = [0x00, 0x1B, 0xDC, 0x0A, 0x0B, 0x0C]

    /// The capture (btsnoop, H4).
    public static func build() -> SpecCapture {
        var c = SpecCapture()
        var t: Int64 = 0
        func next() -> Int64 { t += 5; return t }
        let le = c.le16

        // Connection 1: local central.
        c.connectionComplete(next(), handle: 0x0040, role: 0, peer: peer1)
        c.att(next(), handle: 0x0040, [0x10, 0x01, 0x00, 0xFF, 0xFF, 0x00, 0x28], received: false)
        c.att(next(), handle: 0x0040, [0x11, 0x06, 0x01, 0x00, 0x05, 0x00, 0x0F, 0x18], received: true)
        c.att(next(), handle: 0x0040, [0x08, 0x01, 0x00, 0x05, 0x00, 0x03, 0x28], received: false)
        c.att(next(), handle: 0x0040, [0x09, 0x07, 0x02, 0x00, 0x12, 0x03, 0x00, 0x19, 0x2A], received: true)
        c.att(next(), handle: 0x0040, [0x0A, 0x03, 0x00], received: false)
        c.att(next(), handle: 0x0040, [0x0B, 0x5A], received: true)
        // Legacy Just Works pairing (Vol 3 Part H 3.5.1-3.5.4): bonding, keys 0x07 both ways.
        c.smp(next(), handle: 0x0040, [0x01, 0x03, 0x00, 0x01, 0x10, 0x07, 0x07], received: false)
        c.smp(next(), handle: 0x0040, [0x02, 0x03, 0x00, 0x01, 0x10, 0x07, 0x07], received: true)
        c.smp(next(), handle: 0x0040, [0x03] + key(1), received: false)
        c.smp(next(), handle: 0x0040, [0x03] + key(2), received: true)
        c.smp(next(), handle: 0x0040, [0x04] + key(3), received: false)
        c.smp(next(), handle: 0x0040, [0x04] + key(4), received: true)
        // LE Enable Encryption (7.8.24): handle, Rand 8 (zero for an STK), EDIV 0, LTK.
        c.cmd(next(), 0x2019, le(0x0040) + [UInt8](repeating: 0, count: 10) + key(5))
        c.commandStatus(next(), 0x2019)
        c.evt(next(), 0x08, [0x00] + le(0x0040) + [0x01])
        // Encryption Information split over two ACL packets: 4-byte L2CAP header + 7 bytes, then 10.
        let encInfo = [0x06] + key(6)
        let frame = le(UInt16(encInfo.count)) + le(0x0006) + encInfo
        c.acl(next(), handle: 0x0040, pb: 0x2, Array(frame.prefix(11)), received: true)
        c.acl(next(), handle: 0x0040, pb: 0x1, Array(frame.dropFirst(11)), received: true)
        c.smp(next(), handle: 0x0040, [0x07] + le(0x2345) + [0x71, 0x72, 0x73, 0x74, 0x75, 0x76, 0x77, 0x78], received: true)
        c.smp(next(), handle: 0x0040, [0x08] + key(7), received: true)
        c.smp(next(), handle: 0x0040, [0x09, 0x01] + peer1.reversed(), received: true)
        c.smp(next(), handle: 0x0040, [0x0A] + key(8), received: true)
        c.smp(next(), handle: 0x0040, [0x06] + key(9), received: false)
        c.smp(next(), handle: 0x0040, [0x07] + le(0x1111) + [UInt8](repeating: 0x33, count: 8), received: false)

        // Connection 2: local peripheral, LE Secure Connections; the local side uses the debug key.
        c.connectionComplete(next(), handle: 0x0041, role: 1, peer: peer2)
        c.smp(next(), handle: 0x0041, [0x01, 0x03, 0x00, 0x09, 0x10, 0x00, 0x00], received: true)
        c.smp(next(), handle: 0x0041, [0x02, 0x03, 0x00, 0x09, 0x10, 0x00, 0x00], received: false)
        c.smp(next(), handle: 0x0041, [0x0C] + key(10) + key(11) + key(12) + key(13), received: true)
        c.smp(next(), handle: 0x0041, [0x0C] + debugPublicKey, received: false)
        c.smp(next(), handle: 0x0041, [0x03] + key(14), received: false)
        c.smp(next(), handle: 0x0041, [0x04] + key(15), received: true)
        // LE Long Term Key Request (7.7.65.5): handle, Rand 8, EDIV; Reply (7.8.25): handle, LTK.
        c.evt(next(), 0x3E, [0x05] + le(0x0041) + [UInt8](repeating: 0, count: 8) + le(0))
        c.cmd(next(), 0x201A, le(0x0041) + key(16))
        c.evt(next(), 0x0E, [0x01] + le(0x201A) + [0x00] + le(0x0041))
        c.evt(next(), 0x08, [0x00] + le(0x0041) + [0x01])

        // Connection 3: LE Secure Connections with ordinary public keys.
        c.connectionComplete(next(), handle: 0x0042, role: 0, peer: peer3)
        c.smp(next(), handle: 0x0042, [0x01, 0x03, 0x00, 0x09, 0x10, 0x00, 0x00], received: false)
        c.smp(next(), handle: 0x0042, [0x02, 0x03, 0x00, 0x09, 0x10, 0x00, 0x00], received: true)
        c.smp(next(), handle: 0x0042, [0x0C] + key(50) + key(51) + key(52) + key(53), received: false)
        c.smp(next(), handle: 0x0042, [0x0C] + key(54) + key(55) + key(56) + key(57), received: true)
        c.smp(next(), handle: 0x0042, [0x03] + key(40), received: true)
        c.smp(next(), handle: 0x0042, [0x04] + key(41), received: true)
        c.smp(next(), handle: 0x0042, [0x0D] + key(58), received: false)

        // Controller: LE Encrypt (7.8.22), LE Generate DHKey Complete (7.7.65.9), resolving list
        // (7.8.38), Read Local OOB Data (7.3.60).
        c.cmd(next(), 0x2017, key(17) + [UInt8](repeating: 0x42, count: 16))
        c.evt(next(), 0x0E, [0x01] + le(0x2017) + [0x00] + key(18))
        c.evt(next(), 0x3E, [0x09, 0x00] + key(19) + key(20))
        c.cmd(next(), 0x2027, [0x00] + peer3.reversed() + key(21) + key(22))
        c.evt(next(), 0x0E, [0x01] + le(0x2027) + [0x00])
        c.cmd(next(), 0x0C57, [])
        c.evt(next(), 0x0E, [0x01] + le(0x0C57) + [0x00] + key(23) + key(24))

        // BR/EDR: Connection Complete (7.7.3): status, handle, BD_ADDR, link type 1 ACL, encryption off.
        let addr = Array(bredrPeer.reversed())
        c.evt(next(), 0x03, [0x00] + le(0x0050) + addr + [0x01, 0x00])
        c.evt(next(), 0x17, addr)                                           // Link Key Request (7.7.23)
        c.cmd(next(), 0x040B, addr + key(25))                               // Link Key Request Reply (7.1.10)
        c.evt(next(), 0x0E, [0x01] + le(0x040B) + [0x00] + addr)
        c.evt(next(), 0x16, addr)                                           // PIN Code Request (7.7.22)
        c.cmd(next(), 0x040D, addr + [0x10] + Array("8452917360481259".utf8)) // PIN Code Request Reply (7.1.12)
        c.evt(next(), 0x0E, [0x01] + le(0x040D) + [0x00] + addr)
        c.evt(next(), 0x18, addr + key(26) + [0x04])                        // Link Key Notification (7.7.24)
        c.cmd(next(), 0x0C11, [0x02] + addr + key(27) + peer1.reversed() + key(28))  // Write Stored Link Key (7.3.9)
        c.evt(next(), 0x0E, [0x01] + le(0x0C11) + [0x00, 0x02])
        c.cmd(next(), 0x0C0D, addr + [0x01])                                // Read Stored Link Key (7.3.8)
        c.evt(next(), 0x15, [0x02] + addr + key(29) + peer1.reversed() + key(30))    // Return Link Keys (7.7.21)
        c.evt(next(), 0x0E, [0x01] + le(0x0C0D) + [0x00] + le(2) + le(2))

        c.disconnectionComplete(next(), handle: 0x0040, reason: 0x13)
        c.disconnectionComplete(next(), handle: 0x0041, reason: 0x13)
        c.disconnectionComplete(next(), handle: 0x0042, reason: 0x13)
        c.disconnectionComplete(next(), handle: 0x0050, reason: 0x13)
        return c
    }

    /// Core v5.4 Vol 3 Part H 2.3.5.6.1 debug public key, X then Y, least significant octet first.
    public static let debugPublicKey: [UInt8] = {
        let x: [UInt8] = [0x20, 0xb0, 0x03, 0xd2, 0xf2, 0x97, 0xbe, 0x2c, 0x5e, 0x2c, 0x83, 0xa7, 0xe9, 0xf9, 0xa5, 0xb9,
                          0xef, 0xf4, 0x91, 0x11, 0xac, 0xf4, 0xfd, 0xdb, 0xcc, 0x03, 0x01, 0x48, 0x0e, 0x35, 0x9d, 0xe6]
        let y: [UInt8] = [0xdc, 0x80, 0x9c, 0x49, 0x65, 0x2a, 0xeb, 0x6d, 0x63, 0x32, 0x9a, 0xbf, 0x5a, 0x52, 0x15, 0x5c,
                          0x76, 0x63, 0x45, 0xc2, 0x8f, 0xed, 0x30, 0x24, 0x74, 0x1c, 0x8e, 0xd0, 0x15, 0x89, 0xd2, 0x8b]
        return Array(x.reversed()) + Array(y.reversed())
    }()

    /// Names of the secrets of which `haystack` holds a 6-byte run, in wire order or reversed
    /// (keys are printed most significant byte first).
    public static func runsFound(_ secrets: [(String, [UInt8])], in haystack: [UInt8]) -> Set<String> {
        var windows: [UInt64: String] = [:]
        for (name, secret) in secrets where secret.count >= 6 {
            for s in [secret, secret.reversed()] {
                for i in 0...(s.count - 6) { windows[pack(s[i..<(i + 6)])] = name }
            }
        }
        var found: Set<String> = []
        guard haystack.count >= 6 else { return found }
        var value: UInt64 = 0
        for (i, b) in haystack.enumerated() {
            value = (value << 8 | UInt64(b)) & 0xFFFF_FFFF_FFFF
            if i >= 5, let name = windows[value] { found.insert(name) }
        }
        return found
    }

    /// Names of the secrets of which `text` holds a 6-byte run as hex (either order, any case,
    /// with spaces, colons or dashes between bytes or not).
    public static func hexRunsFound(_ secrets: [(String, [UInt8])], in text: String) -> Set<String> {
        // Hex digits with the separators dropped, decoded at both alignments.
        var digits: [[UInt8]] = [[]]
        for c in text.utf8 {
            if c == 0x20 || c == 0x3A || c == 0x2D { continue }
            if let v = hexValue(c) { digits[digits.count - 1].append(v) } else if !digits[digits.count - 1].isEmpty { digits.append([]) }
        }
        var found: Set<String> = []
        for run in digits where run.count >= 12 {
            for start in 0...1 {
                var bytes: [UInt8] = []
                var i = start
                while i + 1 < run.count { bytes.append(run[i] << 4 | run[i + 1]); i += 2 }
                found.formUnion(runsFound(secrets, in: bytes))
            }
        }
        return found
    }

    static func hexValue(_ c: UInt8) -> UInt8? {
        switch c {
        case 0x30...0x39: c - 0x30
        case 0x41...0x46: c - 0x41 + 10
        case 0x61...0x66: c - 0x61 + 10
        default: nil
        }
    }

    static func pack(_ bytes: ArraySlice<UInt8>) -> UInt64 { bytes.reduce(0) { $0 << 8 | UInt64($1) } }
}
