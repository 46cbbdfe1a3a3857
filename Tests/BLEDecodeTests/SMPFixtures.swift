import BLEDecode

// One valid PDU per SMP command (Core v5.4 Vol 3 Part H 3.5-3.6). Pairing features and the
// non-secret PDUs are real ones from ../shared/captures (named in the comment); key material
// is synthetic (a counting pattern) except the all-zero LTK the SweynTooth capture carries.
enum SMPFixtures {
    static func pattern(_ count: Int, from start: UInt8) -> [UInt8] {
        (0..<count).map { start &+ UInt8(truncatingIfNeeded: $0) }
    }

    static let all: [PDUFixture] = [
        // 01 | 04 | 00 | 2D | 10 | 0F | 0F — android-lock-pairing.btsnoop: Keyboard+Display, no OOB,
        // AuthReq Bonding+MITM+SC+CT2, 16-byte keys, all four keys both ways.
        PDUFixture(name: "Pairing Request",
                   segments: [f("code", 0x01), f("io capability", 0x04), f("oob", 0x00), f("authreq", 0x2D),
                              f("max key size", 0x10), f("initiator keys", 0x0F), f("responder keys", 0x0F)],
                   summary: "Pairing Request: IO Capability: Keyboard, Display | AuthReq: Bonding, MITM, SecureConnection, CT2 | Max Key Size: 16 | Initiator Key(s): LTK, IRK, CSRK, Linkkey | Responder Key(s): LTK, IRK, CSRK, Linkkey",
                   fields: ["Code: 0x01 Pairing Request", "IO Capability: 0x04 Keyboard, Display",
                            "OOB Data Flag: 0x00 OOB Auth. Data Not Present",
                            "AuthReq: 0x2D Bonding, MITM, SecureConnection, CT2", "Max Encryption Key Size: 16",
                            "Initiator Key Distribution: 0x0F LTK, IRK, CSRK, Linkkey",
                            "Responder Key Distribution: 0x0F LTK, IRK, CSRK, Linkkey"]),
        // 02 | 00 | 00 | 0D | 10 | 07 | 07 — the lock's answer: Display Only, Bonding+MITM+SC.
        PDUFixture(name: "Pairing Response",
                   segments: [f("code", 0x02), f("io capability", 0x00), f("oob", 0x00), f("authreq", 0x0D),
                              f("max key size", 0x10), f("initiator keys", 0x07), f("responder keys", 0x07)],
                   summary: "Pairing Response: IO Capability: Display Only | AuthReq: Bonding, MITM, SecureConnection | Max Key Size: 16 | Initiator Key(s): LTK, IRK, CSRK | Responder Key(s): LTK, IRK, CSRK",
                   fields: ["Code: 0x02 Pairing Response", "IO Capability: 0x00 Display Only",
                            "OOB Data Flag: 0x00 OOB Auth. Data Not Present",
                            "AuthReq: 0x0D Bonding, MITM, SecureConnection", "Max Encryption Key Size: 16",
                            "Initiator Key Distribution: 0x07 LTK, IRK, CSRK",
                            "Responder Key Distribution: 0x07 LTK, IRK, CSRK"]),
        // 01 | 03 | 02 | 01 | 07 | 01 | 00 — synthetic (Core v5.4 Vol 3 Part H 3.5.1): No Input No
        // Output, OOB Data Flag 0x02 (reserved), Bonding, the smallest key size a request may
        // offer (7), LTK from the initiator only. The summary (what `timeline -v` and
        // `smp_events.detail` show) names the key size and the reserved flag.
        PDUFixture(name: "Pairing Request (short key, reserved OOB flag)",
                   segments: [f("code", 0x01), f("io capability", 0x03), f("oob", 0x02), f("authreq", 0x01),
                              f("max key size", 0x07), f("initiator keys", 0x01), f("responder keys", 0x00)],
                   summary: "Pairing Request: IO Capability: No Input, No Output | OOB Data Flag: Reserved (0x02) | AuthReq: Bonding | Max Key Size: 7 | Initiator Key(s): LTK | Responder Key(s): None",
                   fields: ["Code: 0x01 Pairing Request", "IO Capability: 0x03 No Input, No Output",
                            "OOB Data Flag: 0x02 Reserved (0x02)",
                            "AuthReq: 0x01 Bonding", "Max Encryption Key Size: 7",
                            "Initiator Key Distribution: 0x01 LTK",
                            "Responder Key Distribution: 0x00 None"]),
        // 03 | Confirm Value (16)
        PDUFixture(name: "Pairing Confirm",
                   segments: [f("code", 0x03), f("confirm value", pattern(16, from: 0x10))],
                   summary: "Pairing Confirm: Confirm Value: <redacted 16 bytes>",
                   fields: ["Code: 0x03 Pairing Confirm", "Confirm Value: <redacted 16 bytes>"]),
        // 04 | Random Value (16)
        PDUFixture(name: "Pairing Random",
                   segments: [f("code", 0x04), f("random value", pattern(16, from: 0x20))],
                   summary: "Pairing Random: Random Value: <redacted 16 bytes>",
                   fields: ["Code: 0x04 Pairing Random", "Random Value: <redacted 16 bytes>"]),
        // 05 | 0A — nrf-sniffer-psoc6-crash.pcapng: Invalid Parameters.
        PDUFixture(name: "Pairing Failed",
                   segments: [f("code", 0x05), f("reason", 0x0A)],
                   summary: "Pairing Failed: Invalid Parameters",
                   fields: ["Code: 0x05 Pairing Failed", "Reason: 0x0A Invalid Parameters"]),
        // 06 | LTK (16) all zero — nrf-sniffer-psoc6-crash.pcapng (the zero-LTK attack).
        PDUFixture(name: "Encryption Information (zero LTK)",
                   segments: [f("code", 0x06), f("ltk", [UInt8](repeating: 0, count: 16))],
                   summary: "Encryption Information: LTK: <redacted 16 bytes, all zero>",
                   fields: ["Code: 0x06 Encryption Information", "LTK: <redacted 16 bytes, all zero>"]),
        // 06 | LTK (16)
        PDUFixture(name: "Encryption Information",
                   segments: [f("code", 0x06), f("ltk", pattern(16, from: 0x30))],
                   summary: "Encryption Information: LTK: <redacted 16 bytes>",
                   fields: ["Code: 0x06 Encryption Information", "LTK: <redacted 16 bytes>"]),
        // 07 | EDIV 29 8A | Rand 24 A7 11 21 CC 88 30 CC — nrf-sniffer-psoc6-crash.pcapng.
        PDUFixture(name: "Central Identification",
                   segments: [f("code", 0x07), f("ediv", 0x29, 0x8A), f("rand", 0x24, 0xA7, 0x11, 0x21, 0xCC, 0x88, 0x30, 0xCC)],
                   summary: "Central Identification: EDIV: 0x8A29, Rand: 0xCC3088CC2111A724",
                   fields: ["Code: 0x07 Central Identification", "EDIV: 0x8A29", "Rand: 0xCC3088CC2111A724"]),
        // 08 | IRK (16)
        PDUFixture(name: "Identity Information",
                   segments: [f("code", 0x08), f("irk", pattern(16, from: 0x40))],
                   summary: "Identity Information: IRK: <redacted 16 bytes>",
                   fields: ["Code: 0x08 Identity Information", "IRK: <redacted 16 bytes>"]),
        // 09 | 01 | F8 4F 72 37 B8 FF — android-lock-pairing.btsnoop: static random FF:B8:37:72:4F:F8.
        PDUFixture(name: "Identity Address Information",
                   segments: [f("code", 0x09), f("address type", 0x01), f("address", 0xF8, 0x4F, 0x72, 0x37, 0xB8, 0xFF)],
                   summary: "Identity Address Information: FF:B8:37:72:4F:F8 (random)",
                   fields: ["Code: 0x09 Identity Address Information", "Address Type: 0x01 random", "BD_ADDR: FF:B8:37:72:4F:F8"]),
        // 0A | CSRK (16)
        PDUFixture(name: "Signing Information",
                   segments: [f("code", 0x0A), f("csrk", pattern(16, from: 0x50))],
                   summary: "Signing Information: CSRK: <redacted 16 bytes>",
                   fields: ["Code: 0x0A Signing Information", "CSRK: <redacted 16 bytes>"]),
        // 0B | 09 — nrf-sniffer-invalid-control.pcapng: Bonding + SC.
        PDUFixture(name: "Security Request",
                   segments: [f("code", 0x0B), f("authreq", 0x09)],
                   summary: "Security Request: AuthReq: Bonding, SecureConnection",
                   fields: ["Code: 0x0B Security Request", "AuthReq: 0x09 Bonding, SecureConnection"]),
        // 0C | X (32) | Y (32)
        PDUFixture(name: "Pairing Public Key",
                   segments: [f("code", 0x0C), f("x", pattern(32, from: 0x60)), f("y", pattern(32, from: 0x90))],
                   summary: "Pairing Public Key: <redacted 64 bytes>",
                   fields: ["Code: 0x0C Pairing Public Key", "Public Key X: <redacted 32 bytes>", "Public Key Y: <redacted 32 bytes>"]),
        // 0D | DHKey Check (16)
        PDUFixture(name: "Pairing DHKey Check",
                   segments: [f("code", 0x0D), f("dhkey check", pattern(16, from: 0xC0))],
                   summary: "Pairing DHKey Check: DHKey Check: c0c1c2c3c4c5c6c7c8c9cacbcccdcecf",
                   fields: ["Code: 0x0D Pairing DHKey Check", "DHKey Check: c0c1c2c3c4c5c6c7c8c9cacbcccdcecf"]),
        // 0E | 01
        PDUFixture(name: "Pairing Keypress Notification",
                   segments: [f("code", 0x0E), f("type", 0x01)],
                   summary: "Pairing Keypress Notification: Passkey Digit Entered",
                   fields: ["Code: 0x0E Pairing Keypress Notification", "Notification Type: 0x01 Passkey Digit Entered"]),
        // 87 | 03 00 09 10 49 07 — nrf-sniffer-psoc6-crash.pcapng: a fuzzed code, kept raw.
        PDUFixture(name: "Unknown code",
                   segments: [f("code", 0x87), v("parameters", 0x03, 0x00, 0x09, 0x10, 0x49, 0x07)],
                   summary: "Unknown (0x87): <redacted 6 bytes>",
                   fields: ["Code: 0x87 Unknown (0x87)", "Parameters: <redacted 6 bytes>"]),
    ]
}
