import BLECore
import Testing
@testable import BLEDecode

/// A Linux monitor capture's control-channel records (opcodes 14-17, BlueZ `monitor/packet.c`),
/// which btmon captures of bluetoothd are full of: named, where they read "Other record (type
/// 0x000E)". Bytes of btmon-monitor.btsnoop frames 6, 79 and 82 (tshark: Control Open, Cookie 1,
/// Format Control (0x0002), Version 1, Flags Trusted Socket, Ident "bluetoothd"; Control Command;
/// Control Event "Class of device changed (0x0007)").
@Suite("Linux monitor control records")
struct MonitorControlTests {
    static func record(_ opcode: UInt16, _ hexText: String) -> CaptureRecord {
        var r = Rec.make(.other, .unknown, hx(hexText))
        r.rawType = opcode
        return r
    }

    @Test func controlRecordsAreNamedInAMonitorCapture() {
        var options = DecoderOptions()
        options.monitorRecords = true
        var decoder = PacketDecoder(options: options)
        // Cookie 1 | Format 0x0002 | Version 1, Revision 21 | Flags 1 | Ident_Len 16 | "bluetoothd" NUL-padded
        let open = decoder.decode(Self.record(14, "01 00 00 00 02 00 01 15 00 01 00 00 00 10 62 6C 75 65 74 6F 6F 74 68 64 00 00 00 00 00 00"))
        #expect(open.summary == "Control Open: bluetoothd (trusted socket) version 1.21 (client 1)")
        // Cookie 1 | Opcode 0x0010 | 17 bytes of parameters
        let command = decoder.decode(Self.record(16, "01 00 00 00 10 00 FB 34 9B 5F 80 00 00 80 00 10 00 00 00 08 11 00 00 20"))
        #expect(command.summary == "MGMT Command 0x0010 (client 1), 18 bytes of parameters")
        // Cookie 1 | Event 0x0007 Class Of Device Changed | 3 bytes
        let event = decoder.decode(Self.record(17, "01 00 00 00 07 00 04 01 20"))
        #expect(event.summary == "MGMT Event Class Of Device Changed (0x0007) (client 1), 3 bytes of parameters")
        let close = decoder.decode(Self.record(15, "01 00 00 00"))
        #expect(close.summary == "Control Close (client 1)")
        #expect([open, command, event, close].allSatisfy { $0.layer == .other && $0.problems.isEmpty })
    }

    /// Another format's unknown record type 14 is not a monitor opcode.
    @Test func otherFormatsKeepTheirUnknownRecords() {
        var decoder = PacketDecoder()
        let other = decoder.decode(Self.record(14, "01 00 00 00 02 00 01 15 00 01 00 00 00 00"))
        #expect(other.summary == "Other record (type 0x000E, 14 bytes)")
    }
}
