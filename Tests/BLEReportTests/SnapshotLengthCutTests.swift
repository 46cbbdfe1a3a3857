import TestSupport
import Foundation
import Testing
@testable import BLEReport
import BLEAnalysis
import BLETimeline

/// A pcap whose snapshot length cut its packets (caplen < len: `tcpdump -s 16`,
/// pcap-savefile(5)): every packet longer than the snapshot, commands and events included,
/// keeps its first bytes and its original length. Such records are cut, not malformed: what
/// survived is decoded (the LE Connection Complete's handle and peer open the link), nothing is
/// made up from what did not (no advertising report, no connection parameters), and every
/// summary and the diagnosis name the snapshot length, not Android's filtered snoop log.
@Suite("pcap snapshot length")
struct SnapshotLengthCutTests {
    static let sensor: [UInt8] = [0xC4, 0x7A, 0x3B, 0x12, 0x9E, 0x51]

    /// 16 H4 bytes: the LE Connection Complete keeps status, handle, role and peer
    /// (1 type + 2 header + 1 sub-event + 11), and one byte of Connection_Interval.
    static let snapshot = 16

    static func capture() -> SpecCapture {
        var c = SpecCapture()
        // LE Advertising Report (7.7.65.2): 1 report, ADV_IND, random, address, 18 bytes of
        // data (flags + complete name "Thermometer-7"), RSSI -60: 33 H4 bytes.
        let data: [UInt8] = [0x02, 0x01, 0x06, 0x0E, 0x09] + Array("Thermometer-7".utf8)
        c.evt(10, 0x3E, [0x02, 0x01, 0x00, 0x01] + sensor.reversed() + [UInt8(data.count)] + data + [0xC4])
        // LE Create Connection (7.8.12): 25 parameter bytes, 29 H4 bytes.
        c.cmd(20, 0x200D, [0x60, 0x00, 0x30, 0x00, 0x00, 0x01] + sensor.reversed()
              + [0x00, 0x18, 0x00, 0x28, 0x00, 0x00, 0x00, 0x90, 0x01, 0x00, 0x00, 0x00, 0x00])
        c.commandStatus(21, 0x200D)
        // LE Connection Complete: 22 H4 bytes, cut after the peer address.
        c.connectionComplete(100, handle: 0x40, role: 0, peer: sensor)
        // Read Request 0A | 0003: 12 H4 bytes, whole.
        c.att(200, handle: 0x40, [0x0A, 0x03, 0x00], received: false)
        // Read Response 0B | 20 bytes: 30 H4 bytes, cut.
        c.att(230, handle: 0x40, [0x0B] + Array(1...20), received: true)
        c.disconnectionComplete(600, handle: 0x40, reason: 0x13)
        return c.snapped(to: snapshot)
    }

    @Test func cutCommandsAndEventsAreDecodedAsFarAsTheyGoAndNotMalformed() throws {
        let dir = Support.scratch()
        defer { Support.remove(dir) }
        let file = dir + "/snap16.pcap"
        try Self.capture().writePcapH4(to: file)
        let store = try Support.timeline([file], at: dir + "/t.db")
        let db = store.database
        #expect(try db.scalarInt("SELECT malformed_packets FROM captures") == 0)
        #expect(try db.scalarInt("SELECT count(*) FROM decode_problem") == 0)
        let summaries = try db.rows("SELECT summary FROM packets ORDER BY id").map { $0[0].string ?? "" }
        #expect(summaries[0] == "Rcvd LE Meta (LE Advertising Report) (cut by the capture's snapshot length: 15 of 32 bytes kept)")
        #expect(summaries[1] == "Sent LE Create Connection (cut by the capture's snapshot length: 15 of 28 bytes kept)")
        #expect(summaries[3] == "Rcvd LE Meta (LE Connection Complete) status 0x00 handle 0x0040 peer C4:7A:3B:12:9E:51 (random) central (cut by the capture's snapshot length: 15 of 21 bytes kept)")
        #expect(summaries[5] == "Read Response, 21 bytes (cut by the capture's snapshot length: 15 of 29 bytes kept)")
        // Nothing made up: no advertising report from a cut one, no connection parameters.
        #expect(try db.scalarInt("SELECT count(*) FROM adv_reports") == 0)
        // The capture holds the link's Connection Complete: it did not begin before the capture.
        let link = try #require(try db.rows("""
            SELECT peer_address, began_before_capture, interval_us IS NULL, supervision_timeout_ms IS NULL FROM connections
            """).first)
        #expect(link[0].string == "C4:7A:3B:12:9E:51" && link[1].int == 0 && link[2].int == 1 && link[3].int == 1)
        let diagnosis = try #require(try DiagnosisLoader.load(store).first)
        let connection = try #require(diagnosis.connections.first)
        #expect(!connection.findings.contains { $0.finding.code == "capture-gap" })
        let finding = try #require(connection.findings.first { $0.finding.code == "snoop-log-filtered" }?.finding)
        #expect(finding.title == "The capture's snapshot length cut 1 packet of this link")
        #expect(!finding.detail.contains("Android"))
    }

    /// The same bytes uncut but short (a length field that promises more than the packet has)
    /// stay malformed: only the record header's original length makes a record cut.
    @Test func aShortPacketTheCaptureDidNotCutIsStillMalformed() throws {
        let dir = Support.scratch()
        defer { Support.remove(dir) }
        var c = SpecCapture()
        // LE Connection Complete whose length byte says 19 but 12 parameter bytes follow.
        c.add(100, [0x04, 0x3E, 0x13, 0x01, 0x00, 0x40, 0x00, 0x00, 0x01] + Self.sensor.reversed(), received: true)
        let file = dir + "/short.pcap"
        try c.writePcapH4(to: file)
        let store = try Support.timeline([file], at: dir + "/t.db")
        #expect(try store.database.scalarInt("SELECT malformed_packets FROM captures") == 1)
    }
}
