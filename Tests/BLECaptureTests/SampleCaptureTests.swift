import BLECapture
import BLECore
import Testing

/// Each small hand-written capture decodes to exactly the fields its bytes spell.
@Suite("Sample captures")
struct SampleCaptureTests {
    static let t0: Int64 = 1_700_000_000_000_000

    @Test("every sample reads completely, offsets as written", arguments: SampleCaptures.all)
    func readsCompletely(_ sample: SampleCapture) {
        let result = readAll(bytes: sample.bytes)
        #expect(result.error == nil)
        #expect(result.warnings.isEmpty)
        #expect(result.info?.format == sample.format)
        #expect(result.records.map(\.fileOffset) == sample.records.map(\.offset))
        #expect(result.records.map(\.frameNumber) == Array(1...sample.records.count))
        #expect(result.bytesRead == sample.bytes.count)
    }

    @Test("btsnoop H4 records")
    func btsnoopH4() throws {
        let result = readAll(bytes: SampleCaptures.btsnoopH4.bytes)
        #expect(result.info?.formatDescription == "btsnoop v1, HCI UART (H4) datalink 1002")
        let r = result.records
        try #require(r.count == 3)
        #expect(r[0].kind == .command && r[0].direction == .sent && r[0].payload == [0x03, 0x0C, 0x00])
        #expect(r[0].timestamp == Self.t0 && r[0].rawType == 1 && r[0].originalLength == 4)
        #expect(r[1].kind == .event && r[1].direction == .received && r[1].timestamp == Self.t0 + 1000)
        #expect(r[2].kind == .acl && r[2].direction == .received && r[2].cumulativeDrops == 5)
        #expect(r[2].payload == [0x40, 0x20, 0x07, 0x00, 0x03, 0x00, 0x04, 0x00, 0x0B, 0x01, 0x02])
        #expect(r[2].timestamp == Self.t0 + 2500)
    }

    @Test("btsnoop monitor notes become text, controller index from the flags")
    func btsnoopMonitor() throws {
        let result = readAll(bytes: SampleCaptures.btsnoopMonitor.bytes)
        #expect(result.info?.formatDescription == "btsnoop v1, Linux monitor datalink 2001")
        let r = result.records
        try #require(r.count == 3)
        #expect(r[0].kind == .note && r[0].rawType == 12 && r[0].controllerIndex == 0xFFFF)
        #expect(r[0].payload == Array("hi".utf8) && r[0].originalLength == 3)
        #expect(r[1].kind == .note && r[1].rawType == 13 && r[1].payload == Array("test: msg".utf8))
        #expect(r[2].kind == .command && r[2].direction == .sent && r[2].controllerIndex == 1)
        #expect(r[2].payload == [0x03, 0x0C, 0x00] && r[2].rawType == 2)
    }

    @Test("PacketLogger in both byte orders gives the same records",
          arguments: [SampleCaptures.packetLoggerLE, SampleCaptures.packetLoggerBE])
    func packetLogger(_ sample: SampleCapture) throws {
        let result = readAll(bytes: sample.bytes)
        let endian = sample.name == "pklg-le" ? "little" : "big"
        #expect(result.info?.formatDescription == "PacketLogger, \(endian)-endian record headers")
        let r = result.records
        try #require(r.count == 3)
        #expect(r[0].kind == .note && r[0].payload == Array("Hello".utf8) && r[0].rawType == 0xFC)
        #expect(r[0].timestamp == Self.t0 + 250 && r[0].direction == .unknown)
        #expect(r[1].kind == .command && r[1].direction == .sent && r[1].payload == [0x03, 0x0C, 0x00])
        #expect(r[1].originalLength == 4 && r[1].timestamp == Self.t0 + 1250)
        #expect(r[2].kind == .event && r[2].direction == .received && r[2].rawType == 1)
    }

    @Test("pcap 201, 187, 254 and pcapng 201")
    func pcap() throws {
        let phdr = readAll(bytes: SampleCaptures.pcapH4WithPHDR.bytes)
        #expect(phdr.info?.formatDescription == "pcap, LINKTYPE_BLUETOOTH_HCI_H4_WITH_PHDR (201)")
        #expect(phdr.records.map(PacketView.init) == [
            PacketView(CaptureRecord(frameNumber: 1, timestamp: Self.t0, direction: .sent, kind: .command,
                                     payload: [0x03, 0x0C, 0x00], fileOffset: 24)),
            PacketView(CaptureRecord(frameNumber: 2, timestamp: Self.t0 + 1000, direction: .received, kind: .event,
                                     payload: [0x0E, 0x04, 0x01, 0x03, 0x0C, 0x00], fileOffset: 48)),
        ])
        #expect(phdr.records.map(\.originalLength) == [4, 7])

        let ng = readAll(bytes: SampleCaptures.pcapngH4WithPHDR.bytes)
        #expect(ng.info?.format == .pcapng && ng.info?.linkType == 201)
        #expect(ng.records.map(PacketView.init) == phdr.records.map(PacketView.init))

        let h4 = readAll(bytes: SampleCaptures.pcapH4.bytes).records
        try #require(h4.count == 2)
        #expect(h4[0].kind == .command && h4[0].direction == .sent)  // inferred: commands go out
        #expect(h4[1].kind == .acl && h4[1].direction == .unknown)

        let monitor = readAll(bytes: SampleCaptures.pcapMonitor.bytes).records
        #expect(monitor.map(\.kind) == [.command, .event])
        #expect(monitor.map(\.rawType) == [2, 3])
        #expect(monitor.map(\.direction) == [.sent, .received])
        #expect(monitor[1].payload == [0x0E, 0x04, 0x01, 0x03, 0x0C, 0x00])
    }

    @Test("pcap from a file and from memory agree, offsets from ftell")
    func pcapFileAndMemory() throws {
        let directory = try makeTemporaryDirectory()
        defer { removeDirectory(directory) }
        for sample in [SampleCaptures.pcapH4WithPHDR, SampleCaptures.pcapngH4WithPHDR] {
            let path = directory + "/" + sample.name + ".log"  // the name says nothing
            try writeFile(path, sample.bytes)
            let fromFile = readAll(path: path)
            #expect(fromFile.records.map { RecordView(record: $0, includeOffsets: true) }
                == readAll(bytes: sample.bytes).records.map { RecordView(record: $0, includeOffsets: true) })
            #expect(fromFile.records.map(\.fileOffset) == sample.records.map(\.offset))
        }
    }

    @Test("H1 (1001): flags say command/event or ACL")
    func btsnoopH1() throws {
        // file header, datalink 1001; one record: original 3, included 3, flags 2 (sent, command), drops 0, time
        let bytes: [UInt8] = Array("btsnoop\0".utf8) + .be32(1) + .be32(1001)
            + .be32(3) + .be32(3) + .be32(2) + .be32(0) + .be64(0x00E2_E7D7_274D_C000) + [0x03, 0x0C, 0x00]
            // original 6, included 6, flags 3 (received, event) | Command Complete without its H4 byte
            + .be32(6) + .be32(6) + .be32(3) + .be32(0) + .be64(0x00E2_E7D7_274D_C000) + [0x0E, 0x04, 0x01, 0x03, 0x0C, 0x00]
            // original 4, included 4, flags 0 (sent, data) | ACL header only
            + .be32(4) + .be32(4) + .be32(0) + .be32(0) + .be64(0x00E2_E7D7_274D_C000) + [0x40, 0x00, 0x00, 0x00]
        let result = readAll(bytes: bytes)
        #expect(result.info?.formatDescription == "btsnoop v1, unencapsulated HCI (H1) datalink 1001")
        #expect(result.records.map(\.kind) == [.command, .event, .acl])
        #expect(result.records.map(\.direction) == [.sent, .received, .sent])
        #expect(result.records[1].payload == [0x0E, 0x04, 0x01, 0x03, 0x0C, 0x00])
    }
}
