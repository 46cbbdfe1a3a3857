import Testing
import TestSupport

/// A value the client read by its type (Read Using Characteristic UUID, Core v5.4 Vol 3 Part G
/// 4.8.2) is that type's value even when the client never discovered the characteristic: iOS and
/// Android's stack read the GAP Device Name (0x2A00) so right after connecting
/// (../shared/captures/ios-glasses.pklg packet 249, android-pongbot.btsnoop). The device is named
/// by it, and Device Information strings read so give its model and firmware.
@Suite("values read by type name the device")
struct ReadByTypeIdentityTests {
    static let peer: [UInt8] = [0xC4, 0x7A, 0x3B, 0x12, 0x9E, 0x51]

    /// A central's link with no discovery: Read By Type Requests for 0x2A00 and 0x2A24, each
    /// answered by a Read By Type Response of one handle-value pair, then a Disconnect.
    static func capture() -> [UInt8] {
        var c = SpecCapture()
        c.connectionComplete(0, handle: 0x0040, role: 0, peer: peer)
        var t: Int64 = 100
        // Read By Type Request (0x08): starting handle 0x0001, ending 0xFFFF, type 0x2A00.
        // Read By Type Response (0x09): length 2 + 8, handle 0x0003, "Sensor-7".
        c.exchange(&t, handle: 0x0040, [0x08, 0x01, 0x00, 0xFF, 0xFF, 0x00, 0x2A],
                   [0x09, 0x0A, 0x03, 0x00] + Array("Sensor-7".utf8))
        // The same for Model Number String (0x2A24): handle 0x0012, "HR-200" and its NUL padding.
        c.exchange(&t, handle: 0x0040, [0x08, 0x01, 0x00, 0xFF, 0xFF, 0x24, 0x2A],
                   [0x09, 0x09, 0x12, 0x00] + Array("HR-200".utf8) + [0x00])
        // A later Read Request of the name's handle: the value stays the Device Name's.
        c.exchange(&t, handle: 0x0040, [0x0A, 0x03, 0x00], [0x0B] + Array("Sensor-8".utf8))
        c.disconnectionComplete(t + 100, handle: 0x0040, reason: 0x13)
        return c.bytes
    }

    @Test func theDeviceIsNamedByWhatItsClientReadByType() throws {
        try AnalysedSpecCapture.withTimeline(Self.capture()) { store in
            let device = try store.database.rows("SELECT name, model FROM device WHERE address = 'C4:7A:3B:12:9E:51'")
            #expect(device.count == 1)
            #expect(device.first?[0].string == "Sensor-8")
            #expect(device.first?[1].string == "HR-200")
            let values = try store.database.rows("SELECT handle, read_by_type FROM gatt_value ORDER BY handle")
            #expect(values.map { "\($0[0].int ?? -1) \($0[1].string ?? "-")" } == ["3 2A00", "18 2A24"])
        }
    }
}
