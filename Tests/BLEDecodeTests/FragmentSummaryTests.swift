import Testing
import BLECore
@testable import BLEDecode

/// The ACL fragment summary is written in one pass (issue 12: most records of a
/// notification-heavy capture are fragments). It must read exactly as the interpolated text
/// it replaced, for both directions, start and continuation, with and without the L2CAP length.
@Suite("ACL fragment summaries")
struct FragmentSummaryTests {
    @Test func onePassTextEqualsTheInterpolatedText() {
        let counts = [0, 1, 9, 10, 27, 99, 100, 247, 999, 1000, 65535, 65539, Int.max, -1, Int.min]
        for direction in [Direction.sent, .received, .unknown] {
            let prefix = Fmt.prefix(direction)
            for start in [true, false] {
                for received in counts {
                    for expected in [nil] + counts {
                        let interpolated = expected.map {
                            "\(prefix)ACL fragment (\(start ? "start" : "continuation"), \(received) of \($0) bytes)"
                        } ?? "\(prefix)ACL fragment (\(start ? "start" : "continuation"), \(received) bytes)"
                        #expect(Fmt.fragmentSummary(prefix: prefix, start: start, received: received, expected: expected)
                                == interpolated)
                    }
                }
            }
        }
    }

    /// Through the decoder: a 3-fragment notification's first two records.
    @Test func decoderNamesFragmentsAsBefore() {
        var decoder = PacketDecoder()
        _ = decoder.decode(Rec.leConnectionComplete(handle: 0x0040))
        // L2CAP 1E 00 (30 bytes) 04 00 (ATT) | 1B 2A 00 notification of handle 0x002A | 27 value bytes
        let pdu: [UInt8] = [0x1E, 0x00, 0x04, 0x00, 0x1B, 0x2A, 0x00] + (0..<27).map { UInt8($0) }
        let first = decoder.decode(Rec.acl(.sent, handle: 0x0040, pb: 0b00, Array(pdu[0..<20])))
        let second = decoder.decode(Rec.acl(.sent, handle: 0x0040, pb: 0b01, Array(pdu[20..<30])))
        #expect(first.summary == "Sent ACL fragment (start, 20 of 34 bytes)")
        #expect(second.summary == "Sent ACL fragment (continuation, 30 of 34 bytes)")
    }
}
