import TestSupport
import Foundation
import Testing
@testable import BLEReport
import BLEAnalysis
import BLETimeline

/// Conclusions checked against the evidence, on captures built from spec bytes (Core v5.4 Vol 4
/// Part E 5.4 packets, 7.7 events, 7.8 LE commands): what is known and what is inferred, said apart;
/// unknown printed as unknown (issue 16, "Wrong conclusions").
@Suite("Diagnosis against the evidence")
struct DiagnosisEvidenceTests {
    static let sensor: [UInt8] = [0xC4, 0x7A, 0x3B, 0x12, 0x9E, 0x51]
    static let band: [UInt8] = [0xD1, 0x22, 0x33, 0x44, 0x55, 0x66]
    static let lock: [UInt8] = [0xE8, 0x3C, 0x51, 0x07, 0xD4, 0x2F]

    func diagnose(_ capture: SpecCapture) throws -> (TimelineStore, CaptureDiagnosis, String) {
        let dir = Support.scratch()
        let file = dir + "/scenario.btsnoop"
        try capture.write(to: file)
        let store = try Support.timeline([file], at: dir + "/t.db")
        let diagnosis = try #require(try DiagnosisLoader.load(store).first)
        return (store, diagnosis, dir)
    }

    /// Read Request (0x0A) to 0x0003 from the central, Read Response (0x0B) from the peer.
    func readPair(_ c: inout SpecCapture, _ ms: Int64, handle: UInt16, after: Int64 = 40) {
        c.att(ms, handle: handle, [0x0A, 0x03, 0x00], received: false)
        c.att(ms + after, handle: handle, [0x0B, 0x64], received: true)
    }

    /// Number Of Completed Packets (7.7.19): one handle, one packet.
    func completed(_ c: inout SpecCapture, _ ms: Int64, handle: UInt16) {
        c.evt(ms, 0x13, [0x01] + c.le16(handle) + c.le16(1))
    }

    /// LE Advertising Report (7.7.65.2): one ADV_IND from a public address with `rssi`.
    func advertising(_ c: inout SpecCapture, _ ms: Int64, address: [UInt8], rssi: Int8) {
        let data: [UInt8] = [0x02, 0x01, 0x06]
        c.evt(ms, 0x3E, [0x02, 0x01, 0x00, 0x00] + address.reversed() + [UInt8(data.count)] + data + [UInt8(bitPattern: rssi)])
    }

    // MARK: - Supervision timeouts

    /// 100 ms supervision timeout at a 37.5 ms interval (LE Connection Complete interval 30,
    /// timeout 10): 2.7 connection events, fewer than QA1931's 3. That is the cause, not a side note.
    @Test func tooTightTimeoutIsTheCause() throws {
        var c = SpecCapture()
        c.connectionComplete(100, handle: 0x40, role: 0, peer: Self.sensor, interval: 30, timeout: 10)
        readPair(&c, 200, handle: 0x40)
        c.disconnectionComplete(400, handle: 0x40, reason: 0x08)
        let (_, d, dir) = try diagnose(c)
        defer { Support.remove(dir) }
        let f = try #require(d.connections.first?.findings.first { $0.finding.code == "supervision-timeout" }?.finding)
        #expect(f.title == "Link to C4:7A:3B:12:9E:51 lost: supervision timeout of only 2.7 connection events")
        #expect(f.detail.hasPrefix("Known: the controller reported 0x08 Connection Timeout (packet 4)"))
        #expect(f.detail.contains("Inferred:"))
        #expect(f.detail.contains("interval 37.50 ms, latency 0, supervision timeout 100 ms, from the Connection Complete (packet 1)"))
    }

    /// The peer's last data 19 s before the disconnect and a 4 s timeout: the link stayed up on
    /// empty packets, which Number Of Completed Packets 5 s before the end proves. Not "silent".
    /// The controller completes each of the host's packets (Core v5.4 Vol 4 Part E 7.7.19): the
    /// Read Request's count, then the Write Command's; after the Read Response the local side only
    /// sent a Write Command, so the peer's last data dates nothing and the count is the evidence.
    @Test func longSilenceBeforeTheTimeoutIsExplainedNotContradicted() throws {
        var c = SpecCapture()
        c.connectionComplete(100, handle: 0x40, role: 0, peer: Self.sensor, interval: 24, timeout: 400)
        readPair(&c, 1000, handle: 0x40)                 // packets 2, 3
        completed(&c, 1005, handle: 0x40)                 // packet 4: the Read Request completed
        c.att(15_000, handle: 0x40, [0x52, 0x03, 0x00, 0x01], received: false)   // Write Command, packet 5
        completed(&c, 15_010, handle: 0x40)               // packet 6
        c.disconnectionComplete(20_040, handle: 0x40, reason: 0x08)
        let (_, d, dir) = try diagnose(c)
        defer { Support.remove(dir) }
        let f = try #require(d.connections.first?.findings.first { $0.finding.code == "supervision-timeout" }?.finding)
        #expect(f.title == "Link to C4:7A:3B:12:9E:51 lost: supervision timeout")
        #expect(!f.detail.contains("went silent and the link timed out"))
        #expect(f.detail.contains("the peer's last data was Read Response"))
        #expect(f.detail.contains("19.000 s before the disconnect"))
        #expect(f.detail.contains("which dates nothing: after it the local side only sent 1 Write Command(s)"))
        #expect(f.detail.contains("the last of the host's packets the peer acknowledged was Write Command, Handle: 0x0003 (packet 5, "))
        #expect(f.detail.contains("Number Of Completed Packets for handle 0x0040 at packet 6, 5.030 s before the disconnect: the link was alive then"))
        #expect(f.detail.contains("every packet the host sent on the link was acknowledged"))
        #expect(f.evidence.contains(6) && f.evidence.contains(5) && f.evidence.contains(3))
    }

    /// The peer heard advertising (RSSI -44 and -59) after its last data and after the moment the
    /// link went silent: in range, it had dropped the link itself.
    @Test func peerAdvertisingWhileConnectedDroppedTheLinkItself() throws {
        var c = SpecCapture()
        c.connectionComplete(100, handle: 0x40, role: 0, peer: Self.sensor, interval: 24, timeout: 400)
        readPair(&c, 1000, handle: 0x40)
        advertising(&c, 3000, address: Self.sensor, rssi: -44)
        advertising(&c, 4000, address: Self.sensor, rssi: -59)
        c.disconnectionComplete(5050, handle: 0x40, reason: 0x08)
        let (_, d, dir) = try diagnose(c)
        defer { Support.remove(dir) }
        let f = try #require(d.connections.first?.findings.first { $0.finding.code == "supervision-timeout" }?.finding)
        #expect(f.title.contains("while the peer was advertising"))
        #expect(f.detail.contains("heard advertising 2 time(s) while the link was up"))
        #expect(f.detail.contains("RSSI -59…-44 dBm"))
        #expect(f.evidence.contains(5))
    }

    /// Two peers with different timeouts (4 s, 2 s) reported lost 2 s apart: both went silent at
    /// the same instant (t = 6.0 s), a common local cause.
    @Test func lossesSharedAcrossLinksAreOneCause() throws {
        var c = SpecCapture()
        c.connectionComplete(100, handle: 0x40, role: 0, peer: Self.sensor, interval: 24, timeout: 400)
        c.connectionComplete(200, handle: 0x41, role: 0, peer: Self.band, interval: 24, timeout: 200)
        readPair(&c, 1000, handle: 0x40)
        readPair(&c, 1100, handle: 0x41)
        c.disconnectionComplete(8010, handle: 0x41, reason: 0x08)
        c.disconnectionComplete(10_000, handle: 0x40, reason: 0x08)
        let (_, d, dir) = try diagnose(c)
        defer { Support.remove(dir) }
        let first = try #require(d.connections.first { $0.handle == 0x40 }?.findings.first { $0.finding.code == "supervision-timeout" }?.finding)
        let second = try #require(d.connections.first { $0.handle == 0x41 }?.findings.first { $0.finding.code == "supervision-timeout" }?.finding)
        #expect(first.title.hasSuffix("together with connection 2"))
        #expect(second.title.hasSuffix("together with connection 1"))
        #expect(first.detail.contains("went silent within 10.00 ms of this link: a common local cause"))
    }

    // MARK: - Connect attempts

    /// LE Create Connection (7.8.12) naming the lock, cancelled (7.8.13) after 90 ms, three times:
    /// one finding naming the peer, with the count; no "direct-connect timeout" for 90 ms.
    @Test func cancelledAttemptsAreGroupedAndNameTheirPeer() throws {
        var c = SpecCapture()
        for i in 0..<3 {
            let t = Int64(100 + i * 1000)
            c.cmd(t, 0x200D, [0x60, 0x00, 0x30, 0x00, 0x00, 0x00] + Self.lock.reversed() + [0x00] +
                  c.le16(24) + c.le16(40) + c.le16(0) + c.le16(400) + c.le16(0) + c.le16(0))
            c.commandStatus(t + 1, 0x200D)
            c.cmd(t + 90, 0x200E, [])
            c.evt(t + 91, 0x0E, [0x01, 0x0E, 0x20, 0x00])
            c.evt(t + 92, 0x3E, [0x01, 0x02, 0x00, 0x00, 0x00, 0x00] + [UInt8](repeating: 0, count: 6) + [UInt8](repeating: 0, count: 7))
        }
        let (store, d, dir) = try diagnose(c)
        defer { Support.remove(dir) }
        let cancelled = d.findings.filter { $0.finding.code == "connect-cancelled" } + d.connections.flatMap { $0.findings.filter { $0.finding.code == "connect-cancelled" } }
        #expect(cancelled.count == 1)
        let f = try #require(cancelled.first?.finding)
        #expect(f.title == "3 connection attempts to E8:3C:51:07:D4:2F cancelled by the host")
        #expect(f.evidence == [1, 3, 5, 6, 8, 10, 11, 13, 15])
        #expect(f.detail.contains("each of the 3 attempts with status 0x02 Unknown Connection Identifier, 92.00 ms after the LE Create Connection."))
        #expect(!f.detail.contains("came 30 s after"))
        #expect(f.detail.contains("so not by Android's 30 s direct-connect timeout"))
        let peers = try store.database.rows("SELECT DISTINCT peer_address FROM connections").compactMap { $0[0].string }
        #expect(peers == ["E8:3C:51:07:D4:2F"])
        let text = DiagnosisRenderer.text([d])
        #expect(text.contains("Connections 1, 2, 3 — 3 attempt(s) cancelled by the host (status 0x02)"))
        #expect(!text.contains("Connection 2 —"))
    }

    /// An attempt on the filter accept list (Initiator_Filter_Policy 1) names the devices LE Add
    /// Device To Filter Accept List (7.8.16) put on it; a cancel 30 s later is Android's timeout.
    @Test func acceptListAttemptNamesTheList() throws {
        var c = SpecCapture()
        c.cmd(10, 0x2010, [])
        c.cmd(20, 0x2011, [0x00] + Self.lock.reversed())
        c.cmd(100, 0x2043, [0x01, 0x00, 0x00] + [UInt8](repeating: 0, count: 6) + [0x01] +
              c.le16(0x60) + c.le16(0x30) + c.le16(24) + c.le16(40) + c.le16(0) + c.le16(400) + c.le16(0) + c.le16(0))
        c.cmd(30_100, 0x200E, [])
        c.evt(30_102, 0x3E, [0x0A, 0x02, 0x00, 0x00, 0x00, 0x00] + [UInt8](repeating: 0, count: 6 + 12 + 7))
        let (_, d, dir) = try diagnose(c)
        defer { Support.remove(dir) }
        // On Android (a btsnoop H4 log) the cancel 30 s later is the stack's direct-connect timeout: its own finding.
        let all = (d.findings + d.connections.flatMap(\.findings)).map(\.finding)
        let f = try #require(all.first { $0.code == "android-direct-connect-timeout" })
        #expect(f.title == "Android gave up connecting to the filter accept list (E8:3C:51:07:D4:2F) after 30 s")
        #expect(f.detail.contains("Android's direct connect (connectGatt with autoConnect false) gives up after 30 s"))
        #expect(!all.contains { $0.code == "connect-cancelled" })
    }

    /// The same cancels in a PacketLogger capture (iOS or macOS), each followed by a new attempt
    /// within a second: iOS's own cycling of its pending connects, not the app, and no word of
    /// Android's direct-connect timeout.
    @Test func iOSCyclingItsPendingConnectsIsNotTheApp() throws {
        var c = SpecCapture()
        for i in 0..<3 {
            let t = Int64(100 + i * 1000)
            c.cmd(t, 0x200D, [0x60, 0x00, 0x30, 0x00, 0x00, 0x01] + Self.lock.reversed() + [0x00] +
                  c.le16(24) + c.le16(40) + c.le16(0) + c.le16(400) + c.le16(0) + c.le16(0))
            c.cmd(t + 900, 0x200E, [])
            c.evt(t + 901, 0x3E, [0x01, 0x02, 0x00, 0x00, 0x00, 0x00] + [UInt8](repeating: 0, count: 13))
        }
        let dir = Support.scratch()
        defer { Support.remove(dir) }
        let file = dir + "/ios.pklg"
        try c.writePacketLogger(to: file)
        let store = try Support.timeline([file], at: dir + "/t.db")
        let d = try #require(try DiagnosisLoader.load(store).first)
        let f = try #require(d.findings.first { $0.finding.code == "connect-cancelled" }?.finding)
        #expect(f.title == "3 connection attempts to E8:3C:51:07:D4:2F cancelled by the host")
        #expect(f.detail.contains("Inferred, from a PacketLogger capture, so iOS or macOS: iOS never times out a pending connect"))
        #expect(f.detail.contains("2 of these 3 were followed by a new attempt within a second: that is the system's cycling"))
        #expect(!f.detail.contains("Android"))
    }

    /// A BR/EDR device paged three times (Create Connection, Vol 4 Part E 7.1.5), each ending in
    /// Connection Complete (7.7.3) 0x04 Page Timeout: one finding with the count, one line.
    @Test func repeatedFailedAttemptsAreOneFinding() throws {
        var c = SpecCapture()
        let speaker: [UInt8] = [0x30, 0x95, 0xE3, 0xB8, 0x69, 0x8C]
        for i in 0..<3 {
            let t = Int64(100 + i * 6000)
            c.cmd(t, 0x0405, speaker.reversed() + [0x18, 0xCC, 0x01, 0x00, 0x00, 0x00, 0x01])
            c.commandStatus(t + 1, 0x0405)
            c.evt(t + 5120, 0x03, [0x04, 0x00, 0x00] + speaker.reversed() + [0x01, 0x00])
        }
        let (_, d, dir) = try diagnose(c)
        defer { Support.remove(dir) }
        let f = try #require(d.findings.first { $0.finding.code == "connection-failed" }?.finding)
        #expect(f.title == "3× BR/EDR Connection to 30:95:E3:B8:69:8C failed: 0x04 Page Timeout")
        #expect(f.evidence == [1, 3, 4, 6, 7, 9])
        #expect(d.connections.allSatisfy { $0.findings.isEmpty })
        let text = DiagnosisRenderer.text([d])
        #expect(text.contains("Connections 1, 2, 3 — 3 attempt(s) that failed or were cancelled, grouped in the findings above"))
    }

    // MARK: - Security

    /// The peer's Security Request (SMP 0x0B, Vol 3 Part H 3.6.7) answered with Pairing Failed
    /// 0x05 Pairing Not Supported by the local device, and the link carried on: no error.
    @Test func declinedPairingIsNoError() throws {
        var c = SpecCapture()
        c.connectionComplete(100, handle: 0x40, role: 0, peer: Self.sensor)
        c.l2cap(150, handle: 0x40, cid: 0x0006, [0x0B, 0x01], received: true)
        c.l2cap(160, handle: 0x40, cid: 0x0006, [0x05, 0x05], received: false)
        for i in 0..<4 { readPair(&c, 300 + Int64(i) * 100, handle: 0x40) }
        let (_, d, dir) = try diagnose(c)
        defer { Support.remove(dir) }
        let conn = try #require(d.connections.first)
        #expect(!conn.findings.contains { $0.finding.severity == .error })
        let f = try #require(conn.findings.first { $0.finding.code == "pairing-declined" }?.finding)
        #expect(f.severity == .info)
        #expect(f.title == "The local device declined the peer's Security Request (0x05 Pairing Not Supported)")
        #expect(f.evidence == [2, 3])
    }

    /// Encryption Change with 0x08 Connection Timeout, then the link lost with 0x08: one cause.
    @Test func encryptionEndedByTheLinkLossIsNotASecondCause() throws {
        var c = SpecCapture()
        c.connectionComplete(100, handle: 0x40, role: 0, peer: Self.sensor)
        c.cmd(200, 0x2019, [0x40, 0x00] + [UInt8](repeating: 0x11, count: 8) + [0x34, 0x12] + [UInt8](repeating: 0, count: 16))
        c.commandStatus(201, 0x2019)
        c.evt(4200, 0x08, [0x08, 0x40, 0x00, 0x00])
        c.disconnectionComplete(4201, handle: 0x40, reason: 0x08)
        let (_, d, dir) = try diagnose(c)
        defer { Support.remove(dir) }
        let conn = try #require(d.connections.first)
        #expect(!conn.findings.contains { $0.finding.code == "encryption-failed" })
        #expect(conn.findings.first { $0.finding.code == "encryption-interrupted" }?.finding.severity == .info)
        #expect(conn.findings.filter { $0.finding.severity == .error }.map(\.finding.code) == ["supervision-timeout"])
    }

    // MARK: - Unknowns

    /// A link found in progress carrying 229-byte notifications, whose parameters come from an
    /// update later on: MTU, encryption and initial parameters are unknown, and printed so.
    @Test func unknownsArePrintedAsUnknown() throws {
        var c = SpecCapture()
        c.att(100, handle: 0x40, [0x1B, 0x21, 0x00] + [UInt8](repeating: 0xAB, count: 229), received: true)
        c.evt(200, 0x3E, [0x03, 0x00, 0x40, 0x00] + c.le16(24) + c.le16(0) + c.le16(400))   // LE Connection Update Complete
        c.att(300, handle: 0x40, [0x1B, 0x21, 0x00, 0x01], received: true)
        let (_, d, dir) = try diagnose(c)
        defer { Support.remove(dir) }
        let conn = try #require(d.connections.first)
        #expect(conn.knownMTU == nil)
        let text = DiagnosisRenderer.text([d])
        #expect(text.contains("MTU ≥ 232 (inferred from a 229-byte Handle Value Notification"))
        #expect(text.contains("encryption unknown (began before the capture)"))
        #expect(text.contains("parameters: unknown at start (began before the capture); from LE Connection Update Complete at 08:00:00.200: interval 30.00 ms"))
        #expect(text.contains("LE (from L2CAP CID 0x0004)"))
        let json = DiagnosisRenderer.json([d]).serialized()
        #expect(json.contains("\"mtu\":null") && json.contains("\"encrypted\":null") && json.contains("\"mtu_at_least\":232"))
    }

    // MARK: - Slow responses

    /// A 2.0 s Read on a 1020 ms interval (LE Connection Complete interval 816) is two connection
    /// events: not slow. The same latency on a 30 ms interval is 66.7 events: slow.
    @Test(arguments: [(UInt16(816), false), (24, true)])
    func slownessIsJudgedInConnectionEvents(interval: UInt16, slow: Bool) throws {
        var c = SpecCapture()
        c.connectionComplete(100, handle: 0x40, role: 0, peer: Self.sensor, interval: interval, timeout: 3000)
        for i in 0..<5 { readPair(&c, 1000 + Int64(i) * 300, handle: 0x40, after: 100) }
        readPair(&c, 3000, handle: 0x40, after: 2000)
        let (_, d, dir) = try diagnose(c)
        defer { Support.remove(dir) }
        let f = d.connections.first?.findings.first { $0.finding.code == "slow-response" }?.finding
        #expect((f != nil) == slow)
        if let f { #expect(f.title == "1 slow Read Request(s): up to 2.000 s (66.7 connection events of 30.00 ms)") }
    }

    // MARK: - BR/EDR

    /// ACL on a handle the capture never saw connect, on a dynamic CID (0x0040: LE credit-based
    /// or RFCOMM alike), then Exit Sniff Mode (Vol 4 Part E 7.2.3) and Mode Change (7.7.20),
    /// which exist on BR/EDR only: a BR/EDR link, and said how it is known.
    @Test func sniffModeMakesALinkBREDR() throws {
        var c = SpecCapture()
        c.l2cap(100, handle: 0x000B, cid: 0x0040, [0x0B, 0xEF, 0x01, 0x99], received: true)
        c.cmd(200, 0x0804, [0x0B, 0x00])
        c.commandStatus(201, 0x0804)
        c.evt(210, 0x14, [0x00, 0x0B, 0x00, 0x00, 0x00, 0x00])
        c.l2cap(300, handle: 0x000B, cid: 0x0040, [0x0B, 0xEF, 0x01, 0x98], received: false)
        c.disconnectionComplete(400, handle: 0x000B, reason: 0x13)
        let (store, d, dir) = try diagnose(c)
        defer { Support.remove(dir) }
        let conn = try #require(d.connections.first)
        #expect(conn.transport == "br/edr")
        #expect(conn.transportClue == "br/edr: Exit Sniff Mode")
        let text = DiagnosisRenderer.text([d])
        #expect(text.contains("0 LE connection(s), 1 BR/EDR"))
        #expect(text.contains("BR/EDR (from Exit Sniff Mode)"))
        #expect(text.contains("→ no CBError: a BR/EDR link"))
        #expect(!text.contains("its own cancel") && !text.contains("CBPeripheralManager"))
        // The connections view lists the BR/EDR link, as BR/EDR (schema 4).
        #expect(try store.database.scalarInt("SELECT count(*) FROM connections WHERE transport = 'le'") == 0)
        #expect(try store.database.scalarInt("SELECT count(*) FROM connections WHERE transport = 'br/edr'") == 1)
    }

    // MARK: - Strings

    /// A Firmware Revision String (0x2A26) padded with NULs is text without the padding.
    @Test func nulPaddedFirmwareIsText() throws {
        var c = SpecCapture()
        c.connectionComplete(100, handle: 0x40, role: 0, peer: Self.sensor)
        c.att(110, handle: 0x40, [0x10, 0x01, 0x00, 0xFF, 0xFF, 0x00, 0x28], received: false)
        c.att(112, handle: 0x40, [0x11, 0x06, 0x01, 0x00, 0x05, 0x00, 0x0A, 0x18], received: true)
        c.att(120, handle: 0x40, [0x08, 0x01, 0x00, 0x05, 0x00, 0x03, 0x28], received: false)
        c.att(122, handle: 0x40, [0x09, 0x07, 0x02, 0x00, 0x02, 0x03, 0x00, 0x26, 0x2A], received: true)
        c.att(130, handle: 0x40, [0x0A, 0x03, 0x00], received: false)
        c.att(132, handle: 0x40, [0x0B] + Array("1.2.3".utf8) + [0, 0, 0, 0], received: true)
        let (store, _, dir) = try diagnose(c)
        defer { Support.remove(dir) }
        let fw = try store.database.rows("SELECT firmware_revision FROM devices WHERE address = 'C4:7A:3B:12:9E:51'")
        #expect(fw.first?[0].string == "1.2.3")
        let gatt = GATTRenderer.text(try DeviceGATT.load(store))
        #expect(gatt.contains("\"1.2.3\""))
    }
}
