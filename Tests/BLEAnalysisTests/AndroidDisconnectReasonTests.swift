import Foundation
import Testing
import TestSupport
import BLETimeline
@testable import BLEAnalysis

/// Whose HCI Disconnect ended a link decides what `onConnectionStateChange` got: the app's own
/// `BluetoothGatt.disconnect()` sends reason 0x13 and gets `GATT_SUCCESS`; the stack's (0x05 after
/// a failed pairing, …) gets the reason the controller reports (bta_gattc_act.cc `bta_gattc_close`).
/// The Android column reads that reason as the findings do (`LocalDisconnectCommand`: the link
/// event's field, else the command's raw bytes), and claims nothing when neither says it.
///
/// The capture comes from the generator (`blegen.sessions`, shape `local-disconnect-echoed`: the
/// host sends Disconnect 0x05, the controller reports 0x05 back).
@Suite("Android status of a link the local host ended")
struct AndroidDisconnectReasonTests {
    static func androidStatus(_ db: SQLiteDatabase) throws -> Int? {
        try db.rows("SELECT android_status FROM error WHERE context = 'disconnect'").first?[0].int
    }

    @Test func theReasonSentDecidesWithoutTheLinkEventText() throws {
        let dir = FileManager.default.temporaryDirectory.appendingPathComponent("blereplay-android-disc-\(UUID().uuidString)").path
        try FileManager.default.createDirectory(atPath: dir, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(atPath: dir) }
        let s = try #require(try BlegenSessions.generate(seed: 1, shape: "local-disconnect-echoed", into: dir).first)
        _ = try Importer.importCaptures([s.path], into: dir + "/t.db")
        let store = try TimelineStore(path: dir + "/t.db")
        _ = try Analyzer.analyze(store)
        let db = store.database
        let captureID = try #require(try db.rows("SELECT id FROM capture").first?[0].int64)
        // The stack's Disconnect (0x05), reported back as 0x05: the app got 5, not GATT_SUCCESS.
        #expect(try Self.androidStatus(db) == 5)
        // A timeline whose Disconnect link event has no reason field: the raw bytes still say 0x05.
        try db.execute("UPDATE link_event SET detail = NULL WHERE packet_id IN (SELECT packet_id FROM command WHERE opcode = 0x0406)")
        try Analyzer.applyAndroidRule(captureID, db: db)
        #expect(try Self.androidStatus(db) == 5)
        // Neither (imported with --no-raw, and no field): whose Disconnect it was is unknown.
        try db.execute("UPDATE packet SET raw = NULL")
        try Analyzer.applyAndroidRule(captureID, db: db)
        #expect(try Self.androidStatus(db) == nil)
    }

    /// An air capture has no HCI Disconnect: the central's LL_TERMINATE_IND (reason 0x13 in
    /// ../shared/captures/sniffle-gatt.pcap, packet 354) is its host's Disconnect, and the reason
    /// reported is the one it sent, so an Android central's app that asked got GATT_SUCCESS. The
    /// LL PDU's raw bytes are not read as an HCI Disconnect's.
    @Test func onAirTheCentralsTerminateCarriesTheReason() throws {
        let capture = URL(fileURLWithPath: #filePath).deletingLastPathComponent().appendingPathComponent("../../../shared/captures/sniffle-gatt.pcap").standardized.path
        let dir = FileManager.default.temporaryDirectory.appendingPathComponent("blereplay-android-air-\(UUID().uuidString)").path
        try FileManager.default.createDirectory(atPath: dir, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(atPath: dir) }
        _ = try Importer.importCaptures([capture], into: dir + "/t.db")
        let store = try TimelineStore(path: dir + "/t.db")
        _ = try Analyzer.analyze(store)
        let row = try #require(try store.database.rows("SELECT packet_id, code, android_status FROM error WHERE context = 'disconnect'").first)
        #expect(row[0].int == 354 && row[1].int == 0x13)
        #expect(row[2].int == 0)
        let captureID = try #require(try store.database.rows("SELECT id FROM capture").first?[0].int64)
        let connectionID = try #require(try store.database.rows("SELECT id FROM connection").first?[0].int64)
        let command = try #require(try LocalDisconnectCommand.find(store.database, captureID: captureID, connectionID: connectionID))
        #expect(command.packetID == 354)
        #expect(command.reason == nil || command.reason == 0x13)
    }
}
