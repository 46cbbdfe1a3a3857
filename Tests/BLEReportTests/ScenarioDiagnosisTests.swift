import TestSupport
import Foundation
import Testing
import BLEAnalysis
import BLETimeline

/// Diagnosis of shapes users bring that the samples lack, on captures built from spec bytes.
/// Expected codes come from REFERENCE.md (HCI Vol 1 Part F, CBError.h).
@Suite("Diagnosis of scenario captures")
struct ScenarioDiagnosisTests {
    static let sensor: [UInt8] = [0xC4, 0x7A, 0x3B, 0x12, 0x9E, 0x51]
    static let mac: [UInt8] = [0x4F, 0x9A, 0x11, 0x22, 0x33, 0x44]

    func diagnose(_ capture: SpecCapture) throws -> (TimelineStore, [ConnectionDiagnosis], String) {
        let dir = Support.scratch()
        let file = dir + "/scenario.btsnoop"
        try capture.write(to: file)
        let store = try Support.timeline([file], at: dir + "/t.db")
        let connections = try DiagnosisLoader.load(store).flatMap { $0.connections }
        return (store, connections, dir)
    }

    /// Bonded reconnect: LE Start Encryption (0x2019) -> Encryption Change (0x08) status 0x06
    /// PIN or Key Missing -> Disconnect (0x0406) reason 0x05 -> Disconnection Complete 0x16.
    /// An iOS app sees CBError.peerRemovedPairingInformation (14), not its own cancel.
    @Test func disconnectAfterKeyMissingIsPeerRemovedPairingInformation() throws {
        var c = SpecCapture()
        c.connectionComplete(100, handle: 0x40, role: 0, peer: Self.sensor)
        c.cmd(110, 0x2019, [0x40, 0x00] + [UInt8](repeating: 0x11, count: 8) + [0x34, 0x12] + [UInt8](repeating: 0, count: 16))
        c.commandStatus(111, 0x2019)
        c.evt(190, 0x08, [0x06, 0x40, 0x00, 0x00])
        c.cmd(200, 0x0406, [0x40, 0x00, 0x05])
        c.commandStatus(201, 0x0406)
        c.disconnectionComplete(260, handle: 0x40, reason: 0x16)
        let (store, connections, dir) = try diagnose(c)
        defer { Support.remove(dir) }
        let conn = try #require(connections.first)
        #expect(conn.disconnectReason == 0x16)
        #expect(conn.disconnectCBError == "CBError.peerRemovedPairingInformation")
        let rows = try store.database.rows("SELECT cb_error FROM errors WHERE context = 'disconnect'")
        #expect(rows.first?[0].string == "CBError.peerRemovedPairingInformation")
        let enc = try #require(conn.findings.first { $0.finding.code == "encryption-failed" })
        #expect(enc.finding.evidence == [2, 4])   // the LE Start Encryption and the Encryption Change
        let ended = try #require(conn.findings.first { $0.finding.code == "local-terminated" })
        #expect(ended.finding.cbError == "CBError.peerRemovedPairingInformation")
        #expect(ended.finding.evidence == [4, 5, 7])
    }

    /// The phone as peripheral (LE Connection Complete role 0x01): the remote central asks, the
    /// phone's server answers; an LTK request gets LE Long Term Key Request Negative Reply
    /// (0x201B); the central ends the link with 0x13. No CBError: a CBPeripheralManager is not
    /// told of disconnections. The database is the phone's own, not the central's.
    @Test func localPeripheralGetsNoCentralErrorAndOwnsItsDatabase() throws {
        var c = SpecCapture()
        c.connectionComplete(1000, handle: 0x41, role: 1, peer: Self.mac, timeout: 500)
        c.att(1050, handle: 0x41, [0x10, 0x01, 0x00, 0xFF, 0xFF, 0x00, 0x28], received: true)       // Read By Group Type
        c.att(1052, handle: 0x41, [0x11, 0x06, 0x01, 0x00, 0x05, 0x00, 0x0A, 0x18], received: false)   // 0x0001-0x0005 180A
        c.att(1060, handle: 0x41, [0x08, 0x01, 0x00, 0x05, 0x00, 0x03, 0x28], received: true)       // Read By Type 2803
        c.att(1062, handle: 0x41, [0x09, 0x07, 0x02, 0x00, 0x02, 0x03, 0x00, 0x26, 0x2A], received: false) // 2A26 at 0x0003
        c.att(1070, handle: 0x41, [0x0A, 0x03, 0x00], received: true)                                 // Read 0x0003
        c.att(1072, handle: 0x41, [0x0B] + Array("9.9.9".utf8), received: false)
        c.evt(1080, 0x3E, [0x05, 0x41, 0x00] + [UInt8](repeating: 0, count: 10))                     // LE LTK Request
        c.cmd(1081, 0x201B, [0x41, 0x00])
        c.evt(1082, 0x0E, [0x01, 0x1B, 0x20, 0x00, 0x41, 0x00])
        c.disconnectionComplete(1500, handle: 0x41, reason: 0x13)
        let (store, connections, dir) = try diagnose(c)
        defer { Support.remove(dir) }
        let conn = try #require(connections.first)
        #expect(conn.role == "peripheral")
        #expect(conn.disconnectReason == 0x13 && conn.disconnectCBError == nil)
        #expect(conn.findings.allSatisfy { $0.finding.cbError == nil || $0.finding.cbError!.hasPrefix("CBATTError") })
        let ltk = try #require(conn.findings.first { $0.finding.code == "encryption-failed" })
        #expect(ltk.finding.evidence == [8, 9])   // LE Long Term Key Request, its Negative Reply
        // The Firmware Revision the central read is the phone's, not the Mac's.
        let fw = try store.database.rows("SELECT firmware_revision FROM devices WHERE address = '4F:9A:11:22:33:44'")
        #expect(fw.first?[0].string == nil)
        let gatt = try DeviceGATT.load(store)
        #expect(gatt.count == 1 && gatt[0].isLocalServer && gatt[0].address == nil && gatt[0].centrals == ["4F:9A:11:22:33:44"])
    }

    /// L2CAP Connection Parameter Update Response result 0x0001 (Vol 3 Part A 4.21) and LE
    /// Connection Update Complete status 0x3B (Vol 4 Part E 7.7.65.3): both are findings, and the
    /// failed update leaves the parameters as they were.
    @Test func rejectedAndFailedParameterUpdatesAreFindings() throws {
        var c = SpecCapture()
        c.connectionComplete(100, handle: 0x40, role: 0, peer: Self.sensor)
        // Connection Parameter Update Request (0x12), id 7: interval 6..6, latency 0, timeout 100
        c.l2cap(200, handle: 0x40, cid: 5, [0x12, 0x07, 0x08, 0x00, 0x06, 0x00, 0x06, 0x00, 0x00, 0x00, 0x64, 0x00], received: true)
        c.l2cap(203, handle: 0x40, cid: 5, [0x13, 0x07, 0x02, 0x00, 0x01, 0x00], received: false)
        c.cmd(400, 0x2013, [0x40, 0x00, 0x0C, 0x00, 0x0C, 0x00, 0x00, 0x00, 0x2C, 0x01, 0x00, 0x00, 0x00, 0x00])
        c.commandStatus(401, 0x2013)
        c.evt(640, 0x3E, [0x03, 0x3B, 0x40, 0x00, 0x18, 0x00, 0x00, 0x00, 0x90, 0x01])
        c.disconnectionComplete(1640, handle: 0x40, reason: 0x13)
        let (_, connections, dir) = try diagnose(c)
        defer { Support.remove(dir) }
        let conn = try #require(connections.first)
        let found = conn.findings.filter { $0.finding.code == "unacceptable-parameters" }.map(\.finding.evidence)
        #expect(found == [[2, 3], [4, 6]])
        #expect(conn.disconnectCBError == "CBError.peripheralDisconnected")
        #expect(conn.supervisionTimeoutMs == 4000)
    }

    /// The capture ends 1.2 s after a Read Request (0A 03 00) it never answers: less than the 30 s
    /// ATT timeout (Vol 3 Part F 3.3.3), so the outcome is `pending` and the finding says the
    /// capture was cut, naming the request, its handle and the time to the end.
    @Test func aRequestPendingAtTheEndOfTheCaptureIsSaidSo() throws {
        var c = SpecCapture()
        c.connectionComplete(100, handle: 0x40, role: 0, peer: Self.sensor)
        c.att(150, handle: 0x40, [0x0A, 0x03, 0x00], received: false)              // Read Request 0x0003 (frame 2)
        c.att(1350, handle: 0x40, [0x1B, 0x0F, 0x00, 0x06, 0x49], received: true)  // a notification, 1.2 s later
        let (store, connections, dir) = try diagnose(c)
        defer { Support.remove(dir) }
        let outcome = try store.database.rows("SELECT outcome FROM att_transactions WHERE request_packet_id = 2").first?[0].string
        #expect(outcome == "pending")
        let f = try #require(connections.first?.findings.first { $0.finding.code == "capture-ended-pending" }).finding
        #expect(f.severity == .info && f.evidence == [2] && f.cbError == nil)
        #expect(f.title.contains("Read Request") && f.title.contains("0x0003"))
        #expect(f.detail.contains("1.200 s before the capture ended"))
        #expect(!connections[0].findings.contains { $0.finding.code == "att-timeout" })
        // A request superseded by a later one (one outstanding request per client, 3.3.2) was not
        // cut by the end of the capture: only the last open request gets the finding.
        var twice = SpecCapture()
        twice.connectionComplete(100, handle: 0x40, role: 0, peer: Self.sensor)
        twice.att(150, handle: 0x40, [0x0A, 0x03, 0x00], received: false)             // frame 2, superseded
        twice.att(250, handle: 0x40, [0x12, 0x12, 0x00, 0x01], received: false)       // frame 3, Write Request 0x0012
        twice.att(1350, handle: 0x40, [0x1B, 0x0F, 0x00, 0x06, 0x49], received: true)
        let (_, again, dir2) = try diagnose(twice)
        defer { Support.remove(dir2) }
        let cut = again.first?.findings.filter { $0.finding.code == "capture-ended-pending" }.map(\.finding.evidence)
        #expect(cut == [[3]])
    }

    /// 0x3D Connection Terminated due to MIC Failure (REFERENCE.md HCI codes) on a link the
    /// capture never showed encrypted (no Encryption Change, event 0x08): the finding says so.
    /// With Encryption Change status 0, enabled, before it, it does not.
    @Test func micFailureOnALinkNeverSeenEncryptedSaysSo() throws {
        var bare = SpecCapture()
        bare.connectionComplete(100, handle: 0x42, role: 0, peer: Self.sensor)
        bare.att(300, handle: 0x42, [0x1B, 0x0F, 0x00, 0x01], received: true)
        bare.disconnectionComplete(1200, handle: 0x42, reason: 0x3D)
        var encrypted = SpecCapture()
        encrypted.connectionComplete(100, handle: 0x42, role: 0, peer: Self.sensor)
        encrypted.evt(200, 0x08, [0x00, 0x42, 0x00, 0x01])                          // Encryption Change: success, on
        encrypted.att(300, handle: 0x42, [0x1B, 0x0F, 0x00, 0x01], received: true)
        encrypted.disconnectionComplete(1200, handle: 0x42, reason: 0x3D)
        for (capture, unseen) in [(bare, true), (encrypted, false)] {
            let (_, connections, dir) = try diagnose(capture)
            defer { Support.remove(dir) }
            let f = try #require(connections.first?.findings.first { $0.finding.code == "mic-failure" }).finding
            #expect(f.detail.contains("No Encryption Change was seen on this link") == unseen, "\(f.detail)")
        }
    }
}
