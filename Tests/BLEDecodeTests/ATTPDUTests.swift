import BLECore
import BLEDecode
import Testing

@Suite("ATT PDUs")
struct ATTPDUTests {
    @Test("decode -> fields -> encode gives the same bytes", arguments: ATTFixtures.all)
    func roundTrip(_ fixture: PDUFixture) throws {
        let pdu = try ATTPDU(decoding: fixture.bytes[...])
        #expect(pdu.summary == fixture.summary)
        #expect(pdu.fields.map { "\($0.0): \($0.1)" } == fixture.fields)
        #expect(pdu.encoded() == fixture.bytes)
        #expect(pdu.opcode.rawValue == fixture.bytes[0])
        // The struct's own entry point agrees with the enum's.
        if let body = pdu.body {
            #expect(body.encoded() == fixture.bytes)
        }
    }

    @Test("every prefix is truncated at the cut field, or a valid shorter PDU", arguments: ATTFixtures.all.filter(\.checkPrefixes))
    func prefixes(_ fixture: PDUFixture) {
        checkPrefixes(fixture, layer: .att) { (slice, base) throws(DecodeError) in
            try ATTPDU(decoding: slice, baseOffset: base).encoded()
        }
    }

    @Test("a signed write's signature is the last 12 bytes; fewer than 12 is truncated at the value")
    func signedWriteCuts() throws {
        let whole: [UInt8] = [0xD2, 0x21, 0x00, 0x01] + Array(repeating: 0xAB, count: 12)
        for n in 3..<15 {
            #expect(throws: DecodeError(layer: .att, offset: 3, kind: .truncated,
                                        reason: "Authentication Signature (12 bytes at the end): need 12 byte(s), have \(n - 3)")) {
                try ATTPDU(decoding: whole[0..<n])
            }
        }
        guard case .signedWriteCommand(let p) = try ATTPDU(decoding: whole[0..<15]) else {
            Issue.record("not a signed write"); return
        }
        #expect(p.attributeValue.isEmpty)
        #expect(p.authenticationSignature == [0x01] + Array(repeating: 0xAB, count: 11))
    }

    @Test("typed access: handle, error code, value")
    func accessors() throws {
        let error = try ATTPDU(decoding: [0x01, 0x0A, 0x03, 0x00, 0x02][...])
        #expect(error.attributeHandle == 0x0003)
        #expect(error.errorCode == .readNotPermitted)
        #expect(error.value == nil)
        guard case .errorResponse(let e) = error else { Issue.record("not an error response"); return }
        #expect(e.requestOpcode == .readRequest)

        let write = try ATTPDU(decoding: [0x12, 0x28, 0x00, 0x01, 0x00][...])
        #expect(write.attributeHandle == 0x0028)
        #expect(write.value == [0x01, 0x00])
        #expect(write.errorCode == nil)

        let range = try ATTPDU(decoding: [0x10, 0x01, 0x00, 0xFF, 0xFF, 0x00, 0x28][...])
        #expect(range.attributeHandle == 0x0001)
        #expect(range.value == nil)

        let readByType = try ATTPDU(decoding: [0x09, 0x04, 0x09, 0x00, 0x00, 0x00][...])
        #expect(readByType.value == nil)
        guard case .readByTypeResponse(let r) = readByType else { Issue.record("not a read by type response"); return }
        #expect(r.attributeDataList == [.init(handle: 0x0009, value: [0x00, 0x00])])

        let signed = try ATTPDU(decoding: [0xD2, 0x21, 0x00, 0x05] + Array(repeating: 0, count: 12))
        #expect(signed.value == [0x05])

        let groups = try ATTPDU(decoding: [0x11, 0x06, 0x01, 0x00, 0x04, 0x00, 0x01, 0x18][...])
        guard case .readByGroupTypeResponse(let g) = groups else { Issue.record("not a group response"); return }
        #expect(g.attributeDataList.first?.uuid == BluetoothUUID(uint16: 0x1801))
        #expect(g.attributeDataList.first?.endGroupHandle == 0x0004)
    }

    struct Malformed: Sendable, CustomTestStringConvertible {
        var name: String
        var bytes: [UInt8]
        var kind: DecodeError.Kind
        var offset: Int
        var testDescription: String { name }
    }

    static let malformed: [Malformed] = [
        // 02 | 05 02 | 00 — one byte after a fixed-size PDU.
        Malformed(name: "MTU request with a trailing byte", bytes: [0x02, 0x05, 0x02, 0x00], kind: .malformed, offset: 3),
        // 13 | 00
        Malformed(name: "Write Response with a parameter", bytes: [0x13, 0x00], kind: .malformed, offset: 1),
        // 05 | 03 | … — Format 3 is not assigned.
        Malformed(name: "Find Information Response format 3", bytes: [0x05, 0x03, 0x01, 0x00, 0x02, 0x29], kind: .malformed, offset: 1),
        // 05 | 01 | 0C 00 02 29 | 0D 00 01 — the second entry lacks a UUID byte.
        Malformed(name: "Find Information Response not dividing", bytes: [0x05, 0x01, 0x0C, 0x00, 0x02, 0x29, 0x0D, 0x00, 0x01],
                  kind: .truncated, offset: 8),
        // 09 | 01 | … — Length below 2 (a handle alone).
        Malformed(name: "Read By Type Response length 1", bytes: [0x09, 0x01, 0x02, 0x00], kind: .malformed, offset: 1),
        // 09 | 00
        Malformed(name: "Read By Type Response length 0", bytes: [0x09, 0x00], kind: .malformed, offset: 1),
        // 09 | 04 | 01 00 AA BB | 02 00 CC — the second value has 1 of 2 bytes.
        Malformed(name: "Read By Type Response not dividing", bytes: [0x09, 0x04, 0x01, 0x00, 0xAA, 0xBB, 0x02, 0x00, 0xCC],
                  kind: .truncated, offset: 8),
        // 11 | 03 | … — Length below 4 (two handles).
        Malformed(name: "Read By Group Type Response length 3", bytes: [0x11, 0x03, 0x01, 0x00, 0x02], kind: .malformed, offset: 1),
        // 08 | 01 00 | FF FF | 17 bytes — a UUID has 2 or 16.
        Malformed(name: "Read By Type Request with a 17-byte type", bytes: [0x08, 0x01, 0x00, 0xFF, 0xFF] + Array(repeating: 0x11, count: 17),
                  kind: .malformed, offset: 5),
        // 08 | 01 00 | FF FF | 4 bytes — neither 2 nor 16.
        Malformed(name: "Read By Type Request with a 4-byte type", bytes: [0x08, 0x01, 0x00, 0xFF, 0xFF, 0x01, 0x02, 0x03, 0x04],
                  kind: .truncated, offset: 5),
        // 0E | 03 00 | 05 — odd number of handle bytes.
        Malformed(name: "Read Multiple Request odd length", bytes: [0x0E, 0x03, 0x00, 0x05], kind: .truncated, offset: 3),
        // 23 | 25 00 | 05 00 | 01 02 — value shorter than its length.
        Malformed(name: "Multiple Handle Value Notification short value", bytes: [0x23, 0x25, 0x00, 0x05, 0x00, 0x01, 0x02],
                  kind: .truncated, offset: 5),
        // (nothing)
        Malformed(name: "empty PDU", bytes: [], kind: .truncated, offset: 0),
    ]

    @Test("malformed PDUs throw at the absolute offset of the damage", arguments: malformed)
    func rejects(_ m: Malformed) {
        let base = 4242
        do {
            let pdu = try ATTPDU(decoding: m.bytes[...], baseOffset: base)
            Issue.record("decoded \(pdu.summary)")
        } catch {
            #expect(error.layer == .att)
            #expect(error.kind == m.kind, "\(error)")
            #expect(error.offset == base + m.offset, "\(error)")
        }
    }

    @Test("a struct's own decoder rejects another opcode")
    func structDecoderChecksOpcode() throws {
        #expect(throws: DecodeError.self) { try ATTWriteRequest(decoding: [0x52, 0x01, 0x00][...]) }
        let write = try ATTWriteRequest(decoding: [0x12, 0x01, 0x00, 0xFF][...])
        #expect(write == ATTWriteRequest(attributeHandle: 1, attributeValue: [0xFF]))
    }

    @Test("built PDUs encode as the spec lays them out")
    func building() {
        #expect(ATTPDU.readByTypeRequest(.init(startingHandle: 1, endingHandle: 0xFFFF, attributeType: BluetoothUUID(uint16: 0x2803))).encoded()
                == [0x08, 0x01, 0x00, 0xFF, 0xFF, 0x03, 0x28])
        #expect(ATTReadByTypeResponse(attributeDataList: [.init(handle: 2, value: [1, 2, 3])]).encoded()
                == [0x09, 0x05, 0x02, 0x00, 1, 2, 3])
        #expect(ATTMultipleHandleValueNotification(handleValueTuples: [.init(attributeHandle: 0x25, value: [9])]).encoded()
                == [0x23, 0x25, 0x00, 0x01, 0x00, 0x09])
        #expect(ATTPDU.unknown(opcode: ATTOpcode(0x30), parameters: [1]).encoded() == [0x30, 0x01])
    }

    @Test("100k seeded random PDUs: no crash; whatever decodes re-encodes exactly")
    func fuzz() {
        var rng = SplitMix64(seed: 0xA77_5EED)
        let opcodes = ATTOpcode.allAssigned.map(\.rawValue)
        var decoded = 0
        for _ in 0..<100_000 {
            let length = Int(rng.next() % 40)
            var input = rng.bytes(length)
            // Mostly assigned opcodes, so the decoders (not `unknown`) see the input.
            if !input.isEmpty, rng.next() % 8 != 0 {
                input[0] = opcodes[Int(rng.next() % UInt64(opcodes.count))]
            }
            if let pdu = try? ATTPDU(decoding: input[...], baseOffset: 7) {
                decoded += 1
                _ = pdu.summary
                _ = pdu.fields
                _ = (pdu.attributeHandle, pdu.value, pdu.errorCode)
                #expect(pdu.encoded() == input)
            }
        }
        #expect(decoded > 10_000)
    }
}
