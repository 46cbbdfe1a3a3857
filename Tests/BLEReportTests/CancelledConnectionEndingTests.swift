import BLEAnalysis
import Foundation
import Testing
import TestSupport
@testable import BLEReport

/// The host asked to disconnect and the link then ended with 0x08 (the peer never acknowledged
/// the LL_TERMINATE_IND, `blegen.linkloss disconnect-unacknowledged`). An iOS app that called
/// cancelPeripheralConnection gets didDisconnectPeripheral with no error, whatever the controller
/// reports; the diagnosis said "CoreBluetooth error not known (0x08)".
@Suite("what an app sees after its own disconnect ended in 0x08")
struct CancelledConnectionEndingTests {
    @Test func theEndedLineSaysTheAppSeesNoError() throws {
        let dir = Support.scratch()
        defer { Support.remove(dir) }
        try BlegenSessions.run("linkloss", [dir])
        let store = try Support.timeline([dir + "/disconnect-unacknowledged.btsnoop"], at: dir + "/t.db")
        let diagnosis = try #require(try DiagnosisLoader.load(store).first)
        #expect(diagnosis.connections.first?.localDisconnectRequested == true)
        let text = DiagnosisRenderer.text([diagnosis])
        #expect(text.contains("ended: 0x08 Connection Timeout at packet 19 → app sees no error if it cancelled the connection (the local host had asked to disconnect)"))
        #expect(!text.contains("CoreBluetooth error not known"))
    }
}
