import TestSupport
import Foundation
import Testing
import BLEAnalysis
@testable import BLEReport

/// `gatt` and the diagnosis's evidence show standard characteristic values decoded, from a
/// capture built from spec bytes.
@Suite("gatt and evidence: standard characteristic values decoded")
struct CharacteristicValueReportTests {
    static let peer: [UInt8] = [0xC4, 0x7A, 0x3B, 0x12, 0x9E, 0x51]

    /// A central discovers Device Information (0x180A, handles 0x0001–0x0005) with Firmware
    /// Revision String (0x2A26, value handle 0x0003) and Heart Rate Measurement (0x2A37, value
    /// 0x0005), reads the firmware string (NUL-padded to 8 bytes), gets one notification, and the
    /// peer terminates (0x13).
    static func capture() -> SpecCapture {
        var c = SpecCapture()
        c.connectionComplete(0, handle: 0x40, role: 0, peer: peer)
        // Read By Group Type Request 0x0001–0xFFFF, Primary Service (Core v5.4 Vol 3 Part F 3.4.4.9)
        c.att(10, handle: 0x40, [0x10, 0x01, 0x00, 0xFF, 0xFF, 0x00, 0x28], received: false)
        // Response: length 6; 0x0001–0x0005 service 0x180A
        c.att(20, handle: 0x40, [0x11, 0x06, 0x01, 0x00, 0x05, 0x00, 0x0A, 0x18], received: true)
        // Read By Type Request 0x0001–0x0005, Characteristic (3.4.4.1)
        c.att(30, handle: 0x40, [0x08, 0x01, 0x00, 0x05, 0x00, 0x03, 0x28], received: false)
        // Response: length 7; decl 0x0002: read (0x02), value 0x0003, 2A26; decl 0x0004: notify (0x10), value 0x0005, 2A37
        c.att(40, handle: 0x40, [0x09, 0x07, 0x02, 0x00, 0x02, 0x03, 0x00, 0x26, 0x2A,
                                 0x04, 0x00, 0x10, 0x05, 0x00, 0x37, 0x2A], received: true)
        // Read Request 0x0003; Read Response "2.1.0" + 3 NULs
        c.att(50, handle: 0x40, [0x0A, 0x03, 0x00], received: false)
        c.att(60, handle: 0x40, [0x0B] + Array("2.1.0".utf8) + [0, 0, 0], received: true)
        // Handle Value Notification 0x0005: flags 0x16 (uint8, contact detected, RR present), 72 bpm, RR 0x0355 = 853/1024 s
        c.att(70, handle: 0x40, [0x1B, 0x05, 0x00, 0x16, 0x48, 0x55, 0x03], received: true)
        c.disconnectionComplete(1_000, handle: 0x40, reason: 0x13)
        return c
    }

    @Test func gattShowsTheValuesDecoded() throws {
        let dir = Support.scratch()
        defer { Support.remove(dir) }
        try Self.capture().write(to: dir + "/dis.btsnoop")
        let store = try Support.timeline([dir + "/dis.btsnoop"], at: dir + "/t.db")
        let text = GATTRenderer.text(try DeviceGATT.load(store))
        #expect(text.contains("value: 32 2e 31 2e 30 00 00 00 = \"2.1.0\" (3 NUL byte(s) of padding) (read, packet 7)"))
        #expect(text.contains("value: 16 48 55 03 = 72 bpm, sensor contact detected, RR 0.833 s (notification, packet 8)"))
    }

    @Test func evidenceLinesShowTheValueDecoded() throws {
        let dir = Support.scratch()
        defer { Support.remove(dir) }
        try Self.capture().write(to: dir + "/dis.btsnoop")
        let store = try Support.timeline([dir + "/dis.btsnoop"], at: dir + "/t.db")
        let diagnosis = try DiagnosisLoader.load(store)
        let evidence = diagnosis.flatMap { $0.connections.flatMap { $0.findings.flatMap(\.evidence) } }
        // The peer-terminated finding cites the last packet from the peer, the notification.
        let notification = try #require(evidence.first { $0.packetID == 8 })
        #expect(notification.summary.hasSuffix(" — Heart Rate Measurement: 72 bpm, sensor contact detected, RR 0.833 s"))
    }
}
