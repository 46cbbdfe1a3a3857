import TestSupport
import BLECore
import Foundation
import Testing
@testable import BLEReport
import BLEAnalysis
import BLETimeline

/// Links on which the local device was the LE peripheral (LE Connection Complete role 0x01,
/// Core v5.4 Vol 4 Part E 7.7.65.1), built by the generator's `peripheral-notify-loss` shape: the
/// remote central discovers the local server and writes the CCCD 0x0009 of 2A19 Battery Level
/// (0x0008), the local server notifies, the central's link layer stops acknowledging (Number Of
/// Completed Packets, 7.7.19, stop) and the link is lost with 0x08 one supervision timeout after
/// its last answer. The manifest gives, by construction, the frame of the last acknowledged
/// notification, the first unacknowledged one and how many were never acknowledged.
@Suite("Diagnosis of links where the local device was the peripheral")
struct PeripheralRoleDiagnosisTests {
    struct Case {
        var connection: ConnectionDiagnosis
        var text: String
        var lastAcknowledged: Int
        var firstUnacknowledged: Int
        var unacknowledged: Int
        var store: TimelineStore
        var path: String
    }

    func diagnose(seed: Int, dir: String) throws -> Case {
        let s = try #require(try BlegenSessions.generate(seed: seed, shape: "peripheral-notify-loss", into: dir).first)
        let link = try #require(s.links.first)
        #expect(link["role"] as? String == "peripheral" && link["end"] as? Int == 0x08)
        let store = try Support.timeline([s.path], at: dir + "/t.db")
        let captures = try DiagnosisLoader.load(store)
        let connection = try #require(captures.first?.connections.first)
        return Case(connection: connection, text: DiagnosisRenderer.text(captures),
                    lastAcknowledged: try #require(link["last_acknowledged_frame"] as? Int),
                    firstUnacknowledged: try #require(link["first_unacknowledged_frame"] as? Int),
                    unacknowledged: try #require(link["unacknowledged"] as? Int), store: store, path: s.path)
    }

    /// The link-loss account dates the peer's silence by the controller's acknowledgements, not
    /// by the peer's last data (its CCCD write, seconds earlier: a client that only listens sends
    /// nothing): the last acknowledged notification with its packet id and time, and the count of
    /// those never acknowledged.
    @Test(arguments: [1, 2, 3])
    func theLinkLossNamesTheLastAcknowledgedNotificationAndTheUnacknowledgedCount(_ seed: Int) throws {
        let dir = Support.scratch()
        defer { Support.remove(dir) }
        let c = try diagnose(seed: seed, dir: dir)
        #expect(c.connection.role == "peripheral" && c.connection.disconnectReason == 0x08)
        let loss = try #require(c.connection.findings.first { $0.finding.code == "supervision-timeout" })
        let detail = loss.finding.detail
        let last = try #require(try c.store.database.rows("SELECT ts_us, summary FROM packets WHERE id = ?1",
                                                          [.integer(Int64(c.lastAcknowledged))]).first)
        #expect(last[1].string?.contains("Handle Value Notification") == true)
        let lastTs = try #require(last[0].int64)
        #expect(detail.contains("the last of the host's packets the peer acknowledged was Handle Value Notification"))
        #expect(detail.contains("(packet \(c.lastAcknowledged), \(TextFormat.clock(lastTs)))"), "\(detail)")
        #expect(detail.contains("\(c.unacknowledged) packet(s) the host sent after it were never acknowledged"), "\(detail)")
        #expect(detail.contains("(packet \(c.firstUnacknowledged),"), "\(detail)")
        // The peer's last data (the CCCD write) dates nothing: only notifications followed it.
        #expect(detail.contains("which dates nothing: after it the local side only sent"), "\(detail)")
        #expect(!detail.contains("were empty link-layer packets"))
        #expect(detail.contains("the peer went silent after the last acknowledgement"), "\(detail)")
        #expect(loss.finding.title.hasSuffix("\(c.unacknowledged) packet(s) never acknowledged"), "\(loss.finding.title)")
        #expect(loss.finding.evidence.contains(c.lastAcknowledged) && loss.finding.evidence.contains(c.firstUnacknowledged))
    }

    /// The CoreBluetooth view: no CBError and no didDisconnectPeripheral for the local app (a
    /// CBPeripheralManager gets no disconnect callback); it sees didUnsubscribeFrom for 2A19, the
    /// characteristic whose CCCD the central had written; the remote central's app sees its own
    /// 0x08 as CBError.connectionTimeout.
    @Test(arguments: [1, 2])
    func theCoreBluetoothViewNamesThePeripheralManagerCallbacks(_ seed: Int) throws {
        let dir = Support.scratch()
        defer { Support.remove(dir) }
        let c = try diagnose(seed: seed, dir: dir)
        #expect(c.connection.disconnectCBError == nil)
        #expect(c.connection.findings.allSatisfy { $0.finding.cbError == nil })
        let view = try #require(c.connection.peripheralManager)
        #expect(view.subscriptions.map(\.cccdHandle) == [0x0009])
        #expect(view.subscriptions.first?.characteristicUUID == "2A19" && view.subscriptions.first?.kind == "notifications")
        #expect(view.subscriptions.first?.inferred == false)
        #expect(view.remoteCentralSees?.hasPrefix("centralManager(_:didDisconnectPeripheral:error:) with CBError.connectionTimeout") == true)
        // The rendered account: the ended line and the peripheral-manager line.
        #expect(c.text.contains("ended: 0x08 Connection Timeout at packet \(c.connection.disconnectPacketID ?? 0) → no CBError: the local device was the peripheral"))
        let block = c.text.components(separatedBy: "CoreBluetooth (local peripheral):").dropFirst().first ?? ""
        let sentence = block.components(separatedBy: "findings:").first?.split(whereSeparator: \.isWhitespace).joined(separator: " ") ?? ""
        #expect(sentence.hasPrefix("A CBPeripheralManager app gets no disconnect callback and no CBError; it sees peripheralManager(_:central:didUnsubscribeFrom:) for characteristic 2A19 (notifications, CCCD 0x0009"), "\(sentence)")
        #expect(sentence.contains("The remote central's app (a CBCentralManager) sees centralManager(_:didDisconnectPeripheral:error:) with CBError.connectionTimeout"))
        // The finding says the same, and never offers the local app a central-manager callback.
        let loss = try #require(c.connection.findings.first { $0.finding.code == "supervision-timeout" })
        #expect(loss.finding.detail.contains("it sees peripheralManager(_:central:didUnsubscribeFrom:) for characteristic 2A19"))
        // JSON carries it too.
        let json = DiagnosisRenderer.connectionJSON(c.connection).serialized()
        #expect(json.contains("\"did_unsubscribe_from\"") && json.contains("\"cccd_handle\":9"), "\(json)")
    }

    /// The report's CoreBluetooth column: a disconnect on a local-peripheral link is what a
    /// CBPeripheralManager gets, never an empty "none" as if the app had seen no error.
    @Test func theReportsCoreBluetoothColumnIsRoleAware() throws {
        let dir = Support.scratch()
        defer { Support.remove(dir) }
        let c = try diagnose(seed: 4, dir: dir)
        let s = try Support.statistics([c.path])
        let disconnects = try #require(s.counts[.disconnect]?.first)
        #expect(disconnects.key.code == 0x08 && disconnects.cbError == PeripheralManagerView.reportLabel)
        let conn = try #require(s.captures.first?.connections.first)
        #expect(conn.localRole == "peripheral" && conn.coreBluetoothEnd == PeripheralManagerView.reportLabel)
        let table = try #require(ReportTables.make(s).first { $0.id == "connections" })
        #expect(table.rows.first.map { "\($0)" }?.contains(PeripheralManagerView.reportLabel) == true)
    }
}
