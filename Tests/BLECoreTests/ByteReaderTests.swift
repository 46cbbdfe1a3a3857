import Testing
@testable import BLECore

@Suite("ByteReader")
struct ByteReaderTests {
    // 0x34 0x12 little-endian u16 = 0x1234; 0xAA 0xBB 0xCC 0xDD big-endian u32 = 0xAABBCCDD
    let bytes: [UInt8] = [0x34, 0x12, 0xAA, 0xBB, 0xCC, 0xDD, 0x01]

    @Test func readsWithExplicitByteOrder() throws {
        var r = ByteReader(bytes, baseOffset: 100)
        #expect(try r.readUInt16(.little) == 0x1234)
        #expect(try r.readUInt32(.big) == 0xAABB_CCDD)
        #expect(r.absoluteOffset == 106)
        #expect(try r.readUInt8() == 1)
        #expect(r.isAtEnd)
    }

    @Test func failedReadDoesNotMoveAndNamesTheOffset() {
        var r = ByteReader(bytes, baseOffset: 100, layer: .att)
        _ = try? r.readUInt32(.little)
        #expect(throws: DecodeError(layer: .att, offset: 104, kind: .truncated, reason: "handle: need 4 byte(s), have 3")) {
            try r.readUInt32(.little, "handle")
        }
        #expect(r.absoluteOffset == 104)
        #expect(r.remaining == 3)
    }

    @Test(arguments: 0..<7)
    func everyPrefixFailsAtTheCut(length: Int) {
        var r = ByteReader(Array(bytes[0..<length]), baseOffset: 0)
        var consumed = 0
        do {
            _ = try r.readUInt16(.little); consumed = 2
            _ = try r.readUInt32(.big); consumed = 6
            _ = try r.readUInt8(); consumed = 7
            Issue.record("a prefix of \(length) bytes read completely")
        } catch {
            #expect(error.offset == consumed)
            #expect(error.kind == .truncated)
        }
    }

    @Test func addressIsReversedFromWireOrder() throws {
        // HCI sends BD_ADDR least significant byte first.
        var r = ByteReader([0xFF, 0xEE, 0xDD, 0xCC, 0xBB, 0xAA])
        #expect(try r.readAddress().description == "AA:BB:CC:DD:EE:FF")
    }
}

@Suite("Bluetooth UUIDs")
struct BluetoothUUIDTests {
    @Test func sixteenBitSIGUUIDPrintsAsCoreBluetoothDoes() {
        #expect(BluetoothUUID(littleEndian: [0x0D, 0x18])?.uuidString == "180D")
        #expect(BluetoothUUID("0000180d-0000-1000-8000-00805f9b34fb")?.uuidString == "180D")
    }

    @Test func vendorUUIDIsCanonicalUpperCase() {
        // Nordic UART service 6E400001-B5A3-F393-E0A9-E50E24DCCA9E, little-endian on the wire.
        let wire: [UInt8] = [0x9E, 0xCA, 0xDC, 0x24, 0x0E, 0xE5, 0xA9, 0xE0, 0x93, 0xF3, 0xA3, 0xB5, 0x01, 0x00, 0x40, 0x6E]
        let u = BluetoothUUID(littleEndian: wire)
        #expect(u?.uuidString == "6E400001-B5A3-F393-E0A9-E50E24DCCA9E")
        #expect(u?.littleEndianBytes == wire)
    }
}

@Suite("Error-code names")
struct ErrorCodeTests {
    @Test func hciNamesFromTheSpec() {
        #expect(HCIStatusCode(0x08).name == "Connection Timeout")
        #expect(HCIStatusCode(0x3E).name == "Connection Failed to be Established")
        #expect(HCIStatusCode(0x16).name == "Connection Terminated By Local Host")
        #expect(HCIStatusCode(0x2B).name == "Unknown (0x2B)")
    }

    @Test func attAndSMPNames() {
        #expect(ATTErrorCode(0x0A).name == "Attribute Not Found")
        #expect(ATTErrorCode(0x81).name == "Application Error (0x81)")
        #expect(ATTErrorCode(0x14).specName == nil)
        #expect(SMPPairingFailedReason(0x04).name == "Confirm Value Failed")
    }

    /// REFERENCE.md: articles get these wrong; Apple's CBError.h has 6, 7, 10, 13.
    @Test func coreBluetoothNumbers() {
        #expect(CoreBluetoothNames.cbError[6] == "connectionTimeout")
        #expect(CoreBluetoothNames.cbError[4] == "outOfSpace")
        #expect(CoreBluetoothNames.cbError[7] == "peripheralDisconnected")
        #expect(CoreBluetoothNames.cbError[10] == "connectionFailed")
        #expect(CoreBluetoothNames.cbError[13] == "operationNotSupported")
        #expect(CoreBluetoothNames.attErrorName(ATTErrorCode(0x12)) == nil)
        #expect(CoreBluetoothNames.attErrorName(ATTErrorCode(0x0F)) == "CBATTError.insufficientEncryption")
    }

    @Test func disconnectMapping() {
        let m = DisconnectMapping.default
        #expect(m.cbErrorName(for: HCIStatusCode(0x08)) == "CBError.connectionTimeout")
        #expect(m.cbErrorName(for: HCIStatusCode(0x13)) == "CBError.peripheralDisconnected")
        #expect(m.cbErrorName(for: HCIStatusCode(0x3E)) == "CBError.connectionFailed")
        #expect(m.cbErrorName(for: HCIStatusCode(0x16), cancelledByApp: true) == nil)
        #expect(m.cbErrorName(for: HCIStatusCode(0x22)) == "CBError.unknown")
    }
}

@Suite("SHA-256 and timestamps")
struct DigestAndTimeTests {
    /// FIPS 180-2 appendix B test vectors.
    @Test func knownDigests() {
        var h = SHA256()
        h.update(Array("abc".utf8))
        #expect(hexString(h.finalize()) == "ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad")
        var h2 = SHA256()
        let long = Array("abcdbcdecdefdefgefghfghighijhijkijkljklmklmnlmnomnopnopq".utf8)
        h2.update(Array(long[0..<10])); h2.update(Array(long[10...]))
        #expect(hexString(h2.finalize()) == "248d6a61d20638b8e5c026930c3e6039a33ce45964ff2167f6ecedd419db06c1")
        var h3 = SHA256()
        #expect(hexString(h3.finalize()) == "e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855")
    }

    @Test func iso8601() {
        #expect(Timestamp.iso8601(0) == "1970-01-01T00:00:00.000000Z")
        #expect(Timestamp.iso8601(1_735_553_702_123_456) == "2024-12-30T10:15:02.123456Z")
        // A btsnoop timestamp of 1 µs (time since boot, as some writers record it): btsnoop's epoch
        // is 0 AD of the Julian calendar, -0001-12-20 proleptic Gregorian; the year is signed, not "00-1".
        #expect(Timestamp.iso8601(1 - Timestamp.btsnoopEpochOffset) == "-0001-12-20T00:00:00.000001Z")
        // Proleptic Gregorian 0000-01-01 (-62,167,219,200 s) and the last second of 9999.
        #expect(Timestamp.iso8601(-62_167_219_200_000_000) == "0000-01-01T00:00:00.000000Z")
        #expect(Timestamp.iso8601(Timestamp.plausible.upperBound) == "9999-12-31T23:59:59.999999Z")
    }
}
