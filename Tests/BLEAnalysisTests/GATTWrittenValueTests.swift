import Testing
import BLECore
import BLEDecode
@testable import BLEAnalysis

/// The value a reconstructed characteristic shows after writes: a long write (Prepare Write
/// Requests then Execute Write, Core v5.4 Vol 3 Part G 4.9.4, Part F 3.4.6) is the value; a
/// cancelled queue (Execute Write flags 0x00) and a write the server refused (Error Response,
/// Part F 3.4.1.1) change nothing. Bumble's GATT client writes any value longer than MTU - 3 this
/// way; the timeline had shown the value read before the long write.
@Suite("GATT values after writes")
struct GATTWrittenValueTests {
    static func database(_ steps: [(Bool, [UInt8])]) -> GATTDatabase {
        var r = GATTReconstructor()
        for (i, (sent, bytes)) in steps.enumerated() {
            r.add(StoredATTPDU(packetID: i + 1, timestamp: Int64(i + 1), direction: sent ? .sent : .received,
                               opcode: ATTOpcode(bytes[0]), pdu: try? ATTPDU(decoding: bytes[...]), bytes: bytes))
        }
        return r.database(.remote)
    }

    /// Read 0x0013 -> 01 02 03 (Read Request 0A, Read Response 0B).
    static let read: [(Bool, [UInt8])] = [(true, [0x0A, 0x13, 0x00]), (false, [0x0B, 0x01, 0x02, 0x03])]

    /// Prepare Write Request 16 | handle 0x0013 | offset | part, echoed by Prepare Write Response 17.
    static func prepare(_ offset: UInt8, _ part: [UInt8]) -> [(Bool, [UInt8])] {
        [(true, [0x16, 0x13, 0x00, offset, 0x00] + part), (false, [0x17, 0x13, 0x00, offset, 0x00] + part)]
    }

    @Test func aLongWriteIsTheValueOnceExecuted() {
        let parts = Self.prepare(0, [0xA0, 0xA1, 0xA2]) + Self.prepare(3, [0xB0, 0xB1]) + Self.prepare(5, [0xC0])
        // Before the Execute Write the server has only queued the parts.
        let queued = Self.database(Self.read + parts)
        #expect(queued.values[0x13]?.bytes == [0x01, 0x02, 0x03])
        // Execute Write Request 18 | flags 0x01 (write all), Execute Write Response 19.
        let g = Self.database(Self.read + parts + [(true, [0x18, 0x01]), (false, [0x19])])
        #expect(g.values[0x13]?.bytes == [0xA0, 0xA1, 0xA2, 0xB0, 0xB1, 0xC0])
        #expect(g.values[0x13]?.source == "write")
        #expect(g.values[0x13]?.packetID == 9)
    }

    @Test func aCancelledQueueWritesNothing() {
        // Execute Write Request flags 0x00 (cancel all), answered; then a later execute has nothing queued.
        let g = Self.database(Self.read + Self.prepare(0, [0xA0]) + [(true, [0x18, 0x00]), (false, [0x19]),
                                                                      (true, [0x18, 0x01]), (false, [0x19])])
        #expect(g.values[0x13]?.bytes == [0x01, 0x02, 0x03])
        #expect(g.values[0x13]?.source == "read")
    }

    @Test func aRefusedExecuteWritesNothing() {
        // Error Response 01 | Execute Write Request 18 | handle 0x0013 | 0x0D Invalid Attribute Value Length.
        let g = Self.database(Self.read + Self.prepare(0, [0xA0]) + [(true, [0x18, 0x01]), (false, [0x01, 0x18, 0x13, 0x00, 0x0D])])
        #expect(g.values[0x13]?.bytes == [0x01, 0x02, 0x03])
    }

    @Test func aRefusedWriteRequestIsNotTheValue() {
        // Write Request 12 | 0x0013 | 09, answered with Error Response 01 | 12 | 0x0013 | 0x03 Write Not Permitted.
        let refused = Self.database(Self.read + [(true, [0x12, 0x13, 0x00, 0x09]), (false, [0x01, 0x12, 0x13, 0x00, 0x03])])
        #expect(refused.values[0x13]?.bytes == [0x01, 0x02, 0x03])
        // Answered with Write Response 13: written.
        let written = Self.database(Self.read + [(true, [0x12, 0x13, 0x00, 0x09]), (false, [0x13])])
        #expect(written.values[0x13]?.bytes == [0x09])
        #expect(written.values[0x13]?.packetID == 3)
    }
}
