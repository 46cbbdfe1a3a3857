import Testing
import BLECore
import BLEDecode
@testable import BLEAnalysis

/// Transaction matching on timestamps at the ends of the 64-bit range (issue 17: the latency
/// `response - request` trapped with SIGILL). Latencies saturate; the 30 s rule still applies.
@Suite("ATT transaction matching at extreme timestamps")
struct ExtremeTimestampMatchingTests {
    // 0A 21 00   Read Request, handle 0x0021 | 0B 64   Read Response, value 0x64
    // 1D 2A 00 07   Handle Value Indication | 1E   Handle Value Confirmation
    @Test func latencySaturates() {
        var m = TransactionMatcher()
        m.add(TransactionMatcherTests.pdu(1, .min, .sent, [0x0A, 0x21, 0x00]))
        m.add(TransactionMatcherTests.pdu(2, .max, .received, [0x0B, 0x64]))
        m.add(TransactionMatcherTests.pdu(3, .max, .received, [0x1D, 0x2A, 0x00, 0x07]))
        m.add(TransactionMatcherTests.pdu(4, .min, .sent, [0x1E]))
        m.finish(disconnectedAt: nil, captureEnd: .max)
        let t = m.transactions
        #expect(t.count == 2)
        #expect(t[0].latency == .max && t[0].outcome == .timeout)
        #expect(t[1].latency == .min && t[1].outcome == .ok)
    }

    @Test func openRequestsAtTheEnds() {
        var m = TransactionMatcher()
        m.add(TransactionMatcherTests.pdu(1, .min, .sent, [0x0A, 0x21, 0x00]))
        // A second request orphans the first: Int64.max - Int64.min is past the 30 s timeout.
        m.add(TransactionMatcherTests.pdu(2, .max, .sent, [0x0A, 0x22, 0x00]))
        m.finish(disconnectedAt: .min, captureEnd: .max)
        let t = m.transactions
        #expect(t.map(\.outcome) == [.timeout, .disconnected])
    }

    // Prepare Write Request 16 21 00 00 00 AA, Prepare Write Response 17 21 00 00 00 AA,
    // Execute Write Request 18 01, Execute Write Response 19.
    @Test func queuedWriteSpanningTheRange() {
        var m = TransactionMatcher()
        m.add(TransactionMatcherTests.pdu(1, .min, .sent, [0x16, 0x21, 0x00, 0x00, 0x00, 0xAA]))
        m.add(TransactionMatcherTests.pdu(2, .min, .received, [0x17, 0x21, 0x00, 0x00, 0x00, 0xAA]))
        m.add(TransactionMatcherTests.pdu(3, .max, .sent, [0x18, 0x01]))
        m.add(TransactionMatcherTests.pdu(4, .max, .received, [0x19]))
        m.finish(disconnectedAt: nil, captureEnd: .max)
        #expect(m.transactions.count == 1)
        #expect(m.transactions.first?.latency == .max)
    }
}
