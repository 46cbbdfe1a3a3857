import BLECore
import BLEDecode
import Testing

@Suite("SMP PDUs")
struct SMPPDUTests {
    @Test("decode -> fields -> encode gives the same bytes", arguments: SMPFixtures.all)
    func roundTrip(_ fixture: PDUFixture) throws {
        let pdu = try SMPPDU(decoding: fixture.bytes[...])
        #expect(pdu.summary(keepKeys: false) == fixture.summary)
        #expect(pdu.fields(keepKeys: false).map { "\($0.0): \($0.1)" } == fixture.fields)
        #expect(pdu.encoded() == fixture.bytes)
        #expect(pdu.code.rawValue == fixture.bytes[0])
        if let body = pdu.body { #expect(body.encoded() == fixture.bytes) }
    }

    @Test("every prefix is truncated at the cut field", arguments: SMPFixtures.all)
    func prefixes(_ fixture: PDUFixture) {
        checkPrefixes(fixture, layer: .smp) { (slice, base) throws(DecodeError) in
            try SMPPDU(decoding: slice, baseOffset: base).encoded()
        }
    }

    @Test("no hex of key material unless keepKeys", arguments: SMPFixtures.all)
    func redaction(_ fixture: PDUFixture) throws {
        let pdu = try SMPPDU(decoding: fixture.bytes[...])
        let parameters = Array(fixture.bytes.dropFirst())
        // Key material by SMPKeyMaterial's rule, and public keys (never printed: see SMPPairingPublicKey).
        let secret = !SMPKeyMaterial.secrets(in: fixture.bytes[...]).isEmpty || pdu.code == .pairingPublicKey
        guard secret else { return }
        // Any 4 consecutive parameter bytes, as hex, must not appear when redacted.
        let redactedText = pdu.summary(keepKeys: false) + pdu.fields(keepKeys: false).map(\.1).joined()
        for start in 0...(parameters.count - 4) {
            let window = hexString(parameters[start..<start + 4])
            if window == "00000000" { continue }
            #expect(!redactedText.lowercased().contains(window), "\(fixture.name) shows \(window)")
        }
        let shown = pdu.summary(keepKeys: true) + pdu.fields(keepKeys: true).map(\.1).joined()
        #expect(!shown.contains("redacted"))
    }

    @Test("keepKeys shows key material in hex")
    func keepKeys() throws {
        let ltk = try SMPPDU(decoding: ([0x06] + SMPFixtures.pattern(16, from: 0x30))[...])
        #expect(ltk.summary(keepKeys: true) == "Encryption Information: LTK: 303132333435363738393a3b3c3d3e3f")
        #expect(ltk.fields(keepKeys: true).last?.1 == "303132333435363738393a3b3c3d3e3f")
        let ids = try SMPPDU(decoding: [0x07, 0x29, 0x8A, 0x24, 0xA7, 0x11, 0x21, 0xCC, 0x88, 0x30, 0xCC][...])
        #expect(ids.summary(keepKeys: true) == "Central Identification: EDIV: 0x8A29, Rand: 0xCC3088CC2111A724")
        guard case .centralIdentification(let c) = ids else { Issue.record("not central identification"); return }
        #expect(c.encryptedDiversifier == 0x8A29)
        #expect(c.randomNumber == 0xCC30_88CC_2111_A724)
        let unknown = try SMPPDU(decoding: [0x87, 0x03, 0x00][...])
        #expect(unknown.summary(keepKeys: true) == "Unknown (0x87): 0300")
    }

    @Test("typed access")
    func accessors() throws {
        let failed = try SMPPDU(decoding: [0x05, 0x04][...])
        #expect(failed.failureReason == .confirmValueFailed)
        #expect(failed.code == .pairingFailed)
        let request = try SMPPDU(decoding: [0x01, 0x04, 0x00, 0x2D, 0x10, 0x0F, 0x0F][...])
        #expect(request.failureReason == nil)
        let features = try #require(request.pairingFeatures)
        #expect(features.ioCapability == .keyboardDisplay)
        #expect(features.authenticationRequirements.contains([.mitm, .secureConnections, .ct2]))
        #expect(!features.authenticationRequirements.contains(.keypress))
        #expect(features.authenticationRequirements.bondingFlags == 0b01)
        #expect(features.maximumEncryptionKeySize == 16)
        #expect(features.initiatorKeyDistribution == [.encryptionKey, .identityKey, .signingKey, .linkKey])
        let address = try SMPPDU(decoding: [0x09, 0x00, 0x01, 0x02, 0x03, 0x04, 0x05, 0x06][...])
        guard case .identityAddressInformation(let a) = address else { Issue.record("not an identity address"); return }
        #expect(a.addressType == .public)
        #expect(a.address == BluetoothAddress("06:05:04:03:02:01"))
    }

    @Test("names: codes as Wireshark spells them; unassigned as Unknown (0xNN)")
    func names() {
        let expected = ["Pairing Request", "Pairing Response", "Pairing Confirm", "Pairing Random", "Pairing Failed",
                        "Encryption Information", "Central Identification", "Identity Information",
                        "Identity Address Information", "Signing Information", "Security Request",
                        "Pairing Public Key", "Pairing DHKey Check", "Pairing Keypress Notification"]
        #expect(SMPCode.allAssigned.map(\.name) == expected)
        #expect(SMPCode(0x00).name == "Unknown (0x00)")
        #expect(SMPCode(0x0F).name == "Unknown (0x0F)")
        #expect(SMPIOCapability(0x05).name == "Reserved (0x05)")
        #expect(SMPAuthenticationRequirements(rawValue: 0x00).description == "No Bonding")
        #expect(SMPAuthenticationRequirements(rawValue: 0xD2).description == "Bonding Flags 0x02, Keypress, Reserved (0xC0)")
        #expect(SMPKeyDistribution(rawValue: 0x00).description == "None")
    }

    struct Malformed: Sendable, CustomTestStringConvertible {
        var name: String
        var bytes: [UInt8]
        var kind: DecodeError.Kind
        var offset: Int
        var testDescription: String { name }
    }

    static let malformed: [Malformed] = [
        // 05 | 08 | 00 — a byte after the reason.
        Malformed(name: "Pairing Failed with a trailing byte", bytes: [0x05, 0x08, 0x00], kind: .malformed, offset: 2),
        // 01 | 04 00 2D 10 0F 0F | 00
        Malformed(name: "Pairing Request with 7 parameters", bytes: [0x01, 0x04, 0x00, 0x2D, 0x10, 0x0F, 0x0F, 0x00],
                  kind: .malformed, offset: 7),
        // 0C | 63 bytes — one short of a public key.
        Malformed(name: "Public key one byte short", bytes: [0x0C] + [UInt8](repeating: 1, count: 63), kind: .truncated, offset: 33),
        Malformed(name: "empty PDU", bytes: [], kind: .truncated, offset: 0),
    ]

    @Test("malformed PDUs throw at the absolute offset of the damage", arguments: malformed)
    func rejects(_ m: Malformed) {
        do {
            let pdu = try SMPPDU(decoding: m.bytes[...], baseOffset: 300)
            Issue.record("decoded \(pdu.summary(keepKeys: false))")
        } catch {
            #expect(error.layer == .smp)
            #expect(error.kind == m.kind, "\(error)")
            #expect(error.offset == 300 + m.offset, "\(error)")
        }
    }

    @Test("100k seeded random PDUs: no crash; whatever decodes re-encodes exactly")
    func fuzz() {
        var rng = SplitMix64(seed: 0x5E_C0DE)
        var decoded = 0
        for _ in 0..<100_000 {
            var input = rng.bytes(Int(rng.next() % 70))
            if !input.isEmpty, rng.next() % 8 != 0 { input[0] = UInt8(1 + rng.next() % 14) }
            // Often the exact size of the chosen command, so most inputs decode.
            if let pdu = try? SMPPDU(decoding: input[...], baseOffset: 3) {
                decoded += 1
                _ = (pdu.summary(keepKeys: false), pdu.summary(keepKeys: true), pdu.fields(keepKeys: false))
                #expect(pdu.encoded() == input)
            }
        }
        #expect(decoded > 100)
    }
}
