import BLECore
import Testing
@testable import BLEDecode

@Suite("PacketDecoder")
struct PacketDecoderTests {
    @Test func noteRecordsKeepTheirText() {
        var decoder = PacketDecoder()
        let text = Array("  Bluetooth daemon 5.66\n\0".utf8)
        let p = decoder.decode(Rec.make(.note, .unknown, text))
        #expect(p.layer == .note)
        #expect(p.summary == "Bluetooth daemon 5.66")
        // invalid UTF-8 is replaced, control characters become spaces
        let q = decoder.decode(Rec.make(.note, .unknown, [0x41, 0xFF, 0x09, 0x42]))
        #expect(q.summary == "A\u{FFFD} B")
    }

    @Test func otherScoAndIsoRecords() {
        var decoder = PacketDecoder()
        var other = Rec.make(.other, .unknown, [1, 2, 3])
        other.rawType = 0xFD
        let o = decoder.decode(other)
        #expect(o.layer == .other && o.summary == "Other record (type 0x00FD, 3 bytes)")
        // SCO: 06 00 handle 0x0006 | 03 length | 3 bytes
        let sco = decoder.decode(Rec.make(.sco, .sent, hx("06 00 03 AA BB CC")))
        #expect(sco.summary == "Sent SCO handle 0x0006, 3 bytes" && sco.layer == .hci && sco.problems.isEmpty)
        // ISO: 60 20 handle 0x0060 PB 0b10 | 02 00 length | 2 bytes
        let iso = decoder.decode(Rec.make(.iso, .received, hx("60 20 02 00 AA BB")))
        #expect(iso.summary == "Rcvd ISO handle 0x0060, 2 bytes" && iso.problems.isEmpty)
        // Length disagreements and short headers
        #expect(decoder.decode(Rec.make(.sco, .sent, hx("06 00 09 AA"))).problems.count == 1)
        #expect(decoder.decode(Rec.make(.iso, .sent, hx("60"))).summary == "Sent ISO (malformed: header cut short)")
    }

    @Test func droppedPacketsAreReportedOnceEach() {
        var decoder = PacketDecoder()
        let a = decoder.decode(Rec.make(.event, .received, hx("FF 00"), drops: 0))
        #expect(a.events.isEmpty)
        let b = decoder.decode(Rec.make(.event, .received, hx("FF 00"), drops: 3))
        if case .dropped(let n)? = b.events.first { #expect(n == 3) } else { Issue.record("no drop event") }
        let c = decoder.decode(Rec.make(.event, .received, hx("FF 00"), drops: 3))
        #expect(c.events.isEmpty)
        let d = decoder.decode(Rec.make(.event, .received, hx("FF 00"), drops: 5))
        if case .dropped(let n)? = d.events.first { #expect(n == 2) } else { Issue.record("no drop event") }
    }

    @Test func payloadOffsetOptionMovesErrorOffsets() {
        var decoder = PacketDecoder(options: DecoderOptions(payloadOffsetInRecord: 13))
        let p = decoder.decode(Rec.evt(hx("05 04 00 40 00")))
        #expect(p.problems.first?.offset == Rec.fileOffset + 13 + 5)
    }

    /// 100,000 records of random bytes, every kind and direction: the decoder must not trap,
    /// must keep returning packets with summaries, and its state must stay bounded.
    @Test func randomBytesNeverCrash() {
        var rng = SplitMix64(seed: 0x5EED_B1E5)
        var decoder = PacketDecoder()
        let kinds = PacketKind.allCases
        let directions: [Direction] = [.sent, .received, .unknown]
        var problems = 0, emptySummaries = 0
        for i in 0..<100_000 {
            let kind = kinds[Int(rng.next() % UInt64(kinds.count))]
            let length = Int(rng.next() % 80)
            var bytes = (0..<length).map { _ in UInt8(truncatingIfNeeded: rng.next()) }
            // Bias toward plausible headers so deeper layers are reached.
            if kind == .acl, bytes.count >= 4 {
                bytes[0] = UInt8(rng.next() % 4)   // handles 0x0000-0x0003
                bytes[1] = bytes[1] & 0x30
                if rng.next() % 2 == 0 { bytes[2] = UInt8(bytes.count - 4); bytes[3] = 0 }
                if bytes.count >= 8, rng.next() % 2 == 0 {
                    bytes[4] = UInt8(truncatingIfNeeded: rng.next() % 40); bytes[5] = 0
                    bytes[6] = [0x04, 0x05, 0x06, 0x01, 0x40][Int(rng.next() % 5)]; bytes[7] = 0
                }
            }
            if kind == .event, bytes.count >= 2 {
                if rng.next() % 2 == 0 { bytes[0] = 0x3E }
                if rng.next() % 2 == 0 { bytes[1] = UInt8(bytes.count - 2) }
            }
            if kind == .command, bytes.count >= 3, rng.next() % 2 == 0 { bytes[2] = UInt8(bytes.count - 3) }
            var record = Rec.make(kind, directions[Int(rng.next() % 3)], bytes, drops: UInt32(i / 1000))
            record.fileOffset = i * 100
            let p = decoder.decode(record)
            problems += p.problems.count
            if p.summary.isEmpty && kind != .note { emptySummaries += 1 }
        }
        #expect(problems > 0)
        #expect(emptySummaries == 0)
        #expect(decoder.reassembler.states.count <= 0x0F00 * 3)
        _ = decoder.finish()
        #expect(decoder.reassembler.isEmpty)
    }

    /// Large reassemblies stay bounded: a start announcing 65,535 bytes followed by far more.
    @Test func reassemblyIsBounded() {
        var decoder = PacketDecoder()
        _ = decoder.decode(Rec.leConnectionComplete(handle: 0x0040))
        _ = decoder.decode(Rec.acl(.received, handle: 0x0040, pb: 0b10, hx("FF FF 40 00") + [UInt8](repeating: 0, count: 1000)))
        var done: DecodedPacket?
        for _ in 0..<70 {
            let p = decoder.decode(Rec.acl(.received, handle: 0x0040, pb: 0b01, [UInt8](repeating: 1, count: 1000)))
            if !p.events.isEmpty || p.layer != .acl { done = p; break }
        }
        #expect(done?.summary == "Rcvd L2CAP LE CoC data CID 0x0040, 65535 bytes")
        #expect(done?.problems.count == 1)
        #expect(decoder.reassembler.isEmpty)
    }
}
