import CoreBluetoothReplay
import Foundation
import Testing
import TestSupport

/// DeviceSettingsServer against a recorded central built from the spec (role 0x01, ATT MTU 23):
/// what an iPhone running the app answered, laid out as Core v5.4 Vol 3 Part F 3.4 says.
@Suite struct DeviceSettingsServerTests {
    static let info = Array(DeviceSettingsServer.deviceInfo)
    static let partA = Array("{\"led\":1,\"vol\":7,".utf8), partB = Array("\"mode\":2}".utf8)   // 17 + 9 bytes
    static let token = Array(DeviceSettingsServer.token)

    /// The central reads the 52-byte info in three pieces and once past its end (Read Blob at 60:
    /// Invalid Offset, Vol 3 Part F 3.4.4.5), writes 26 bytes of config in two prepared parts,
    /// reads them back, sends a Write Command, and reads the token: refused for lack of
    /// security while the link is not encrypted (0x05 Insufficient Authentication, which a
    /// central answers by pairing), then, after the recorded Encryption Change (HCI 0x08, Vol 4
    /// Part E 7.7.8), answered.
    static func capture(encrypts: Bool = true) throws -> String {
        var c = SpecCapture()
        c.connectionComplete(100, handle: 0x41, role: 1, peer: [0x6C, 0x21, 0x11, 0x22, 0x33, 0x44])
        func served(_ ms: Int64, _ req: [UInt8], _ rsp: [UInt8]?) { c.served(ms, handle: 0x41, req, rsp) }
        served(200, [0x0A, 0x0C, 0x00], [0x0B] + info[0..<22])
        served(250, [0x0C, 0x0C, 0x00, 22, 0x00], [0x0D] + info[22..<44])
        served(300, [0x0C, 0x0C, 0x00, 44, 0x00], [0x0D] + info[44...])
        served(350, [0x0C, 0x0C, 0x00, 60, 0x00], [0x01, 0x0C, 0x0C, 0x00, 0x07])
        served(400, [0x16, 0x0E, 0x00, 0x00, 0x00] + partA, [0x17, 0x0E, 0x00, 0x00, 0x00] + partA)
        served(450, [0x16, 0x0E, 0x00, 17, 0x00] + partB, [0x17, 0x0E, 0x00, 17, 0x00] + partB)
        served(500, [0x18, 0x01], [0x19])
        served(550, [0x0A, 0x0E, 0x00], [0x0B] + (partA + partB)[0..<22])
        served(600, [0x0C, 0x0E, 0x00, 22, 0x00], [0x0D] + (partA + partB)[22...])
        c.att(650, handle: 0x41, [0x52, 0x10, 0x00, 0x01, 0x02], received: true)
        served(700, [0x0A, 0x12, 0x00], [0x01, 0x0A, 0x12, 0x00, 0x05])
        if encrypts {
            // SMP Pairing Request from the central, Pairing Response (Vol 3 Part H 3.5.1-3.5.2),
            // then (the rest of pairing elided) Encryption Change: status 0, handle, enabled.
            c.smp(750, handle: 0x41, [0x01, 0x03, 0x00, 0x01, 0x10, 0x07, 0x07], received: true)
            c.smp(752, handle: 0x41, [0x02, 0x03, 0x00, 0x01, 0x10, 0x07, 0x07], received: false)
            c.evt(900, 0x08, [0x00, 0x41, 0x00, 0x01])
        }
        served(950, [0x0A, 0x12, 0x00], encrypts ? [0x0B] + token : [0x01, 0x0A, 0x12, 0x00, 0x05])
        c.disconnectionComplete(2_000, handle: 0x41, reason: 0x13)
        let path = FileManager.default.temporaryDirectory.appendingPathComponent("periph-settings-\(UUID().uuidString).btsnoop").path
        try c.write(to: path)
        return path
    }

    @Test func longReadsAndPreparedWritesAreAnsweredAsRecorded() throws {
        let path = try Self.capture()
        defer { try? FileManager.default.removeItem(atPath: path) }
        let replay = try CBReplay(capture: path)
        let app = replay.activate { DeviceSettingsServer() }
        replay.run(for: 3)
        let driver = replay.localServerDriver
        #expect(driver.divergences.isEmpty, "\(driver.divergences)")
        #expect(driver.servers.first?.compared == 11)
        #expect(app.config == Data(Self.partA + Self.partB))
        #expect(app.commands == [Data([0x01, 0x02])])
        // One didReceiveWrite for the prepared parts (at Execute Write), each with its offset;
        // the Write Command's answer is ignored without a note.
        #expect(app.log.filter { $0.hasPrefix("write") } == ["write config@0+17 config@17+9", "write command@0+2"])
        #expect(!replay.diagnostics.contains { $0.kind == .respondMisuse })
    }

    /// `.readEncryptionRequired`: "only trusted devices can read the attribute's value" (Apple,
    /// `CBAttributePermissions`). On a link that is not encrypted the system refuses the read
    /// itself with Insufficient Authentication (0x05), which makes the central pair; the app
    /// hears only the read that comes once the link is encrypted.
    @Test func aTokenThatNeedsEncryptionIsRefusedUntilTheLinkIsEncrypted() throws {
        let path = try Self.capture()
        defer { try? FileManager.default.removeItem(atPath: path) }
        let replay = try CBReplay(capture: path)
        let app = replay.activate { DeviceSettingsServer() }
        replay.run(for: 3)
        #expect(replay.localServerDriver.divergences.isEmpty, "\(replay.localServerDriver.divergences)")
        #expect(app.log.filter { $0.hasPrefix("read token") } == ["read token @0"])
    }

    /// A central that never pairs gets 0x05 every time, and the app never hears the reads.
    @Test func aCentralThatNeverEncryptsNeverReadsTheToken() throws {
        let path = try Self.capture(encrypts: false)
        defer { try? FileManager.default.removeItem(atPath: path) }
        let replay = try CBReplay(capture: path)
        let app = replay.activate { DeviceSettingsServer() }
        replay.run(for: 3)
        #expect(replay.localServerDriver.divergences.isEmpty, "\(replay.localServerDriver.divergences)")
        #expect(!app.log.contains { $0.hasPrefix("read token") })
    }

    /// `.writeEncryptionRequired` on a link that is not encrypted: the system refuses a Write
    /// Request and a Prepare Write Request with 0x05 and drops a Write Command; once the link is
    /// encrypted the write reaches the app. The central also reads the system's Service Changed
    /// value (0x0008), which is not readable (Core v5.4 Vol 3 Part G 7.1: "Not Readable"): Read
    /// Not Permitted.
    @Test func aPinThatNeedsEncryptionIsWrittenOnlyOnceTheLinkIsEncrypted() throws {
        var c = SpecCapture()
        c.connectionComplete(100, handle: 0x41, role: 1, peer: [0x6C, 0x21, 0x11, 0x22, 0x33, 0x45])
        func served(_ ms: Int64, _ req: [UInt8], _ rsp: [UInt8]?) { c.served(ms, handle: 0x41, req, rsp) }
        served(200, [0x0A, 0x08, 0x00], [0x01, 0x0A, 0x08, 0x00, 0x02])
        served(250, [0x12, 0x14, 0x00, 0x31, 0x32], [0x01, 0x12, 0x14, 0x00, 0x05])
        served(300, [0x16, 0x14, 0x00, 0x00, 0x00, 0x31, 0x32], [0x01, 0x16, 0x14, 0x00, 0x05])
        c.att(350, handle: 0x41, [0x52, 0x14, 0x00, 0x33], received: true)
        c.evt(500, 0x08, [0x00, 0x41, 0x00, 0x01])
        served(600, [0x12, 0x14, 0x00, 0x34, 0x35], [0x13])
        c.disconnectionComplete(1_000, handle: 0x41, reason: 0x13)
        let path = FileManager.default.temporaryDirectory.appendingPathComponent("periph-pin-\(UUID().uuidString).btsnoop").path
        try c.write(to: path)
        defer { try? FileManager.default.removeItem(atPath: path) }
        let replay = try CBReplay(capture: path)
        let app = replay.activate { DeviceSettingsServer() }
        replay.run(for: 2)
        #expect(replay.localServerDriver.divergences.isEmpty, "\(replay.localServerDriver.divergences)")
        #expect(replay.localServerDriver.servers.first?.compared == 4)
        #expect(app.log.filter { $0.hasPrefix("write") } == ["write pin@0+2"])
        #expect(app.pin == Data([0x34, 0x35]))
    }

    /// The app unpublishes its services between the central's Prepare Write Requests and its
    /// Execute Write: the system has nothing to hand the app (iOS never calls didReceiveWrite with
    /// an empty array, which an app indexing `requests[0]` would crash on) and answers the
    /// Execute Write itself: Invalid Handle, the prepared handle naming nothing now.
    @Test func preparedWritesToAServiceRemovedBeforeExecuteAreRefused() throws {
        let path = try Self.capture()
        defer { try? FileManager.default.removeItem(atPath: path) }
        let replay = try CBReplay(capture: path)
        let app = replay.activate { DeviceSettingsServer() }
        replay.run(for: 0.38)   // both parts prepared (0.3025 s, 0.3525 s), the Execute at 0.4025 s
        #expect(!app.log.contains { $0.hasPrefix("write") })
        app.peripheralManager.removeAllServices()
        replay.run(for: 3)
        #expect(!app.log.contains { $0.hasPrefix("write") }, "\(app.log)")
        let d = replay.localServerDriver.divergences.first
        #expect(d?.requestPacketID == 14)
        #expect(d?.answered == [0x01, 0x18, 0x0E, 0x00, 0x01], "\(replay.localServerDriver.divergences)")
    }
}
