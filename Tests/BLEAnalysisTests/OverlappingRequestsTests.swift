import Testing
import BLECore
import BLEDecode
@testable import BLEAnalysis

/// A client that sends a request before the response to its previous one (a breach of Core v5.4
/// Vol 3 Part F 3.3.2): the responses decide what they answer, an Error Response by the request
/// opcode and handle in error it names (3.4.1.1), another response by its opcode.
@Suite("ATT requests sent while another was outstanding")
struct OverlappingRequestsTests {
    let p = TransactionMatcherTests.pdu

    // 12 12 00 01      Write Request, handle 0x0012
    // 0A 03 00         Read Request, handle 0x0003
    // 13               Write Response
    // 0B 50            Read Response
    // 01 12 12 00 03   Error Response: Write Request, handle 0x0012, Write Not Permitted
    // 01 12 10 00 03   Error Response: Write Request, handle 0x0010, Write Not Permitted
    @Test(arguments: [false, true])
    func responsesPairWithTheRequestTheyAnswerInEitherOrder(reversed: Bool) {
        var m = TransactionMatcher()
        m.add(p(1, 0, .sent, [0x12, 0x12, 0x00, 0x01]))
        m.add(p(2, 10, .sent, [0x0A, 0x03, 0x00]))
        let responses = [p(3, 30, .received, [0x13]), p(4, 60, .received, [0x0B, 0x50])]
        for r in reversed ? responses.reversed() : responses { m.add(r) }
        m.finish(disconnectedAt: nil, captureEnd: 100)
        let byRequest = Dictionary(uniqueKeysWithValues: m.transactions.map { ($0.requestPacketID, $0) })
        #expect(byRequest[1]?.responsePacketID == 3 && byRequest[1]?.outcome == .ok && byRequest[1]?.latency == 30)
        #expect(byRequest[2]?.responsePacketID == 4 && byRequest[2]?.outcome == .ok && byRequest[2]?.latency == 50)
        #expect(m.unmatchedResponses == 0)
        #expect(m.overlaps.count == 1 && m.overlaps.unanswered == 0)
        #expect(m.overlaps.first == [.init(outstanding: 1, outstandingOpcode: .writeRequest, outstandingHandle: 0x12,
                                          overtaking: 2, overtakingOpcode: .readRequest, direction: .sent)])
    }

    @Test func anErrorResponsePairsWithTheRequestItNamesWhicheverItIs() {
        var m = TransactionMatcher()
        m.add(p(1, 0, .sent, [0x12, 0x10, 0x00, 0x01, 0x00]))   // Write 0x0010
        m.add(p(2, 5, .sent, [0x12, 0x12, 0x00, 0x01]))         // Write 0x0012, the first unanswered
        m.add(p(3, 20, .received, [0x01, 0x12, 0x10, 0x00, 0x03]))   // names the older: 0x0010
        m.add(p(4, 40, .received, [0x13]))                            // the other write's response
        m.finish(disconnectedAt: nil, captureEnd: 100)
        #expect(m.transactions.map(\.requestPacketID) == [1, 2])
        #expect(m.transactions.map(\.responsePacketID) == [3, 4])
        #expect(m.transactions.map(\.outcome) == [.error, .ok])
        #expect(m.transactions[0].errorCode == .writeNotPermitted)
    }

    /// The deadlock of ../shared/captures/nrf-sniffer-att-deadlock.pcap: Write and discovery sent
    /// at once, the Error Response names the write, the discovery is never answered.
    @Test func theUnansweredRequestEndsAsItDidWhenSuperseded() {
        var m = TransactionMatcher()
        m.add(p(103, 0, .sent, [0x12, 0x11, 0x00, 0x00]))
        m.add(p(104, 4_000, .sent, [0x10, 0x01, 0x00, 0xFF, 0xFF, 0x01, 0x28]))
        m.add(p(106, 32_000, .received, [0x01, 0x12, 0x11, 0x00, 0x03]))
        m.add(p(118, 295_000, .sent, [0x12, 0x11, 0x00, 0x00]))
        m.finish(disconnectedAt: nil, captureEnd: 1_000_000)
        #expect(m.transactions.map(\.requestPacketID) == [103, 104, 118])
        #expect(m.transactions.map(\.responsePacketID) == [106, nil, nil])
        #expect(m.transactions.map(\.outcome) == [.error, .pending, .pending])
        #expect(m.overlaps.count == 2 && m.overlaps.unanswered == 1)
        #expect(m.overlaps.first.map(\.overtaking) == [104, 118])
    }

    /// A response that fits an older and a newer request alike (two Read Requests, one Read
    /// Response) is the newer one's, and the older one ends as a superseded request always did:
    /// `pending`, or `timeout` when it was overtaken 30 s or more after it was sent (3.3.3).
    @Test func anIndistinguishableOlderRequestIsSuperseded() {
        var m = TransactionMatcher()
        m.add(p(1, 0, .sent, [0x0A, 0x03, 0x00]))
        m.add(p(2, 1_000, .sent, [0x0A, 0x03, 0x00]))
        m.add(p(3, 2_000, .received, [0x0B, 0x50]))
        m.add(p(4, 3_000, .sent, [0x0A, 0x05, 0x00]))
        m.add(p(5, 40_000_000, .sent, [0x0A, 0x05, 0x00]))
        m.add(p(6, 40_000_100, .received, [0x0B, 0x51]))
        m.finish(disconnectedAt: nil, captureEnd: 41_000_000)
        #expect(m.transactions.map(\.requestPacketID) == [1, 2, 4, 5])
        #expect(m.transactions.map(\.responsePacketID) == [nil, 3, nil, 6])
        #expect(m.transactions.map(\.outcome) == [.pending, .ok, .timeout, .ok])
    }

    /// Each requester and bearer keeps a few requests outstanding at most: the work per PDU stays
    /// constant however many a client piles up, and the oldest are given up (`pending`).
    @Test func outstandingRequestsAreBounded() {
        var m = TransactionMatcher()
        for i in 0..<1000 { m.add(p(i, Int64(i), .sent, [0x0A, 0x03, 0x00])) }
        #expect(m.transactions.count == 1000 - OutstandingRequests.capacity)
        m.finish(disconnectedAt: nil, captureEnd: 2_000)
        #expect(m.transactions.count == 1000 && m.transactions.allSatisfy { $0.outcome == .pending })
        #expect(m.overlaps.count == 999 && m.overlaps.first.count == ATTRequestOverlaps.kept)
    }

    /// A well-behaved client is never flagged, and the outcomes stay those of one request at a time.
    @Test func aSequentialClientHasNoOverlap() {
        var m = TransactionMatcher()
        m.add(p(1, 0, .sent, [0x0A, 0x03, 0x00]))
        m.add(p(2, 10, .received, [0x0B, 0x50]))
        m.add(p(3, 20, .sent, [0x12, 0x12, 0x00, 0x01]))
        m.finish(disconnectedAt: 40_000_000, captureEnd: 50_000_000)
        #expect(m.transactions.map(\.outcome) == [.ok, .timeout])
        #expect(m.overlaps.count == 0)
    }
}
