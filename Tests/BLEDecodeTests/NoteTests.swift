import BLECore
import Testing
@testable import BLEDecode

/// Notes: the Linux monitor's index records (BlueZ `src/shared/btsnoop.h`: New Index = type u8,
/// bus u8, bdaddr, name[8]; Index Info = bdaddr, manufacturer u16; tshark 4.0 shows the same
/// fields as "Adapter Name", "Manufacturer") and PacketLogger's binary notes.
@Suite("Notes")
struct NoteTests {
    private func note(_ rawType: UInt16, _ payload: [UInt8], controller: UInt16 = 0) -> CaptureRecord {
        CaptureRecord(frameNumber: 1, timestamp: 0, direction: .unknown, kind: .note, payload: payload,
                      fileOffset: 16, controllerIndex: controller, rawType: rawType)
    }

    @Test func monitorNewIndexIsDecoded() {
        var decoder = PacketDecoder()
        // Type 0 (primary), bus 1 (USB), bdaddr AD:2F:FE:9E:91:00 little-endian, "hci1"
        let p = decoder.decode(note(0, hx("00 01 AD 2F FE 9E 91 00") + Array("hci1".utf8) + [0, 0, 0, 0], controller: 1))
        #expect(p.layer == .note)
        #expect(p.summary == "New Index hci1: 00:91:9E:FE:2F:AD bus USB")
        #expect(decoder.decode(note(8, [], controller: 1)).summary == "Open Index hci1")
        #expect(decoder.decode(note(10, hx("AD 2F FE 9E 91 00 02 00"))).summary
                == "Index Info hci0 00:91:9E:FE:2F:AD manufacturer 0x0002")
    }

    @Test func textNotesStayText() {
        var decoder = PacketDecoder()
        #expect(decoder.decode(note(0xFC, Array("Product: iPhone16,1".utf8) + [0])).summary == "Product: iPhone16,1")
        #expect(decoder.decode(note(12, Array("Bluetooth daemon 5.66".utf8))).summary == "Bluetooth daemon 5.66")
    }

    /// PacketLogger syslog (0xF7), as Wireshark's packet-packetlogger.c `dissect_syslog` reads it:
    /// process ID u32 LE (97), message type u8 (0), then process, sender, subsystem, category,
    /// message, each NUL-terminated.
    @Test func packetLoggerSyslogGivesItsMessage() {
        var decoder = PacketDecoder()
        let strings = ["bluetoothd", "CoreBluetooth", "com.apple.bluetooth", "Server", "Disconnected peripheral"]
        let payload: [UInt8] = [0x61, 0x00, 0x00, 0x00, 0x00] + strings.flatMap { Array($0.utf8) + [0] }
        #expect(decoder.decode(note(0xF7, payload)).summary
                == "syslog bluetoothd[97] (com.apple.bluetooth:Server): Disconnected peripheral")
        // Fewer than five strings: shown as bytes, as any binary note.
        #expect(decoder.decode(note(0xF7, [0x61, 0x00, 0x00, 0x00, 0x00] + Array("bluetoothd".utf8) + [0])).summary
                .hasPrefix("note, 15 bytes: "))
    }

    /// A PacketLogger record whose length field is 8 has no type byte (BLECapture gives it
    /// `rawType` 0xFFFF, `PacketLoggerType.noTypeByte`): an empty other record, never read as
    /// an air capture's link-layer packet (rawType 256 is LINKTYPE_BLUETOOTH_LE_LL_WITH_PHDR).
    @Test func packetLoggerRecordWithNoTypeIsOther() {
        var decoder = PacketDecoder()
        let p = decoder.decode(CaptureRecord(frameNumber: 4, timestamp: 0, direction: .unknown, kind: .other, payload: [],
                                             fileOffset: 51, rawType: 0xFFFF))
        #expect(p.layer == .other)
        #expect(p.problems.isEmpty)
        #expect(p.summary == "Other record (type 0xFFFF, 0 bytes)")
    }

    @Test func binaryNotesAreShownAsBytes() {
        var decoder = PacketDecoder()
        // PacketLogger power record (0xFB) with one byte
        #expect(decoder.decode(note(0xFB, [0x01])).summary == "note, 1 bytes: 01")
        #expect(decoder.decode(note(0xFD, [0x41, 0x00, 0x02, 0x42])).summary == "note, 4 bytes: 41000242")
    }
}
