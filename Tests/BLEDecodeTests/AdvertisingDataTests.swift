import BLECore
import BLEDecode
import Testing

/// Real advertising and scan-response data from ../shared/captures, with what Wireshark 4.0.17
/// shows for it, plus synthetic data for the types the captures lack.
struct ADFixture: Sendable, CustomTestStringConvertible {
    var name: String
    /// One entry per AD structure (Length, Type, Data), in wire order.
    var structures: [[UInt8]]
    var summary: String
    var testDescription: String { name }
    var bytes: [UInt8] { structures.flatMap { $0 } }
}

@Suite("Advertising data")
struct AdvertisingDataTests {
    static let fixtures: [ADFixture] = [
        // android-yeelock.btsnoop, ADV_IND: iBeacon.
        // 02 01 06                 Flags: LE General Discoverable, BR/EDR Not Supported
        // 1A FF 4C 00 02 15 …      Manufacturer Specific: Apple (0x004C), iBeacon type 0x02 length 0x15
        ADFixture(name: "iBeacon",
                  structures: [[0x02, 0x01, 0x06],
                               bytes(hex: "1aff4c000215fda50693a4e24fb1afcfc6eb0764782500050006b0")],
                  summary: "flags 0x06 mfr 0x004C"),
        // android-yeelock.btsnoop, SCAN_RSP (Wireshark: 128-bit Service Class UUIDs
        // 00001803-494c-4f47-4943-544543480000; Device Name: RDL51822).
        // 11 07 <16 bytes LE>      Complete List of 128-bit Service Class UUIDs
        // 09 09 52 44 4C 35 31 38 32 32   Complete Local Name "RDL51822"
        ADFixture(name: "128-bit UUID and name",
                  structures: [bytes(hex: "11070000484345544349474f4c4903180000"), bytes(hex: "090952444c3531383232")],
                  summary: "name \"RDL51822\" uuids [00001803-494C-4F47-4943-544543480000]"),
        // scale-h4-phdr.pcap, SCAN_RSP.
        // 10 09 "Mi Smart Band 4"  Complete Local Name
        // 03 02 E0 FE              Incomplete List of 16-bit UUIDs: FEE0
        ADFixture(name: "Mi Smart Band",
                  structures: [bytes(hex: "10094d6920536d6172742042616e642034"), [0x03, 0x02, 0xE0, 0xFE]],
                  summary: "name \"Mi Smart Band 4\" uuids [FEE0, …]"),
        // scale-h4-phdr.pcap, ADV_IND.
        // 02 01 06 | 03 02 0F FE (incomplete 16-bit: FE0F) | 08 16 0F FE 5A 10 09 D9 0E (Service Data FE0F)
        ADFixture(name: "service data",
                  structures: [[0x02, 0x01, 0x06], [0x03, 0x02, 0x0F, 0xFE], bytes(hex: "08160ffe5a1009d90e")],
                  summary: "flags 0x06 uuids [FE0F, …] svc-data [FE0F]"),
        // scale-h4-phdr.pcap, SCAN_RSP. 02 0A 0A (Tx Power 10 dBm) | 09 09 "Hue Lamp"
        ADFixture(name: "tx power and name",
                  structures: [[0x02, 0x0A, 0x0A], bytes(hex: "0909487565204c616d70")],
                  summary: "name \"Hue Lamp\" tx 10 dBm"),
        // smartwatch-h4-phdr.pcapng, ADV_IND.
        // 03 19 00 00 (Appearance 0x0000) | 02 01 06 | 03 03 F0 0A (complete 16-bit: 0AF0) | 08 09 "YG-SW01"
        ADFixture(name: "smartwatch",
                  structures: [[0x03, 0x19, 0x00, 0x00], [0x02, 0x01, 0x06], [0x03, 0x03, 0xF0, 0x0A],
                               bytes(hex: "080959472d53573031")],
                  summary: "name \"YG-SW01\" flags 0x06 uuids [0AF0] appearance 0x0000"),
        // Synthetic (the example of the summary format): Polar H10 heart-rate strap.
        // 02 01 06 | 0A 09 "Polar H10" | 03 03 0D 18 (Heart Rate) | 05 FF 6B 00 72 08 (Polar)
        ADFixture(name: "Polar H10",
                  structures: [[0x02, 0x01, 0x06], bytes(hex: "0a09506f6c617220483130"), [0x03, 0x03, 0x0D, 0x18],
                               [0x05, 0xFF, 0x6B, 0x00, 0x72, 0x08]],
                  summary: "name \"Polar H10\" flags 0x06 uuids [180D] mfr 0x006B"),
    ]

    @Test("real data: structures, summary, re-encoding", arguments: fixtures)
    func fixture(_ f: ADFixture) {
        let ad = AdvertisingData(decoding: f.bytes[...])
        #expect(ad.problem == nil)
        #expect(ad.structures.map { $0.encoded() } == f.structures)
        #expect(ad.summary == f.summary)
        #expect(ad.encoded() == f.bytes)
        #expect(ad.fields.count == f.structures.count)
    }

    @Test("every prefix keeps the whole structures before the cut and names the cut one", arguments: fixtures)
    func prefixes(_ f: ADFixture) {
        var ends: [Int] = []
        var total = 0
        for s in f.structures { total += s.count; ends.append(total) }
        for n in 0...f.bytes.count {
            let ad = AdvertisingData(decoding: f.bytes[0..<n])
            let whole = ends.filter { $0 <= n }.count
            #expect(ad.structures.count == whole, "prefix \(n)")
            #expect(ad.encoded() == Array(f.bytes[0..<(whole == 0 ? 0 : ends[whole - 1])]))
            let atBoundary = n == 0 || ends.contains(n)
            #expect((ad.problem == nil) == atBoundary, "prefix \(n): \(ad.problem ?? "no problem")")
            if !atBoundary {
                let start = whole == 0 ? 0 : ends[whole - 1]
                #expect(ad.problem?.contains("at byte \(start):") == true, "prefix \(n): \(ad.problem ?? "")")
            }
        }
    }

    @Test("typed accessors on the real data")
    func accessors() {
        let beacon = AdvertisingData(decoding: Self.fixtures[0].bytes[...])
        #expect(beacon.flags == [.leGeneralDiscoverableMode, .brEDRNotSupported])
        #expect(beacon.manufacturerData.count == 1)
        #expect(beacon.manufacturerData.first?.companyID == 0x004C)
        #expect(beacon.manufacturerData.first?.data.prefix(2) == [0x02, 0x15])
        #expect(beacon.localName == nil)

        let lock = AdvertisingData(decoding: Self.fixtures[1].bytes[...])
        #expect(lock.localName == "RDL51822")
        #expect(!lock.isShortenedName)
        #expect(lock.completeServiceUUIDs128 == [BluetoothUUID("00001803-494C-4F47-4943-544543480000")!])
        #expect(lock.serviceUUIDsComplete)

        let band = AdvertisingData(decoding: Self.fixtures[2].bytes[...])
        #expect(band.incompleteServiceUUIDs16 == [BluetoothUUID(uint16: 0xFEE0)])
        #expect(!band.serviceUUIDsComplete)

        let service = AdvertisingData(decoding: Self.fixtures[3].bytes[...])
        #expect(service.serviceData.count == 1)
        #expect(service.serviceData.first?.uuid == BluetoothUUID(uint16: 0xFE0F))
        #expect(service.serviceData.first?.data == [0x5A, 0x10, 0x09, 0xD9, 0x0E])

        let hue = AdvertisingData(decoding: Self.fixtures[4].bytes[...])
        #expect(hue.txPowerLevel == 10)

        let watch = AdvertisingData(decoding: Self.fixtures[5].bytes[...])
        #expect(watch.appearance == 0x0000)
        #expect(watch.completeServiceUUIDs16 == [BluetoothUUID(uint16: 0x0AF0)])
    }

    @Test("the rest of the typed accessors (synthetic, layouts from CSS Part A)")
    func moreAccessors() {
        let ad = AdvertisingData(decoding: [
            0x02, 0x08, 0x50,                                  // Shortened Local Name "P"
            0x05, 0x12, 0x06, 0x00, 0x20, 0x00,                // Peripheral Connection Interval Range 6..32
            0x05, 0x14, 0x0D, 0x18, 0x0F, 0x18,                // 16-bit solicitation 180D, 180F
            0x05, 0x1F, 0x78, 0x56, 0x34, 0x12,                // 32-bit solicitation 12345678
            0x07, 0x17, 0x01, 0x02, 0x03, 0x04, 0x05, 0x06,    // Public Target Address 06:05:04:03:02:01
            0x07, 0x18, 0x11, 0x12, 0x13, 0x14, 0x15, 0xC6,    // Random Target Address C6:15:14:13:12:11
            0x03, 0x1A, 0xA0, 0x00,                            // Advertising Interval 160 x 0.625 = 100 ms
            0x02, 0x1C, 0x02,                                  // LE Role: both, peripheral preferred
            0x0C, 0x24, 0x17, 0x2F, 0x2F, 0x65, 0x78, 0x61, 0x6D, 0x70, 0x6C, 0x65, 0x2F, // URI https://example/
            0x04, 0x0D, 0x04, 0x05, 0x24,                      // Class of Device 0x240504
            0x07, 0x20, 0x78, 0x56, 0x34, 0x12, 0xAA, 0xBB,    // Service Data 32-bit 12345678: AA BB
            0x03, 0x05, 0x01, 0x02,                            // Complete 32-bit list, 2 bytes: a size problem
        ][...])
        #expect(ad.localName == "P")
        #expect(ad.isShortenedName)
        #expect(ad.peripheralConnectionIntervalRange?.min == 6)
        #expect(ad.peripheralConnectionIntervalRange?.max == 32)
        #expect(ad.solicitedServiceUUIDs == [BluetoothUUID(uint16: 0x180D), BluetoothUUID(uint16: 0x180F), BluetoothUUID(uint32: 0x1234_5678)])
        #expect(ad.publicTargetAddresses == [BluetoothAddress("06:05:04:03:02:01")!])
        #expect(ad.randomTargetAddresses == [BluetoothAddress("C6:15:14:13:12:11")!])
        #expect(ad.advertisingInterval == 160)
        #expect(ad.advertisingIntervalMilliseconds == 100)
        #expect(ad.leRole == .bothPeripheralPreferred)
        #expect(ad.uri == "https://example/")
        #expect(ad.classOfDevice == 0x24_0504)
        #expect(ad.serviceData.first?.uuid == BluetoothUUID(uint32: 0x1234_5678))
        #expect(ad.serviceData.first?.data == [0xAA, 0xBB])
        #expect(ad.completeServiceUUIDs32.isEmpty)
        #expect(ad.problem == "Complete List of 32-bit Service Class UUIDs at byte 70: 2 data byte(s), expected a multiple of 4")
        #expect(ad.summary == "name \"P\" (shortened) solicit [180D, 180F, 12345678] svc-data [12345678] interval 100 ms uri https://example/ (malformed: Complete List of 32-bit Service Class UUIDs at byte 70: 2 data byte(s), expected a multiple of 4)")
    }

    @Test("advertising interval: 2, 3 or 4 octets, then the long form 0x2F")
    func intervals() {
        #expect(AdvertisingData(decoding: [0x04, 0x1A, 0x00, 0x00, 0x01][...]).advertisingInterval == 0x01_0000)
        #expect(AdvertisingData(decoding: [0x05, 0x1A, 0x01, 0x00, 0x00, 0x01][...]).advertisingInterval == 0x0100_0001)
        let long = AdvertisingData(decoding: [0x04, 0x2F, 0x40, 0x1F, 0x00][...])
        #expect(long.advertisingInterval == 8000)
        #expect(long.advertisingIntervalMilliseconds == 5000)
        #expect(long.summary == "interval 5000 ms")
        #expect(AdvertisingData(decoding: [0x03, 0x1A, 0x01, 0x00][...]).summary == "interval 0.625 ms")
    }

    @Test("zero Length ends the significant part; the rest is padding")
    func padding() {
        let ad = AdvertisingData(decoding: [0x02, 0x01, 0x06, 0x00, 0x00, 0x05, 0x09][...])
        #expect(ad.structures.count == 1)
        #expect(ad.paddingLength == 4)
        #expect(ad.problem == nil)
        #expect(AdvertisingData(decoding: [][...]).summary == "(empty)")
        #expect(AdvertisingData(decoding: [0x00][...]).paddingLength == 1)
    }

    @Test("an overrunning structure stops the parse and is named")
    func overrun() {
        let ad = AdvertisingData(decoding: [0x02, 0x01, 0x06, 0x05, 0x09, 0x41, 0x42][...])
        #expect(ad.structures.count == 1)
        #expect(ad.problem == "Complete Local Name at byte 3: Length 5 overruns the data (3 byte(s) left)")
        #expect(ad.summary == "flags 0x06 (malformed: Complete Local Name at byte 3: Length 5 overruns the data (3 byte(s) left))")
    }

    @Test("names: lossy UTF-8, trailing NULs dropped, complete preferred over shortened")
    func names() {
        #expect(AdvertisingData(decoding: [0x04, 0x09, 0x41, 0xFF, 0x42][...]).localName == "A\u{FFFD}B")
        #expect(AdvertisingData(decoding: [0x04, 0x09, 0x41, 0x00, 0x00][...]).localName == "A")
        #expect(AdvertisingData(decoding: [0x01, 0x09][...]).localName == "")
        let both = AdvertisingData(decoding: [0x02, 0x08, 0x41, 0x03, 0x09, 0x41, 0x42][...])
        #expect(both.localName == "AB")
        #expect(!both.isShortenedName)
    }

    @Test("merging a scan response: complete name wins, lists joined without duplicates")
    func merging() {
        let adv = AdvertisingData(decoding: [0x02, 0x01, 0x06, 0x03, 0x08, 0x50, 0x6F, 0x03, 0x02, 0x0D, 0x18][...])
        let rsp = AdvertisingData(decoding: [0x0A, 0x09, 0x50, 0x6F, 0x6C, 0x61, 0x72, 0x20, 0x48, 0x31, 0x30,
                                             0x05, 0x03, 0x0D, 0x18, 0x0F, 0x18, 0x02, 0x0A, 0xFC][...])
        let merged = adv.merged(with: rsp)
        #expect(merged.localName == "Polar H10")
        #expect(!merged.isShortenedName)
        #expect(merged.serviceUUIDs == [BluetoothUUID(uint16: 0x180D), BluetoothUUID(uint16: 0x180F)])
        #expect(merged.txPowerLevel == -4)
        #expect(merged.flags == [.leGeneralDiscoverableMode, .brEDRNotSupported])
        #expect(merged.structures.count == 6)
        #expect(merged.problem == nil)
        let broken = adv.merged(with: AdvertisingData(decoding: [0x05, 0x09][...]))
        #expect(broken.problem == "scan response: Complete Local Name at byte 0: Length 5 overruns the data (1 byte(s) left)")
    }

    @Test("AD type names")
    func typeNames() {
        for raw in UInt8(0x01)...0x30 where raw != 0x13 {
            #expect(ADType(raw).specName != nil, "\(hex(raw))")
        }
        #expect(ADType(0x13).name == "Unknown (0x13)")
        #expect(ADType(0x3D).name == "3D Information Data")
        #expect(ADType(0xFF).name == "Manufacturer Specific Data")
        #expect(ADType(0x16).name == "Service Data - 16-bit UUID")
        #expect(ADType(0x80).name == "Unknown (0x80)")
    }

    @Test("fields for verbose output")
    func fields() {
        let ad = AdvertisingData(decoding: Self.fixtures[6].bytes[...])
        #expect(ad.fields.map { "\($0.0): \($0.1)" } == [
            "Flags: 0x06 LE General Discoverable Mode, BR/EDR Not Supported",
            "Complete Local Name: \"Polar H10\"",
            "Complete List of 16-bit Service Class UUIDs: 180D",
            "Manufacturer Specific Data: 0x006B Polar Electro OY: 7208",
        ])
    }

    /// A local name padded with NULs to a fixed size (CSS Part A 1.2: UTF-8, no terminator), as
    /// android-lock-pairing.btsnoop frame 404 carries it and Wireshark shows it (`SX70`): the
    /// verbose field counts the padding and never prints the NUL bytes.
    @Test("verbose field of a NUL-padded local name", arguments: [UInt8(0x08), 0x09, 0x30])
    func paddedName(type: UInt8) {
        // 09 <type> 53 58 37 30 00 00 00 00   "SX70" + 4 NULs
        let ad = AdvertisingData(decoding: [0x09, type, 0x53, 0x58, 0x37, 0x30, 0x00, 0x00, 0x00, 0x00])
        #expect(ad.fields.map(\.1) == ["\"SX70\" (4 NUL byte(s) of padding)"])
        // 05 <type> 53 58 37 30   no padding: nothing added
        #expect(AdvertisingData(decoding: [0x05, type, 0x53, 0x58, 0x37, 0x30]).fields.map(\.1) == ["\"SX70\""])
    }

    @Test("100k seeded random inputs: never traps; the structures re-encode to the bytes they came from")
    func fuzz() {
        var rng = SplitMix64(seed: 0xAD_DA7A)
        var clean = 0
        for _ in 0..<100_000 {
            var input: [UInt8] = []
            // Mostly plausible structures (length, a real-ish type, data), sometimes raw noise.
            if rng.next() % 4 == 0 {
                input = rng.bytes(Int(rng.next() % 40))
            } else {
                for _ in 0..<Int(rng.next() % 5) {
                    let length = Int(rng.next() % 8)
                    input.append(UInt8(length))
                    input += [UInt8(rng.next() % 0x32)] + rng.bytes(max(0, length - 1 + Int(rng.next() % 3) - 1))
                }
            }
            let ad = AdvertisingData(decoding: input[...])
            _ = (ad.summary, ad.fields, ad.flags, ad.serviceUUIDs, ad.localName, ad.txPowerLevel, ad.appearance)
            _ = (ad.manufacturerData.count, ad.serviceData.count, ad.solicitedServiceUUIDs, ad.advertisingInterval)
            _ = (ad.peripheralConnectionIntervalRange?.min, ad.publicTargetAddresses, ad.randomTargetAddresses)
            _ = (ad.leRole, ad.uri, ad.classOfDevice, ad.merged(with: ad).summary)
            let encoded = ad.encoded()
            #expect(Array(input.prefix(encoded.count)) == encoded)
            if ad.problem == nil && ad.paddingLength == 0 {
                clean += 1
                #expect(encoded == input)
            }
        }
        #expect(clean > 10_000)
    }
}
