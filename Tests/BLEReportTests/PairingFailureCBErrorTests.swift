import TestSupport
import Foundation
import Testing
import BLEAnalysis
import BLETimeline

/// What a CoreBluetooth app is given when pairing fails. A central pairs because the peer's
/// server refused a request for security (ATT Error Response 0x05, 0x0C or 0x0F, Core v5.4 Vol 3
/// Part F 3.4.1.1); when pairing fails that request fails with the refusal's CBATTError (REFERENCE.md
/// CBATTError table: 0x0F is insufficientEncryption, 0x05 insufficientAuthentication). Pairing no
/// request asked for (a peripheral's Security Request), or on a link where the iPhone was the
/// peripheral (a CBPeripheralManager makes no requests), gives the app no CBATTError.
@Suite("Pairing failures: the CBATTError an app is given")
struct PairingFailureCBErrorTests {
    static let sensor: [UInt8] = [0xC4, 0x7A, 0x3B, 0x12, 0x9E, 0x51]
    static let mac: [UInt8] = [0x4F, 0x9A, 0x11, 0x22, 0x33, 0x44]
    /// SMP Pairing Request / Response (Vol 3 Part H 3.5.1-2): IO NoInputNoOutput, no OOB,
    /// AuthReq bonding|MITM|SC, key size 16, keys none / LTK+IRK.
    static let pairingRequest: [UInt8] = [0x01, 0x03, 0x00, 0x0D, 0x10, 0x00, 0x03]
    static let pairingResponse: [UInt8] = [0x02, 0x03, 0x00, 0x0D, 0x10, 0x00, 0x03]

    /// Frames: link 1 (handle 0x40, local central) 1 Connection Complete, 2 Write Request 0x0012,
    /// 3 Error Response 0x0F Insufficient Encryption, 4 Pairing Request, 5 Pairing Failed 0x05,
    /// 6 Disconnection Complete 0x13; link 2 (0x41, local central) 7 Connection Complete,
    /// 8 Security Request (rx), 9 Pairing Request, 10 Pairing Failed 0x04, 11 Disconnection 0x13;
    /// link 3 (0x42, local peripheral) 12 Connection Complete, 13 Pairing Request (rx),
    /// 14 Pairing Response, 15 Pairing Failed 0x04 (rx), 16 Disconnection 0x13.
    static func capture() -> SpecCapture {
        var c = SpecCapture()
        c.connectionComplete(100, handle: 0x40, role: 0, peer: sensor)
        c.att(200, handle: 0x40, [0x12, 0x12, 0x00, 0x01], received: false)
        c.att(230, handle: 0x40, [0x01, 0x12, 0x12, 0x00, 0x0F], received: true)
        c.smp(240, handle: 0x40, pairingRequest, received: false)
        c.smp(300, handle: 0x40, [0x05, 0x05], received: true)
        c.disconnectionComplete(2000, handle: 0x40, reason: 0x13)
        c.connectionComplete(3000, handle: 0x41, role: 0, peer: sensor)
        c.smp(3100, handle: 0x41, [0x0B, 0x0D], received: true)
        c.smp(3110, handle: 0x41, pairingRequest, received: false)
        c.smp(3200, handle: 0x41, [0x05, 0x04], received: true)
        c.disconnectionComplete(4000, handle: 0x41, reason: 0x13)
        c.connectionComplete(5000, handle: 0x42, role: 1, peer: mac)
        c.smp(5100, handle: 0x42, pairingRequest, received: true)
        c.smp(5110, handle: 0x42, pairingResponse, received: false)
        c.smp(5200, handle: 0x42, [0x05, 0x04], received: true)
        c.disconnectionComplete(6000, handle: 0x42, reason: 0x13)
        return c
    }

    @Test func pairingFailureNamesTheRefusedRequestsError() throws {
        let dir = Support.scratch()
        defer { Support.remove(dir) }
        let file = dir + "/pairing.pklg"
        try Self.capture().writePacketLogger(to: file)
        let store = try Support.timeline([file], at: dir + "/t.db")
        let connections = try DiagnosisLoader.load(store).flatMap(\.connections)
        #expect(connections.count == 3)
        let failed = connections.map { c in c.findings.first { $0.finding.code == "pairing-failed" }?.finding }
        #expect(failed.map { $0 != nil } == [true, true, true])
        #expect(failed[0]?.cbError == "CBATTError.insufficientEncryption")
        #expect(failed[0]?.detail.contains("refusal of a local request (packet 3)") == true)
        #expect(failed[1]?.cbError == nil)
        #expect(failed[2]?.cbError == nil)
    }
}
