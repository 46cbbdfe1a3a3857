import BLECore
import Testing
@testable import BLECapture

/// btsnoop files whose header says datalink 1001 (unencapsulated HCI, H1) while their records
/// start with an H4 packet-type byte, as some writers label H4 data (`MislabelledH4Check`):
/// read as H4 with a note, while genuine H1 files, even those whose packets start with 0x01,
/// 0x02 or 0x04, stay H1.
@Suite("btsnoop 1001 holding H4 packets")
struct MislabelledH4Tests {
    /// A btsnoop v1 file: "btsnoop\0", version 1, `datalink`, then one record per packet, 1 ms
    /// apart from 1,700,000,000 s (REFERENCE.md "btsnoop": original length, included length,
    /// flags, drops, timestamp, big-endian). `cut` keeps only that many bytes of the last packet.
    static func btsnoop(datalink: UInt32, _ packets: [(flags: UInt32, body: [UInt8])], cut: Int? = nil) -> [UInt8] {
        var bytes = Array("btsnoop\0".utf8) + .be32(1) + .be32(datalink)
        for (i, p) in packets.enumerated() {
            let kept = i == packets.count - 1 ? Array(p.body.prefix(cut ?? p.body.count)) : p.body
            let stamp = UInt64(1_700_000_000_000_000 + 1_000 * i) + 0x00DC_DDB3_0F2F_8000
            bytes += .be32(UInt32(p.body.count)) + .be32(UInt32(kept.count)) + .be32(p.flags) + .be32(0) + .be64(stamp) + kept
        }
        return bytes
    }

    /// H4 packets (Core v5.4 Vol 4 Part E 5.4), with the flags an H4 btsnoop writer gives them.
    static let h4Packets: [(flags: UInt32, body: [UInt8])] = [
        // sent command: 01 | opcode 0x0C03 HCI_Reset, length 0
        (2, [0x01, 0x03, 0x0C, 0x00]),
        // received event: 04 | 0E Command Complete, length 4: 1 packet, opcode 0x0C03, status 0
        (3, [0x04, 0x0E, 0x04, 0x01, 0x03, 0x0C, 0x00]),
        // sent command: 01 | opcode 0x2006 LE Set Advertising Parameters, length 15 (interval
        // 0x0800 twice, type 0, own 0, peer 0 and address 0, channels 7, filter 0)
        (2, [0x01, 0x06, 0x20, 0x0F, 0x00, 0x08, 0x00, 0x08, 0x00, 0x00, 0x00,
             0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x07, 0x00]),
        // received ACL: 02 | handle 0x040 PB 10, length 7 | L2CAP length 3, CID 4 | ATT Read Response 01 02
        (1, [0x02, 0x40, 0x20, 0x07, 0x00, 0x03, 0x00, 0x04, 0x00, 0x0B, 0x01, 0x02]),
        // received ISO: 05 | handle 0x060 PB 10, length 5 (14 bits) | 5 bytes of SDU
        (1, [0x05, 0x60, 0x20, 0x05, 0x00, 0x0A, 0x0B, 0x0C, 0x0D, 0x0E]),
    ]

    /// The same packets as an H1 writer writes them: no type byte (ISO has no H1 form).
    static let h1Packets = h4Packets.dropLast().map { (flags: $0.flags, body: Array($0.body.dropFirst())) }

    @Test func h4PacketsLabelled1001AreReadAsH4WithANote() throws {
        let labelled = readAll(bytes: Self.btsnoop(datalink: 1001, Self.h4Packets))
        let genuine = readAll(bytes: Self.btsnoop(datalink: 1002, Self.h4Packets))
        #expect(labelled.error == nil && labelled.warnings.isEmpty)
        #expect(labelled.records.map(PacketView.init) == genuine.records.map(PacketView.init))
        #expect(labelled.records.map(\.kind) == [.command, .event, .command, .acl, .iso])
        #expect(labelled.records.map(\.rawType) == [1, 4, 1, 2, 5])
        #expect(labelled.records[2].payload.prefix(3) == [0x06, 0x20, 0x0F])
        #expect(labelled.info?.linkType == 1002)
        #expect(labelled.info?.formatDescription
            == "btsnoop v1, unencapsulated HCI (H1) datalink 1001 in the header, records read as HCI UART (H4) datalink 1002")
        var reader = try CaptureFile.open(source: MemorySource(Self.btsnoop(datalink: 1001, Self.h4Packets)))
        while try reader.next() != nil {}
        let note = try #require(reader.notes.first)
        #expect(reader.notes.count == 1 && reader.warnings.isEmpty)
        #expect(note.offset == 16)
        #expect(note.message.contains("records start with an H4 packet-type byte (5 of the first 5 records"))
        #expect(note.message.contains("read as datalink 1002"))
    }

    @Test func genuineH1IsReadAsH1() throws {
        var reader = try CaptureFile.open(source: MemorySource(Self.btsnoop(datalink: 1001, Self.h1Packets)))
        var records: [CaptureRecord] = []
        while let r = try reader.next() { records.append(r) }
        #expect(reader.notes.isEmpty && reader.info.linkType == 1001)
        #expect(records.map(\.kind) == [.command, .event, .command, .acl])
        #expect(records.map(\.payload) == Self.h1Packets.map(\.body))
    }

    /// Genuine H1 packets chosen so each also reads as a well-formed H4 packet: the first byte
    /// is the H4 type the flags announce and the header after it gives the record's length.
    /// Every record fits H1 too, so the file is H1.
    static let h1LookingLikeH4: [(flags: UInt32, body: [UInt8])] = [
        // sent command 0x0C01 Set Event Mask, length 8, mask 07 00.. (as H4: type 01, opcode
        // 0x080C, length 7: 1 + 3 + 7 = 11 bytes, the record's length)
        (2, [0x01, 0x0C, 0x08, 0x07, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00]),
        // received event 0x04 Connection Request, length 10: BD_ADDR 09 11 22 33 44 55, class
        // 00 00 00, link type 01 (as H4: type 04, event 0x0A, length 9: 1 + 2 + 9 = 12)
        (3, [0x04, 0x0A, 0x09, 0x11, 0x22, 0x33, 0x44, 0x55, 0x00, 0x00, 0x00, 0x01]),
        // received ACL handle 0x002 PB 10, length 1, one byte 00 (as H4: type 02, handle
        // 0x120, length 0x0000: 1 + 4 + 0 = 5)
        (1, [0x02, 0x20, 0x01, 0x00, 0x00]),
        // sent ACL handle 0x002 PB 00, length 1, one byte 00 (as H4 likewise)
        (0, [0x02, 0x00, 0x01, 0x00, 0x00]),
    ]

    @Test func genuineH1WhosePacketsStartWithH4TypesStaysH1() throws {
        for count in 1...Self.h1LookingLikeH4.count {
            let packets = Array(Self.h1LookingLikeH4.prefix(count))
            var reader = try CaptureFile.open(source: MemorySource(Self.btsnoop(datalink: 1001, packets)))
            var records: [CaptureRecord] = []
            while let r = try reader.next() { records.append(r) }
            #expect(reader.notes.isEmpty && reader.info.linkType == 1001)
            #expect(records.map(\.payload) == packets.map(\.body))
            #expect(records.map(\.rawType) == [1, 4, 2, 2].prefix(count).map(UInt16.init))
        }
        // Each of them does read as H4 on its own: the check is not judging one record.
        var check = MislabelledH4Check()
        for p in Self.h1LookingLikeH4 {
            p.body.withUnsafeBytes { check.look(flags: p.flags, originalLength: p.body.count, body: $0) }
        }
        #expect(check.fitH4 == 4 && check.fitH1 == 4 && !check.recordsStartWithH4Type)
    }

    /// One record decides nothing: a lone H4 packet in a 1001 file is read as the header says.
    @Test func oneRecordIsNotEnoughToOverruleTheHeader() {
        let one = readAll(bytes: Self.btsnoop(datalink: 1001, Array(Self.h4Packets.prefix(1))))
        #expect(one.info?.linkType == 1001)
        #expect(one.records.map(\.payload) == [[0x01, 0x03, 0x0C, 0x00]])
        let two = readAll(bytes: Self.btsnoop(datalink: 1001, Array(Self.h4Packets.prefix(2))))
        #expect(two.info?.linkType == 1002)
        #expect(two.records.map(\.payload) == [[0x03, 0x0C, 0x00], [0x0E, 0x04, 0x01, 0x03, 0x0C, 0x00]])
    }

    /// Android writes its log while it runs: a cut last record is still a truncation warning, and
    /// cut records (included < original) are judged by their original length.
    @Test func aCutLastRecordStillDecidesAndWarns() throws {
        let bytes = Self.btsnoop(datalink: 1001, Self.h4Packets, cut: 5)
        let result = readAll(bytes: Array(bytes.dropLast(1)))
        #expect(result.info?.linkType == 1002)
        #expect(result.records.count == 4)
        #expect(result.warnings.count == 1)
        // A record its writer cut to type byte and header (original 10, included 5) still fits H4.
        let snapped = readAll(bytes: bytes)
        #expect(snapped.info?.linkType == 1002 && snapped.records.count == 5)
        #expect(snapped.records.last?.kind == .iso && snapped.records.last?.originalLength == 10)
    }

    /// A file labelled 1001 of something else (monitor records, say) fits neither and stays H1.
    @Test func recordsThatFitNeitherStayH1() {
        let monitor = SampleCaptures.btsnoopMonitor.bytes
        let relabelled = Array(monitor[0..<12]) + .be32(1001) + Array(monitor[16...])
        let result = readAll(bytes: relabelled)
        #expect(result.info?.linkType == 1001)
        #expect(result.records.count == 3)
    }
}
