import TestSupport
import Foundation
import Testing
import BLEAnalysis
import BLETimeline

/// Whose app is given an ATT error. An Error Response the local GATT server sent (the iPhone as
/// a CBPeripheralManager) refuses the peer's request: the peer's app is given it; the local app
/// is given nothing, it or the stack sent it (REFERENCE.md CBATTError table). One the peer's server
/// sent answers the local app's request: that app is given the CBATTError.
@Suite("ATT errors: which app is given them")
struct LocalServerErrorAttributionTests {
    static let sensor: [UInt8] = [0xC4, 0x7A, 0x3B, 0x12, 0x9E, 0x51]
    static let mac: [UInt8] = [0x4F, 0x9A, 0x11, 0x22, 0x33, 0x44]

    /// Link 1 (0x40, local peripheral): 1 Connection Complete role 1, 2 Write Request (rx),
    /// 3 Error Response 0x0F (tx), 4 Read Request (rx), 5 Error Response 0x80 (tx), 6 Disconnection
    /// 0x13. Link 2 (0x41, local central): 7 Connection Complete, 8 Write Request (tx), 9 Error
    /// Response 0x0F (rx), 10 Disconnection 0x13.
    @Test func localServerRefusalsAreThePeersErrors() throws {
        var c = SpecCapture()
        c.connectionComplete(100, handle: 0x40, role: 1, peer: Self.mac)
        c.att(200, handle: 0x40, [0x12, 0x05, 0x00, 0x61], received: true)
        c.att(230, handle: 0x40, [0x01, 0x12, 0x05, 0x00, 0x0F], received: false)
        c.att(300, handle: 0x40, [0x0A, 0x03, 0x00], received: true)
        c.att(330, handle: 0x40, [0x01, 0x0A, 0x03, 0x00, 0x80], received: false)
        c.disconnectionComplete(1000, handle: 0x40, reason: 0x13)
        c.connectionComplete(2000, handle: 0x41, role: 0, peer: Self.sensor)
        c.att(2100, handle: 0x41, [0x12, 0x12, 0x00, 0x01], received: false)
        c.att(2130, handle: 0x41, [0x01, 0x12, 0x12, 0x00, 0x0F], received: true)
        c.disconnectionComplete(3000, handle: 0x41, reason: 0x13)
        let dir = Support.scratch()
        defer { Support.remove(dir) }
        let file = dir + "/server.pklg"
        try c.writePacketLogger(to: file)
        let store = try Support.timeline([file], at: dir + "/t.db")
        let connections = try DiagnosisLoader.load(store).flatMap(\.connections)
        #expect(connections.count == 2)
        let local = connections[0].findings.filter { $0.finding.code == "att-error" }.map(\.finding)
        let encryption = try #require(local.first { $0.title.contains("0x0F") })
        #expect(encryption.cbError == nil)
        #expect(encryption.detail.contains("A CoreBluetooth app on the peer gets CBATTError.insufficientEncryption; the local app is given no error"))
        let application = try #require(local.first { $0.title.contains("0x80") })
        #expect(application.cbError == nil)
        #expect(application.detail.contains("a CoreBluetooth app on the peer gets an NSError in CBATTErrorDomain with code 128"))
        #expect(!application.detail.contains(": an app gets an NSError"))
        let peer = try #require(connections[1].findings.first { $0.finding.code == "att-error" }?.finding)
        #expect(peer.cbError == "CBATTError.insufficientEncryption")
    }
}
