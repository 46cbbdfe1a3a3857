import BLECapture
import BLECore
import Testing

/// The real captures in ../shared/captures, checked against tshark 4.0.17 (captures/MANIFEST.md
/// `packets` column; first and last `frame.time_epoch` from `tshark -T fields`).
@Suite("Real captures")
struct RealCaptureTests {
    struct Expected: Sendable, CustomStringConvertible {
        var name: String
        var format: CaptureFormat
        var linkType: UInt32
        var packets: Int
        var firstTimestamp: Int64
        var lastTimestamp: Int64
        var description: String { name }
    }

    static let hciCaptures: [Expected] = [
        Expected(name: "android-classic-spp.btsnoop", format: .btsnoop, linkType: 1002, packets: 16928,
                 firstTimestamp: 1_786_230_203_814_168, lastTimestamp: 1_786_233_586_650_587),
        Expected(name: "android-lock-long-session.btsnoop", format: .btsnoop, linkType: 1002, packets: 10931,
                 firstTimestamp: 1_737_823_981_731_662, lastTimestamp: 1_737_824_290_155_942),
        Expected(name: "android-lock-pairing.btsnoop", format: .btsnoop, linkType: 1002, packets: 1235,
                 firstTimestamp: 1_735_570_834_608_918, lastTimestamp: 1_735_571_257_944_231),
        Expected(name: "android-pongbot.btsnoop", format: .btsnoop, linkType: 1002, packets: 1741,
                 firstTimestamp: 1_773_956_668_995_647, lastTimestamp: 1_773_957_869_791_674),
        Expected(name: "android-yeelock.btsnoop", format: .btsnoop, linkType: 1002, packets: 690,
                 firstTimestamp: 1_552_223_479_707_800, lastTimestamp: 1_552_224_446_997_905),
        Expected(name: "btmon-monitor.btsnoop", format: .btsnoop, linkType: 2001, packets: 369,
                 firstTimestamp: 1_696_582_345_843_740, lastTimestamp: 1_696_582_367_610_209),
        Expected(name: "ios-glasses.pklg", format: .packetLogger, linkType: 0, packets: 1134,
                 firstTimestamp: 1_784_912_406_257_000, lastTimestamp: 1_785_278_734_976_032),
        Expected(name: "ios-glasses-app-control.pklg", format: .packetLogger, linkType: 0, packets: 899,
                 firstTimestamp: 1_784_912_406_257_000, lastTimestamp: 1_785_798_931_863_000),
        Expected(name: "scale-h4-phdr.pcap", format: .pcap, linkType: 201, packets: 833,
                 firstTimestamp: 1_611_538_410_620_354, lastTimestamp: 1_611_538_537_766_225),
        Expected(name: "smartwatch-h4-phdr.pcapng", format: .pcapng, linkType: 201, packets: 810,
                 firstTimestamp: 1_617_562_152_723_014, lastTimestamp: 1_617_562_355_294_912),
    ]

    @Test("record count, frame numbers and first/last timestamps match tshark", arguments: hciCaptures)
    func countsAndTimestamps(_ expected: Expected) throws {
        let result = readAll(path: TestFiles.capture(expected.name))
        #expect(result.error == nil)
        #expect(result.warnings.isEmpty)
        let info = try #require(result.info)
        #expect(info.format == expected.format)
        #expect(info.linkType == expected.linkType)
        #expect(result.records.count == expected.packets)
        #expect(result.records.first?.timestamp == expected.firstTimestamp)
        #expect(result.records.last?.timestamp == expected.lastTimestamp)
        #expect(result.records.map(\.frameNumber) == Array(1...expected.packets))
        let offsets = result.records.map(\.fileOffset)
        #expect(zip(offsets, offsets.dropFirst()).allSatisfy { $0 < $1 })
    }

    @Test("every byte is consumed", arguments: hciCaptures)
    func bytesRead(_ expected: Expected) throws {
        let path = TestFiles.capture(expected.name)
        let result = readAll(path: path)
        #expect(result.bytesRead == (try readFile(path)).count)
    }

    /// `tshark -T fields -e hci_h4.type -e hci_h4.direction | sort | uniq -c`.
    @Test("H4 kinds and directions match tshark")
    func kindsMatchTshark() {
        func histogram(_ name: String) -> [String: Int] {
            var counts: [String: Int] = [:]
            for record in readAll(path: TestFiles.capture(name)).records {
                counts["\(record.kind.rawValue) \(record.direction.rawValue)", default: 0] += 1
            }
            return counts
        }
        #expect(histogram("android-yeelock.btsnoop") == ["cmd tx": 247, "acl tx": 52, "acl rx": 52, "evt rx": 339])
        #expect(histogram("scale-h4-phdr.pcap") == ["cmd tx": 80, "acl tx": 215, "acl rx": 113, "evt rx": 425])
        #expect(histogram("smartwatch-h4-phdr.pcapng") == ["cmd tx": 173, "acl tx": 58, "acl rx": 335, "evt rx": 244])
        // packetlogger.type: 0x00 x90, 0x01 x449, 0x02 x191, 0x03 x303, 0xfc x48, 0xfd x53.
        #expect(histogram("ios-glasses.pklg") == ["cmd tx": 90, "evt rx": 449, "acl tx": 191, "acl rx": 303, "note ?": 101])
    }

    /// android-yeelock frames 1-3 as `tshark -x` shows them (H4 type byte first).
    @Test("first btsnoop records byte for byte")
    func firstRecords() throws {
        let records = readAll(path: TestFiles.capture("android-yeelock.btsnoop")).records
        try #require(records.count > 3)
        // 04 | 0f 04 00 01 00 00: Command Status, status 0, 1 packet, opcode 0x0000
        #expect(records[0].kind == .event && records[0].direction == .received)
        #expect(records[0].payload == [0x0F, 0x04, 0x00, 0x01, 0x00, 0x00])
        #expect(records[0].rawType == 0x04 && records[0].originalLength == 7 && records[0].fileOffset == 16)
        // 01 | 03 0c 00: HCI Reset
        #expect(records[1].kind == .command && records[1].direction == .sent)
        #expect(records[1].payload == [0x03, 0x0C, 0x00])
        #expect(records[1].fileOffset == 16 + 24 + 7)
        // 04 | 0e 04 01 03 0c 00: Command Complete (Reset), status 0
        #expect(records[2].payload == [0x0E, 0x04, 0x01, 0x03, 0x0C, 0x00])
    }

    /// btmon frames 1-7: system notes, new index, open index, index info, control open, user logging.
    @Test("Linux monitor notes and index records")
    func monitorRecords() throws {
        let records = readAll(path: TestFiles.capture("btmon-monitor.btsnoop")).records
        try #require(records.count > 7)
        #expect(records[0].kind == .note && records[0].rawType == 12 && records[0].controllerIndex == 0xFFFF)
        #expect(String(decoding: records[0].payload, as: UTF8.self) == "Linux version 5.15.0-84-generic (x86_64)")
        #expect(records[0].originalLength == 41)
        #expect(records[2].kind == .note && records[2].rawType == 0 && records[2].controllerIndex == 0)
        #expect(records[2].payload.count == 16)  // type, bus, bdaddr, "hci0" name
        #expect(records[3].kind == .note && records[3].rawType == 8 && records[3].payload.isEmpty)
        #expect(records[5].kind == .other && records[5].rawType == 14)
        #expect(records[6].kind == .note && records[6].rawType == 13)
        let text = String(decoding: records[6].payload, as: UTF8.self)
        #expect(text.hasPrefix("bluetoothd: profiles/audio/media.c:register_app() Registeri"))
        #expect(!text.hasSuffix("\0"))
        let kinds = Dictionary(grouping: records, by: \.kind).mapValues(\.count)
        #expect(kinds == [.note: 218, .command: 28, .event: 72, .other: 51])
    }

    @Test("PacketLogger notes keep their text and iPhone timestamps")
    func packetLoggerNotes() throws {
        let result = readAll(path: TestFiles.capture("ios-glasses.pklg"))
        #expect(result.info?.formatDescription == "PacketLogger, little-endian record headers")
        let first = try #require(result.records.first)
        #expect(first.kind == .note && first.rawType == 0xFC && first.fileOffset == 0)
        #expect(String(decoding: first.payload, as: UTF8.self) == "Product: iPhone17,2")
        #expect(first.originalLength == 20)  // tshark frame.len: type byte + payload
    }

    /// Air captures: name, link type, frames (capinfos), frames sent central to peripheral
    /// (tshark `nordic_ble.direction == 1` or `btle_rf.pdu_type == 2`).
    static let airCaptures: [(String, UInt16, Int, Int)] = [
        ("nrf-sniffer-att-deadlock.pcap", 272, 195, 30),
        ("nrf-sniffer-esp32-desync.pcap", 272, 205, 9),
        ("nrf-sniffer-invalid-control.pcapng", 272, 2454, 292),
        ("nrf-sniffer-psoc6-crash.pcapng", 272, 9756, 674),
        ("nrf-sniffer-zero-ltk.pcap", 272, 479, 84),
        ("sniffle-adv-only.pcapng", 256, 15, 0),
        ("sniffle-gatt.pcap", 256, 354, 98),
        ("ubertooth-le-sc-pairing.pcapng", 256, 303, 0),
    ]

    @Test("LE air captures are read frame by frame, whole, with the link type as rawType", arguments: airCaptures)
    func airCapturesRead(_ name: String, _ linkType: UInt16, _ frames: Int, _ centralToPeripheral: Int) {
        let result = readAll(path: TestFiles.capture(name))
        #expect(result.error == nil)
        #expect(result.info?.linkType == UInt32(linkType))
        #expect(result.records.count == frames)
        #expect(result.records.allSatisfy { $0.kind == .other && $0.rawType == linkType && $0.originalLength == $0.payload.count })
        #expect(result.records.filter { $0.direction == .sent }.count == centralToPeripheral)
    }
}
