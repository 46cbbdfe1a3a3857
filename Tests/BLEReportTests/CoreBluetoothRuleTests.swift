import TestSupport
import Foundation
import Testing
import BLEAnalysis
import BLETimeline

/// The CoreBluetooth name of a disconnect, decided by the importer at the packet and agreed on by
/// the errors table, the findings and the diagnosis. Expected names from REFERENCE.md
/// (`CBError.h`: 6 connectionTimeout, 7 peripheralDisconnected, 14 peerRemovedPairingInformation)
/// on captures built from spec bytes (Core v5.4 Vol 4 Part E 7.7.5, 7.7.8, 7.7.65.1).
@Suite("CoreBluetooth error names at import")
struct CoreBluetoothRuleTests {
    static let sensor: [UInt8] = [0xC4, 0x7A, 0x3B, 0x12, 0x9E, 0x51]
    static let mac: [UInt8] = [0x4F, 0x9A, 0x11, 0x22, 0x33, 0x44]

    /// Bonded reconnect: LE Start Encryption (0x2019), Encryption Change (event 0x08) status
    /// 0x06, then `disconnect` (an HCI Disconnect and its completion, or the peer's 0x13).
    static func keyMissing(role: UInt8, localDisconnect: Bool, reason: UInt8) -> SpecCapture {
        var c = SpecCapture()
        c.connectionComplete(100, handle: 0x40, role: role, peer: role == 0 ? sensor : mac)
        c.cmd(110, 0x2019, [0x40, 0x00] + [UInt8](repeating: 0x11, count: 8) + [0x34, 0x12] + [UInt8](repeating: 0, count: 16))
        c.commandStatus(111, 0x2019)
        c.evt(190, 0x08, [0x06, 0x40, 0x00, 0x00])
        if localDisconnect {
            c.cmd(200, 0x0406, [0x40, 0x00, 0x05])
            c.commandStatus(201, 0x0406)
        }
        c.disconnectionComplete(260, handle: 0x40, reason: reason)
        return c
    }

    /// Imports without running the analysis: the rows as the importer wrote them.
    func importOnly(_ capture: SpecCapture) throws -> (TimelineStore, String) {
        let dir = Support.scratch()
        let file = dir + "/scenario.btsnoop"
        try capture.write(to: file)
        _ = try Importer.importCaptures([file], into: dir + "/t.db")
        return (try TimelineStore(path: dir + "/t.db"), dir)
    }

    func cbErrors(_ store: TimelineStore, context: String) throws -> [String?] {
        try store.database.rows("SELECT cb_error FROM errors WHERE context = ?1 ORDER BY packet_id", [.text(context)]).map { $0[0].string }
    }

    @Test func importerNamesTheDisconnectAfterKeyMissing() throws {
        // The host's own Disconnect (0x05) reported back as 0x16: not the app's cancel, error 14.
        var (store, dir) = try importOnly(Self.keyMissing(role: 0, localDisconnect: true, reason: 0x16))
        #expect(try cbErrors(store, context: "disconnect") == ["CBError.peerRemovedPairingInformation"])
        #expect(try cbErrors(store, context: "encryption") == ["CBError.peerRemovedPairingInformation"])
        Support.remove(dir)
        // The peer ends it (0x13) after the failed encryption: still error 14, not peripheralDisconnected.
        (store, dir) = try importOnly(Self.keyMissing(role: 0, localDisconnect: false, reason: 0x13))
        #expect(try cbErrors(store, context: "disconnect") == ["CBError.peerRemovedPairingInformation"])
        Support.remove(dir)
    }

    @Test func importerGivesNoCBErrorWhenTheLocalDeviceWasThePeripheral() throws {
        let (store, dir) = try importOnly(Self.keyMissing(role: 1, localDisconnect: false, reason: 0x13))
        defer { Support.remove(dir) }
        #expect(try cbErrors(store, context: "disconnect") == [nil])
        #expect(try cbErrors(store, context: "encryption") == [nil])
    }

    /// A timeline written by an older importer (rows named by the reason alone) is corrected when
    /// the analysis version makes `diagnose` re-run the analysis.
    @Test func analysisCorrectsTimelinesWrittenByOlderVersions() throws {
        let dir = Support.scratch()
        defer { Support.remove(dir) }
        var central = Self.keyMissing(role: 0, localDisconnect: true, reason: 0x16)
        central.connectionComplete(1000, handle: 0x41, role: 1, peer: Self.mac)
        central.disconnectionComplete(1500, handle: 0x41, reason: 0x13)
        try central.write(to: dir + "/c.btsnoop")
        _ = try Importer.importCaptures([dir + "/c.btsnoop"], into: dir + "/t.db")
        let store = try TimelineStore(path: dir + "/t.db")
        // What the importer wrote before it knew the role or the encryption failure.
        try store.database.execute("""
            UPDATE error SET cb_error = NULL WHERE context = 'disconnect' AND code = 0x16;
            UPDATE error SET cb_error = 'CBError.peripheralDisconnected' WHERE context = 'disconnect' AND code = 0x13;
            INSERT OR REPLACE INTO analysis_state (capture_id, analysis_version) SELECT id, 1 FROM capture;
            """)
        #expect(try Analyzer.analyze(store) == 1)
        #expect(try cbErrors(store, context: "disconnect") == ["CBError.peerRemovedPairingInformation", nil])
    }

    /// The phone as peripheral sends an indication (Vol 3 Part F 3.4.7.2) the remote central
    /// never confirms; 30 s later (3.3.3) the local host disconnects (0x16). The ATT timeout does
    /// not give a CBError there: the app is a CBPeripheralManager. Errors, finding and diagnosis agree.
    @Test func errorsFindingsAndDiagnosisAgree() throws {
        var peripheralTimeout = SpecCapture()
        peripheralTimeout.connectionComplete(100, handle: 0x41, role: 1, peer: Self.mac)
        peripheralTimeout.att(150, handle: 0x41, [0x1D, 0x06, 0x00, 0x01], received: false)   // Handle Value Indication
        peripheralTimeout.cmd(30_200, 0x0406, [0x41, 0x00, 0x13])
        peripheralTimeout.commandStatus(30_201, 0x0406)
        peripheralTimeout.disconnectionComplete(30_260, handle: 0x41, reason: 0x16)
        var centralTimeout = SpecCapture()
        centralTimeout.connectionComplete(100, handle: 0x40, role: 0, peer: Self.sensor)
        centralTimeout.att(150, handle: 0x40, [0x12, 0x12, 0x00, 0x01], received: false)      // Write Request, never answered
        centralTimeout.cmd(30_200, 0x0406, [0x40, 0x00, 0x13])
        centralTimeout.commandStatus(30_201, 0x0406)
        centralTimeout.disconnectionComplete(30_260, handle: 0x40, reason: 0x16)
        let cases: [(SpecCapture, String?)] = [
            (Self.keyMissing(role: 0, localDisconnect: true, reason: 0x16), "CBError.peerRemovedPairingInformation"),
            (Self.keyMissing(role: 0, localDisconnect: true, reason: 0x13), "CBError.peerRemovedPairingInformation"),
            (Self.keyMissing(role: 0, localDisconnect: false, reason: 0x08), "CBError.peerRemovedPairingInformation"),
            (Self.keyMissing(role: 1, localDisconnect: false, reason: 0x13), nil),
            (peripheralTimeout, nil),
            (centralTimeout, "CBError.connectionTimeout"),
        ]
        for (capture, expected) in cases {
            let dir = Support.scratch()
            defer { Support.remove(dir) }
            try capture.write(to: dir + "/s.btsnoop")
            let store = try Support.timeline([dir + "/s.btsnoop"], at: dir + "/t.db")
            let conn = try #require(try DiagnosisLoader.load(store).flatMap { $0.connections }.first)
            let ended = try #require(conn.findings.first { $0.finding.evidence.contains(conn.disconnectPacketID ?? -1) && $0.finding.code != "att-timeout" && $0.finding.code != "indication-unconfirmed" })
            #expect(try cbErrors(store, context: "disconnect") == [expected])
            #expect(conn.disconnectCBError == expected)
            #expect(ended.finding.cbError == expected, "\(ended.finding.code): \(ended.finding.detail)")
        }
    }
}
