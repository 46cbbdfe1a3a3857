import BLECore

/// The binary notes of a Linux monitor capture (btsnoop datalink 2001, pcap LINKTYPE 254):
/// records that describe controllers rather than carry HCI (BlueZ `src/shared/btsnoop.h`,
/// `monitor/packet.c`; opcodes as REFERENCE.md lists them). Their `rawType` is the monitor
/// opcode; PacketLogger notes use 0xF7-0xFE, so the numbers never collide.
///
/// New Index (0): Type u8 (0 primary, 1 AMP), Bus u8, BD_ADDR (little-endian), Name 8 bytes
/// NUL-padded. Index Info (10): BD_ADDR, Manufacturer u16. Delete/Open/Close Index (1, 8, 9):
/// no body. System Note (12) and User Logging (13) are text (the readers strip their framing).
/// A body of another size is not one of these records and is shown as a note.
extension PacketDecoder {
    static func monitorNote(_ record: CaptureRecord) -> String? {
        let index = "hci\(record.controllerIndex)"
        let p = record.payload
        switch record.rawType {
        case 0:
            guard p.count == 16 else { return nil }
            let address = BluetoothAddress(littleEndianBytes: p[2..<8])
            let name = Fmt.noteText(Array(p[8..<16].prefix { $0 != 0 }))
            let type = p[0] == 0 ? "" : p[0] == 1 ? " AMP" : " type " + Fmt.h2(p[0])
            return "New Index " + index + ":" + type + " " + Fmt.address(address) + " bus " + busName(p[1])
                + (name.isEmpty || name == index ? "" : " name \"" + name + "\"")
        case 1 where p.isEmpty: return "Delete Index " + index
        case 8 where p.isEmpty: return "Open Index " + index
        case 9 where p.isEmpty: return "Close Index " + index
        case 10:
            guard p.count == 8 else { return nil }
            let address = BluetoothAddress(littleEndianBytes: p[0..<6])
            let company = UInt16(p[6]) | UInt16(p[7]) << 8
            return "Index Info " + index + " " + Fmt.address(address) + " manufacturer " + Fmt.h4(company)
        default:
            return nil
        }
    }

    /// HCI bus types (BlueZ `lib/hci.h` HCI_VIRTUAL…HCI_IPC).
    static func busName(_ bus: UInt8) -> String {
        switch bus {
        case 0: "Virtual"
        case 1: "USB"
        case 2: "PC Card"
        case 3: "UART"
        case 4: "RS232"
        case 5: "PCI"
        case 6: "SDIO"
        case 7: "SPI"
        case 8: "I2C"
        case 9: "SMD"
        case 10: "VIRTIO"
        case 11: "IPC"
        default: Fmt.h2(bus)
        }
    }
}
