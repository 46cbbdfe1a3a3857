import BLECore
import BLEDecode
import Testing

@Suite("SMP pairing method")
struct SMPPairingMethodTests {
    static func features(_ io: SMPIOCapability, _ auth: SMPAuthenticationRequirements, oob: UInt8 = 0) -> SMPPairingFeatures {
        SMPPairingFeatures(ioCapability: io, oobDataFlag: oob, authenticationRequirements: auth,
                           initiatorKeyDistribution: [.encryptionKey], responderKeyDistribution: [.encryptionKey])
    }

    // Core v5.4 Vol 3 Part H Table 2.8, written out as the spec prints it: one row per
    // responder capability, one column per initiator capability (DO, DYN, KO, NIO, KD).
    // JW Just Works; PI initiator displays, responder inputs; PR responder displays,
    // initiator inputs; PB both input; NC Numeric Comparison (Secure Connections only:
    // the legacy entry is given after the slash).
    static let table: [[String]] = [
        /* R DisplayOnly  */ ["JW", "JW", "PR", "JW", "PR"],
        /* R DisplayYesNo */ ["JW", "NC/JW", "PR", "JW", "NC/PR"],
        /* R KeyboardOnly */ ["PI", "PI", "PB", "JW", "PI"],
        /* R NoInputNoOut */ ["JW", "JW", "JW", "JW", "JW"],
        /* R KeyboardDisp */ ["PI", "NC/PI", "PR", "JW", "NC/PI"],
    ]

    static func expected(_ code: String) -> String {
        switch code {
        case "JW": "Just Works"
        case "NC": "Numeric Comparison"
        case "PI": "Passkey Entry (initiator displays, responder inputs)"
        case "PR": "Passkey Entry (responder displays, initiator inputs)"
        default: "Passkey Entry (both input)"
        }
    }

    struct Cell: Sendable, CustomTestStringConvertible {
        var initiator: UInt8, responder: UInt8, secureConnections: Bool
        var testDescription: String { "I \(SMPIOCapability(initiator).name) / R \(SMPIOCapability(responder).name) \(secureConnections ? "SC" : "legacy")" }
    }

    static let cells: [Cell] = (0..<5).flatMap { r in (0..<5).flatMap { i in
        [Cell(initiator: UInt8(i), responder: UInt8(r), secureConnections: false),
         Cell(initiator: UInt8(i), responder: UInt8(r), secureConnections: true)] } }

    @Test("Table 2.8 with MITM requested", arguments: cells)
    func ioTable(_ cell: Cell) {
        let sc: SMPAuthenticationRequirements = cell.secureConnections ? [.bonding, .mitm, .secureConnections] : [.bonding, .mitm]
        let method = SMPPDU.pairingMethod(request: Self.features(SMPIOCapability(cell.initiator), sc),
                                          response: Self.features(SMPIOCapability(cell.responder), sc))
        let entry = Self.table[Int(cell.responder)][Int(cell.initiator)].split(separator: "/").map(String.init)
        let code = entry.count == 2 ? (cell.secureConnections ? entry[0] : entry[1]) : entry[0]
        #expect(method == (cell.secureConnections ? "LE Secure Connections, " : "LE Legacy, ") + Self.expected(code))
    }

    @Test("no MITM on either side: Just Works whatever the IO capabilities")
    func noMITM() {
        let m = SMPPDU.pairingMethod(request: Self.features(.keyboardDisplay, [.bonding, .secureConnections]),
                                     response: Self.features(.keyboardDisplay, [.bonding, .secureConnections]))
        #expect(m == "LE Secure Connections, Just Works")
        // One side asking for MITM is enough.
        let one = SMPPDU.pairingMethod(request: Self.features(.keyboardDisplay, [.bonding]),
                                       response: Self.features(.displayOnly, [.bonding, .mitm]))
        #expect(one == "LE Legacy, Passkey Entry (responder displays, initiator inputs)")
    }

    @Test("SC needs both SC bits; OOB needs both flags in legacy, one in SC")
    func scAndOOB() {
        let onlyOneSC = SMPPDU.pairingMethod(request: Self.features(.displayYesNo, [.mitm, .secureConnections]),
                                             response: Self.features(.displayYesNo, [.mitm]))
        #expect(onlyOneSC == "LE Legacy, Just Works")
        let legacyOneOOB = SMPPDU.pairingMethod(request: Self.features(.noInputNoOutput, [], oob: 1),
                                                response: Self.features(.noInputNoOutput, []))
        #expect(legacyOneOOB == "LE Legacy, Just Works")
        let legacyBothOOB = SMPPDU.pairingMethod(request: Self.features(.noInputNoOutput, [], oob: 1),
                                                 response: Self.features(.noInputNoOutput, [], oob: 1))
        #expect(legacyBothOOB == "LE Legacy, OOB")
        let scOneOOB = SMPPDU.pairingMethod(request: Self.features(.noInputNoOutput, [.secureConnections]),
                                            response: Self.features(.noInputNoOutput, [.secureConnections], oob: 1))
        #expect(scOneOOB == "LE Secure Connections, OOB")
    }

    @Test("real pairings from ../shared/captures")
    func captures() throws {
        // android-lock-pairing.btsnoop: phone (Keyboard, Display) pairs with a lock (Display Only)
        // using MITM and SC: the lock shows a passkey the user types.
        let lock = SMPPDU.pairingMethod(request: try SMPPDU(decoding: [0x01, 0x04, 0x00, 0x2D, 0x10, 0x0F, 0x0F][...]),
                                        response: try SMPPDU(decoding: [0x02, 0x00, 0x00, 0x0D, 0x10, 0x07, 0x07][...]))
        #expect(lock == "LE Secure Connections, Passkey Entry (responder displays, initiator inputs)")
        // ubertooth-le-sc-pairing.pcapng: no MITM anywhere.
        let crackle = SMPPDU.pairingMethod(request: try SMPPDU(decoding: [0x01, 0x03, 0x00, 0x09, 0x10, 0x0D, 0x0F][...]),
                                           response: try SMPPDU(decoding: [0x02, 0x04, 0x00, 0x09, 0x10, 0x01, 0x03][...]))
        #expect(crackle == "LE Secure Connections, Just Works")
        // Not a request/response pair.
        #expect(SMPPDU.pairingMethod(request: try SMPPDU(decoding: [0x05, 0x01][...]),
                                     response: try SMPPDU(decoding: [0x05, 0x01][...])) == nil)
    }

    @Test("a reserved IO capability falls back to Just Works and says so")
    func reservedIO() {
        let m = SMPPairingMethod(request: Self.features(SMPIOCapability(0x07), [.mitm]), response: Self.features(.keyboardOnly, [.mitm]))
        #expect(m.association == .justWorks)
        #expect(m.usedReservedIOCapability)
        #expect(m.description == "LE Legacy, Just Works (reserved IO capability)")
    }
}
