import BLEDecode

// One valid PDU per ATT opcode (and per variant), Core v5.4 Vol 3 Part F 3.4. Several are real
// PDUs from ../shared/captures (named in the comment); Wireshark 4.0.17 decodes those the
// same way (see ATTCaptureCorpusTests).
enum ATTFixtures {
    static let all: [PDUFixture] = [
        // 01 | 10 | 01 00 | 0A — android-pongbot.btsnoop: Attribute Not Found on handle 0x0001
        // for a Read By Group Type Request.
        PDUFixture(name: "Error Response",
                   segments: [f("opcode", 0x01), f("request opcode", 0x10), f("handle", 0x01, 0x00), f("error code", 0x0A)],
                   summary: "Error Response - Attribute Not Found, Handle: 0x0001 (Read By Group Type Request)",
                   fields: ["Opcode: 0x01 Error Response", "Request Opcode in Error: 0x10 Read By Group Type Request",
                            "Handle in Error: 0x0001", "Error Code: 0x0A Attribute Not Found"]),
        // 02 | 05 02 — Client Rx MTU 517 (android-pongbot.btsnoop).
        PDUFixture(name: "Exchange MTU Request",
                   segments: [f("opcode", 0x02), f("client rx mtu", 0x05, 0x02)],
                   summary: "Exchange MTU Request, Client Rx MTU: 517",
                   fields: ["Opcode: 0x02 Exchange MTU Request", "Client Rx MTU: 517"]),
        // 03 | 73 00 — Server Rx MTU 115 (android-pongbot.btsnoop).
        PDUFixture(name: "Exchange MTU Response",
                   segments: [f("opcode", 0x03), f("server rx mtu", 0x73, 0x00)],
                   summary: "Exchange MTU Response, Server Rx MTU: 115",
                   fields: ["Opcode: 0x03 Exchange MTU Response", "Server Rx MTU: 115"]),
        // 04 | 01 00 | FF FF — all handles.
        PDUFixture(name: "Find Information Request",
                   segments: [f("opcode", 0x04), f("starting handle", 0x01, 0x00), f("ending handle", 0xFF, 0xFF)],
                   summary: "Find Information Request, Handles: 0x0001..0xFFFF",
                   fields: ["Opcode: 0x04 Find Information Request", "Starting Handle: 0x0001", "Ending Handle: 0xFFFF"]),
        // 05 | 01 | 0C 00 02 29 | 0D 00 01 29 — format 16-bit; 0x000C CCCD, 0x000D User Description
        // (android-pongbot.btsnoop).
        PDUFixture(name: "Find Information Response (16-bit)",
                   segments: [f("opcode", 0x05), f("format", 0x01),
                              f("handle 1", 0x0C, 0x00), f("uuid 1", 0x02, 0x29),
                              next("handle 2", 0x0D, 0x00), f("uuid 2", 0x01, 0x29)],
                   summary: "Find Information Response, Handle: 0x000C (Client Characteristic Configuration), Handle: 0x000D (Characteristic User Description)",
                   fields: ["Opcode: 0x05 Find Information Response", "Format: 0x01 Handle(s) and 16-bit Bluetooth UUID(s)",
                            "Handle 0x000C: 2902 (Client Characteristic Configuration)",
                            "Handle 0x000D: 2901 (Characteristic User Description)"]),
        // 05 | 02 | 28 00 | 16-byte UUID (little-endian) — sniffle-gatt.pcap.
        PDUFixture(name: "Find Information Response (128-bit)",
                   segments: [f("opcode", 0x05), f("format", 0x02), f("handle", 0x28, 0x00),
                              f("uuid", [0xAA, 0xA4, 0x9F, 0xF0, 0x21, 0x6B, 0x63, 0x6F,
                                         0x6C, 0x6D, 0x65, 0x48, 0x11, 0x00, 0x4D, 0x44])],
                   summary: "Find Information Response, Handle: 0x0028 (444D0011-4865-6D6C-6F63-6B21F09FA4AA)",
                   fields: ["Opcode: 0x05 Find Information Response", "Format: 0x02 Handle(s) and 128-bit UUID(s)",
                            "Handle 0x0028: 444D0011-4865-6D6C-6F63-6B21F09FA4AA"]),
        // 06 | 01 00 | FF FF | 00 28 | 00 18 — primary service 0x1800 (android-pongbot.btsnoop).
        PDUFixture(name: "Find By Type Value Request",
                   segments: [f("opcode", 0x06), f("starting handle", 0x01, 0x00), f("ending handle", 0xFF, 0xFF),
                              f("attribute type", 0x00, 0x28), v("attribute value", 0x00, 0x18)],
                   summary: "Find By Type Value Request, Primary Service, Handles: 0x0001..0xFFFF",
                   fields: ["Opcode: 0x06 Find By Type Value Request", "Starting Handle: 0x0001", "Ending Handle: 0xFFFF",
                            "Attribute Type: 2800 (Primary Service)", "Attribute Value: 0018"]),
        // 07 | 14 00 1A 00 | 20 00 FF FF — two groups: 0x0014..0x001A, 0x0020..0xFFFF.
        PDUFixture(name: "Find By Type Value Response",
                   segments: [f("opcode", 0x07), f("found 1", 0x14, 0x00), f("end 1", 0x1A, 0x00),
                              next("found 2", 0x20, 0x00), f("end 2", 0xFF, 0xFF)],
                   summary: "Find By Type Value Response",
                   fields: ["Opcode: 0x07 Find By Type Value Response",
                            "Handles Information: 0x0014..0x001A", "Handles Information: 0x0020..0xFFFF"]),
        // 08 | 01 00 | FF FF | 03 28 — characteristic discovery.
        PDUFixture(name: "Read By Type Request (16-bit)",
                   segments: [f("opcode", 0x08), f("starting handle", 0x01, 0x00), f("ending handle", 0xFF, 0xFF),
                              f("attribute type", 0x03, 0x28)],
                   summary: "Read By Type Request, Characteristic, Handles: 0x0001..0xFFFF",
                   fields: ["Opcode: 0x08 Read By Type Request", "Starting Handle: 0x0001", "Ending Handle: 0xFFFF",
                            "Attribute Type: 2803 (Characteristic)"]),
        // 08 | 10 00 | 20 00 | 16-byte UUID 6E400003-B5A3-F393-E0A9-E50E24DCCA9E (little-endian).
        // Cut to 2 UUID bytes (7 in all) it is a valid 16-bit request.
        PDUFixture(name: "Read By Type Request (128-bit)",
                   segments: [f("opcode", 0x08), f("starting handle", 0x10, 0x00), f("ending handle", 0x20, 0x00),
                              f("attribute type", [0x9E, 0xCA, 0xDC, 0x24, 0x0E, 0xE5, 0xA9, 0xE0,
                                                   0x93, 0xF3, 0xA3, 0xB5, 0x03, 0x00, 0x40, 0x6E])],
                   summary: "Read By Type Request, 6E400003-B5A3-F393-E0A9-E50E24DCCA9E, Handles: 0x0010..0x0020",
                   fields: ["Opcode: 0x08 Read By Type Request", "Starting Handle: 0x0010", "Ending Handle: 0x0020",
                            "Attribute Type: 6E400003-B5A3-F393-E0A9-E50E24DCCA9E"],
                   extraValidPrefixes: [7]),
        // 09 | 07 | 02 00 20 03 00 05 2A | 06 00 02 07 00 00 2A — two characteristic declarations
        // (the first from android-pongbot.btsnoop: Service Changed, indicate, value handle 0x0003).
        PDUFixture(name: "Read By Type Response",
                   segments: [f("opcode", 0x09), f("length", 0x07),
                              f("handle 1", 0x02, 0x00), f("value 1", 0x20, 0x03, 0x00, 0x05, 0x2A),
                              next("handle 2", 0x06, 0x00), f("value 2", 0x02, 0x07, 0x00, 0x00, 0x2A)],
                   summary: "Read By Type Response, Attribute List Length: 2",
                   fields: ["Opcode: 0x09 Read By Type Response", "Length: 7",
                            "Handle 0x0002: 200300052a", "Handle 0x0006: 020700002a"]),
        // 0A | A4 00 (android-pongbot.btsnoop).
        PDUFixture(name: "Read Request",
                   segments: [f("opcode", 0x0A), f("handle", 0xA4, 0x00)],
                   summary: "Read Request, Handle: 0x00A4",
                   fields: ["Opcode: 0x0A Read Request", "Attribute Handle: 0x00A4"]),
        // 0B | 50 6F 6E 67 — "Pong".
        PDUFixture(name: "Read Response",
                   segments: [f("opcode", 0x0B), v("value", 0x50, 0x6F, 0x6E, 0x67)],
                   summary: "Read Response",
                   fields: ["Opcode: 0x0B Read Response", "Attribute Value: 506f6e67"]),
        // 0C | 03 00 | 16 00 — handle 0x0003 from offset 22.
        PDUFixture(name: "Read Blob Request",
                   segments: [f("opcode", 0x0C), f("handle", 0x03, 0x00), f("offset", 0x16, 0x00)],
                   summary: "Read Blob Request, Handle: 0x0003, Offset: 22",
                   fields: ["Opcode: 0x0C Read Blob Request", "Attribute Handle: 0x0003", "Value Offset: 22"]),
        // 0D | 01 02 03
        PDUFixture(name: "Read Blob Response",
                   segments: [f("opcode", 0x0D), v("part value", 0x01, 0x02, 0x03)],
                   summary: "Read Blob Response",
                   fields: ["Opcode: 0x0D Read Blob Response", "Part Attribute Value: 010203"]),
        // 0E | 03 00 | 05 00
        PDUFixture(name: "Read Multiple Request",
                   segments: [f("opcode", 0x0E), f("handle 1", 0x03, 0x00), next("handle 2", 0x05, 0x00)],
                   summary: "Read Multiple Request, Handles: 0x0003, 0x0005",
                   fields: ["Opcode: 0x0E Read Multiple Request", "Handle: 0x0003", "Handle: 0x0005"]),
        // 0F | 64 00 01 — two values concatenated (a u16 and a u8).
        PDUFixture(name: "Read Multiple Response",
                   segments: [f("opcode", 0x0F), v("set of values", 0x64, 0x00, 0x01)],
                   summary: "Read Multiple Response",
                   fields: ["Opcode: 0x0F Read Multiple Response", "Set Of Values: 640001"]),
        // 10 | 01 00 | FF FF | 00 28 — primary service discovery (android-pongbot.btsnoop).
        PDUFixture(name: "Read By Group Type Request (16-bit)",
                   segments: [f("opcode", 0x10), f("starting handle", 0x01, 0x00), f("ending handle", 0xFF, 0xFF),
                              f("group type", 0x00, 0x28)],
                   summary: "Read By Group Type Request, Primary Service, Handles: 0x0001..0xFFFF",
                   fields: ["Opcode: 0x10 Read By Group Type Request", "Starting Handle: 0x0001", "Ending Handle: 0xFFFF",
                            "Attribute Group Type: 2800 (Primary Service)"]),
        // 10 | 01 00 | FF FF | 0x2800 in its 16-byte form (Base UUID, little-endian): must
        // re-encode as 16 bytes.
        PDUFixture(name: "Read By Group Type Request (16-bit UUID in 128-bit form)",
                   segments: [f("opcode", 0x10), f("starting handle", 0x01, 0x00), f("ending handle", 0xFF, 0xFF),
                              f("group type", [0xFB, 0x34, 0x9B, 0x5F, 0x80, 0x00, 0x00, 0x80,
                                               0x00, 0x10, 0x00, 0x00, 0x00, 0x28, 0x00, 0x00])],
                   summary: "Read By Group Type Request, Primary Service, Handles: 0x0001..0xFFFF",
                   fields: ["Opcode: 0x10 Read By Group Type Request", "Starting Handle: 0x0001", "Ending Handle: 0xFFFF",
                            "Attribute Group Type: 2800 (Primary Service)"],
                   extraValidPrefixes: [7]),
        // 11 | 06 | 01 00 04 00 01 18 | 05 00 0D 00 00 18 | 0E 00 0E 00 0A 18 — three services
        // (android-pongbot.btsnoop).
        PDUFixture(name: "Read By Group Type Response",
                   segments: [f("opcode", 0x11), f("length", 0x06),
                              f("handle 1", 0x01, 0x00), f("end 1", 0x04, 0x00), f("value 1", 0x01, 0x18),
                              next("handle 2", 0x05, 0x00), f("end 2", 0x0D, 0x00), f("value 2", 0x00, 0x18),
                              next("handle 3", 0x0E, 0x00), f("end 3", 0x0E, 0x00), f("value 3", 0x0A, 0x18)],
                   summary: "Read By Group Type Response, Attribute List Length: 3, Generic Attribute, Generic Access, Device Information",
                   fields: ["Opcode: 0x11 Read By Group Type Response", "Length: 6",
                            "Handles 0x0001..0x0004: 1801 (Generic Attribute)",
                            "Handles 0x0005..0x000D: 1800 (Generic Access)",
                            "Handles 0x000E..0x000E: 180A (Device Information)"]),
        // 12 | 28 00 | 01 00 — enable notifications (android-pongbot.btsnoop).
        PDUFixture(name: "Write Request",
                   segments: [f("opcode", 0x12), f("handle", 0x28, 0x00), v("value", 0x01, 0x00)],
                   summary: "Write Request, Handle: 0x0028",
                   fields: ["Opcode: 0x12 Write Request", "Attribute Handle: 0x0028", "Attribute Value: 0100"]),
        // 13
        PDUFixture(name: "Write Response", segments: [f("opcode", 0x13)],
                   summary: "Write Response", fields: ["Opcode: 0x13 Write Response"]),
        // 52 | 42 00 | 47 (android-pongbot.btsnoop).
        PDUFixture(name: "Write Command",
                   segments: [f("opcode", 0x52), f("handle", 0x42, 0x00), v("value", 0x47)],
                   summary: "Write Command, Handle: 0x0042",
                   fields: ["Opcode: 0x52 Write Command", "Attribute Handle: 0x0042", "Attribute Value: 47"]),
        // 16 | 08 00 | 6E 00 | 64 D8 D0 — part at offset 110 (android-pongbot.btsnoop, value cut).
        PDUFixture(name: "Prepare Write Request",
                   segments: [f("opcode", 0x16), f("handle", 0x08, 0x00), f("offset", 0x6E, 0x00), v("part", 0x64, 0xD8, 0xD0)],
                   summary: "Prepare Write Request, Handle: 0x0008, Offset: 110",
                   fields: ["Opcode: 0x16 Prepare Write Request", "Attribute Handle: 0x0008", "Value Offset: 110",
                            "Part Attribute Value: 64d8d0"]),
        // 17 | 08 00 | 6E 00 | 64 D8 D0 — the echo.
        PDUFixture(name: "Prepare Write Response",
                   segments: [f("opcode", 0x17), f("handle", 0x08, 0x00), f("offset", 0x6E, 0x00), v("part", 0x64, 0xD8, 0xD0)],
                   summary: "Prepare Write Response, Handle: 0x0008, Offset: 110",
                   fields: ["Opcode: 0x17 Prepare Write Response", "Attribute Handle: 0x0008", "Value Offset: 110",
                            "Part Attribute Value: 64d8d0"]),
        // 18 | 01 — write all (android-pongbot.btsnoop).
        PDUFixture(name: "Execute Write Request",
                   segments: [f("opcode", 0x18), f("flags", 0x01)],
                   summary: "Execute Write Request, Immediately Write All",
                   fields: ["Opcode: 0x18 Execute Write Request", "Flags: 0x01 Immediately Write All"]),
        // 19
        PDUFixture(name: "Execute Write Response", segments: [f("opcode", 0x19)],
                   summary: "Execute Write Response", fields: ["Opcode: 0x19 Execute Write Response"]),
        // 1B | 17 00 | 68 DF 1F BC (android-pongbot.btsnoop, value cut).
        PDUFixture(name: "Handle Value Notification",
                   segments: [f("opcode", 0x1B), f("handle", 0x17, 0x00), v("value", 0x68, 0xDF, 0x1F, 0xBC)],
                   summary: "Handle Value Notification, Handle: 0x0017",
                   fields: ["Opcode: 0x1B Handle Value Notification", "Attribute Handle: 0x0017", "Attribute Value: 68df1fbc"]),
        // 1D | 0B 00 | 01 00 FF FF — Service Changed 0x0001..0xFFFF.
        PDUFixture(name: "Handle Value Indication",
                   segments: [f("opcode", 0x1D), f("handle", 0x0B, 0x00), v("value", 0x01, 0x00, 0xFF, 0xFF)],
                   summary: "Handle Value Indication, Handle: 0x000B",
                   fields: ["Opcode: 0x1D Handle Value Indication", "Attribute Handle: 0x000B", "Attribute Value: 0100ffff"]),
        // 1E
        PDUFixture(name: "Handle Value Confirmation", segments: [f("opcode", 0x1E)],
                   summary: "Handle Value Confirmation", fields: ["Opcode: 0x1E Handle Value Confirmation"]),
        // 20 | 03 00 | 05 00
        PDUFixture(name: "Read Multiple Variable Request",
                   segments: [f("opcode", 0x20), f("handle 1", 0x03, 0x00), next("handle 2", 0x05, 0x00)],
                   summary: "Read Multiple Variable Request, Handles: 0x0003, 0x0005",
                   fields: ["Opcode: 0x20 Read Multiple Variable Request", "Handle: 0x0003", "Handle: 0x0005"]),
        // 21 | 02 00 AA BB | 03 00 01 02 03 — a cut PDU keeps a shorter last value.
        PDUFixture(name: "Read Multiple Variable Response",
                   segments: [f("opcode", 0x21), next("length 1", 0x02, 0x00), v("value 1", 0xAA, 0xBB),
                              next("length 2", 0x03, 0x00), v("value 2", 0x01, 0x02, 0x03)],
                   summary: "Read Multiple Variable Response, Values: 2",
                   fields: ["Opcode: 0x21 Read Multiple Variable Response", "Value (length 2): aabb", "Value (length 3): 010203"]),
        // 21 | 02 00 AA BB | 05 00 01 02 — the last value cut at ATT_MTU: 2 of 5 bytes.
        PDUFixture(name: "Read Multiple Variable Response (last value cut)",
                   segments: [f("opcode", 0x21), next("length 1", 0x02, 0x00), v("value 1", 0xAA, 0xBB),
                              next("length 2", 0x05, 0x00), v("value 2", 0x01, 0x02)],
                   summary: "Read Multiple Variable Response, Values: 2",
                   fields: ["Opcode: 0x21 Read Multiple Variable Response", "Value (length 2): aabb",
                            "Value (length 5): 0102 (cut at 2 bytes)"]),
        // 23 | 25 00 02 00 01 02 | 29 00 01 00 7F
        PDUFixture(name: "Multiple Handle Value Notification",
                   segments: [f("opcode", 0x23), f("handle 1", 0x25, 0x00), f("length 1", 0x02, 0x00), f("value 1", 0x01, 0x02),
                              next("handle 2", 0x29, 0x00), f("length 2", 0x01, 0x00), f("value 2", 0x7F)],
                   summary: "Multiple Handle Value Notification, Handles: 0x0025, 0x0029",
                   fields: ["Opcode: 0x23 Multiple Handle Value Notification", "Handle 0x0025: 0102", "Handle 0x0029: 7f"]),
        // D2 | 21 00 | (no value) | signature: SignCounter 01 00 00 00, MAC 11 22 33 44 55 66 77 88.
        PDUFixture(name: "Signed Write Command (empty value)",
                   segments: [f("opcode", 0xD2), f("handle", 0x21, 0x00),
                              f("signature", 0x01, 0x00, 0x00, 0x00, 0x11, 0x22, 0x33, 0x44, 0x55, 0x66, 0x77, 0x88)],
                   summary: "Signed Write Command, Handle: 0x0021",
                   fields: ["Opcode: 0xD2 Signed Write Command", "Attribute Handle: 0x0021", "Attribute Value: ",
                            "Authentication Signature: 010000001122334455667788"]),
        // D2 | 21 00 | 01 | signature (12). Cuts are checked in ATTPDUTests.signedWriteCuts.
        PDUFixture(name: "Signed Write Command",
                   segments: [f("opcode", 0xD2), f("handle", 0x21, 0x00), f("value", 0x01),
                              f("signature", 0x02, 0x00, 0x00, 0x00, 0xA1, 0xA2, 0xA3, 0xA4, 0xA5, 0xA6, 0xA7, 0xA8)],
                   summary: "Signed Write Command, Handle: 0x0021",
                   fields: ["Opcode: 0xD2 Signed Write Command", "Attribute Handle: 0x0021", "Attribute Value: 01",
                            "Authentication Signature: 02000000a1a2a3a4a5a6a7a8"],
                   checkPrefixes: false),
        // 30 | 01 02 — unassigned opcode: kept raw.
        PDUFixture(name: "Unknown opcode",
                   segments: [f("opcode", 0x30), v("parameters", 0x01, 0x02)],
                   summary: "Unknown (0x30), Parameters: 0102",
                   fields: ["Opcode: 0x30 Unknown (0x30)", "Parameters: 0102"]),
    ]
}
