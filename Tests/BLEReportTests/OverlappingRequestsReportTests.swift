import Foundation
import Testing
import TestSupport
import BLEAnalysis
import BLETimeline

/// A client that sends a request while its previous one is unanswered (a breach of Core v5.4
/// Vol 3 Part F 3.3.2): the responses are paired by what they answer (an Error Response names
/// its request opcode and handle, 3.4.1.1) and the connection gets one
/// `att-request-while-outstanding` finding.
@Suite("Requests sent while another was outstanding")
struct OverlappingRequestsReportTests {
    /// Request packet -> response packet (nil: none), and outcome, of every transaction.
    static func transactions(_ store: TimelineStore, connection: Int64? = nil) throws -> [Int: (response: Int?, outcome: String)] {
        var out: [Int: (response: Int?, outcome: String)] = [:]
        let rows = try store.database.rows("""
            SELECT request_packet_id, response_packet_id, outcome FROM att_transactions
            WHERE ?1 IS NULL OR connection_id = ?1
            """, [connection.map { .integer($0) } ?? .null])
        for r in rows { out[r[0].int ?? 0] = (r[1].int, r[2].string ?? "") }
        return out
    }

    static func findings(_ store: TimelineStore, code: String) throws -> [(connection: Int64, title: String, evidence: String)] {
        try store.database.rows("SELECT connection_id, title, evidence_packet_ids FROM findings WHERE code = ?1 ORDER BY connection_id",
                                [.text(code)]).map { ($0[0].int64 ?? 0, $0[1].string ?? "", $0[2].string ?? "") }
    }

    /// `python3 -m blegen.overlap DIR` (Scripts/blegen/overlap.py): the capture and, per link,
    /// which frame answers each request, by construction.
    @Test func generatedOverlapsArePairedByWhatTheResponsesAnswer() throws {
        let dir = Support.scratch()
        defer { Support.remove(dir) }
        try BlegenSessions.run("overlap", [dir])
        let manifest = try #require(try JSONSerialization.jsonObject(with: Support.read(dir + "/att-overlap.json")) as? [String: [String: Any]])
        let store = try Support.timeline([dir + "/att-overlap.btsnoop"], at: dir + "/t.db")
        let links = try store.database.rows("SELECT id, handle FROM connection ORDER BY id")
        #expect(links.count == 5)
        var overlapped: [Int64] = []
        for link in links {
            let id = link[0].int64 ?? 0
            let key = String(format: "0x%04X", link[1].int ?? 0)
            let expected = try #require(manifest[key], "link \(key)")
            let got = try Self.transactions(store, connection: id)
            #expect(Set(got.keys.map(String.init)) == Set(expected.keys), "link \(key)")
            for (request, response) in expected {
                #expect(got[Int(request) ?? 0]?.response == response as? Int, "link \(key) request \(request)")
            }
            if key != "0x0043" { overlapped.append(id) }
        }
        let found = try Self.findings(store, code: "att-request-while-outstanding")
        #expect(found.map(\.connection) == overlapped)
        // 0x0040: the Read Request (9) sent while the Write Request (8) was unanswered.
        #expect(found.first?.evidence == "[8,9]")
        #expect(found.first?.title == "ATT request sent while another was outstanding")
        // 0x0044: the deadlock: 7 requests overtaken (48, 49, 51-55); the first five pairs cited.
        #expect(found.last?.title == "ATT request sent while another was outstanding (7×)")
        #expect(found.last?.evidence == "[48,49,51,52,53,54]")
        // The deadlocked discovery is left pending, as before: the capture ended 1.2 s later.
        let deadlock = try Self.transactions(store, connection: overlapped.last ?? 0)
        #expect(deadlock[48]?.outcome == "error")
        #expect([49, 51, 52, 53, 54, 55, 56].allSatisfy { deadlock[$0]?.outcome == "pending" })
    }

    /// The nRF Sniffer capture of an ATT deadlock (../shared/captures/nrf-sniffer-att-deadlock.pcap):
    /// the client sends a Write Request and a Read By Group Type Request at once, again and again.
    /// Pairs from tshark 4.0.17 (`tshark -2 -r ... -Y btatt -T fields -e frame.number -e
    /// btatt.opcode -e btatt.request_in_frame -e btatt.req_opcode_in_error -e btatt.handle_in_error`):
    /// 25 answers 23 and 32 answers 30 (request_in_frame). tshark pairs no Error Response here;
    /// the ones it decodes name the request: 49 Read By Group Type (0x10) handle 0x0015, sent at
    /// 34 and again at 46 (the newer is taken, 34 left unanswered); 106 Write Request (0x12)
    /// handle 0x0011, sent at 103 only.
    @Test func nrfSnifferDeadlockPairsAsTsharkDecodes() throws {
        let dir = Support.scratch()
        defer { Support.remove(dir) }
        let store = try Support.timeline([Support.shared("nrf-sniffer-att-deadlock.pcap")], at: dir + "/t.db")
        let got = try Self.transactions(store)
        let answered = [23: 25, 30: 32, 46: 49, 103: 106]
        let requests = [23, 30, 34, 46, 103, 104, 118, 119, 134, 135, 143, 144, 145, 146, 147, 148, 149, 150]
        #expect(got.keys.sorted() == requests)
        for r in requests {
            #expect(got[r]?.response == answered[r], "request \(r)")
        }
        #expect(got[103]?.outcome == "error" && got[46]?.outcome == "error")
        let found = try Self.findings(store, code: "att-request-while-outstanding")
        #expect(found.count == 1)
        // Overtaken: 34 (by 46), 103 (by 104), 104, 118, 119, 134, 135, 143, 144, 145, 146, 147, 148, 149.
        #expect(found.first?.title == "ATT request sent while another was outstanding (14×)")
        #expect(found.first?.evidence == "[34,46,103,104,118,119,134]")
    }
}
