import BLECore

/// The control-channel records of a Linux monitor capture (btsnoop datalink 2001, pcap LINKTYPE
/// 254): what the kernel's management interface exchanged with its clients (bluetoothd, btmgmt),
/// as BlueZ `monitor/packet.c` (`packet_ctrl_open` and its neighbours) lays them out, all
/// little-endian:
///
/// - Control Open (14): Cookie u32, Format u16 (0x0000 raw, 0x0001 user, 0x0002 control: the
///   management interface), Version u8 and Revision u16, Flags u32 (bit 0: a trusted socket),
///   Ident_Len u8, Ident (NUL-padded name).
/// - Control Close (15): Cookie u32.
/// - Control Command (16): Cookie u32, Opcode u16, then the command's parameters.
/// - Control Event (17): Cookie u32, Event u16 (named as BlueZ's doc/mgmt-api.txt names them),
///   then the event's parameters.
///
/// They carry no HCI; named here so a btmon capture's timeline does not show "Other record".
extension PacketDecoder {
    static func monitorControl(_ record: CaptureRecord) -> String? {
        let p = record.payload
        guard p.count >= 4 else { return nil }
        func u16(_ i: Int) -> UInt16 { UInt16(p[i]) | UInt16(p[i + 1]) << 8 }
        let cookie = UInt32(p[0]) | UInt32(p[1]) << 8 | UInt32(p[2]) << 16 | UInt32(p[3]) << 24
        let client = " (client " + String(cookie) + ")"
        switch record.rawType {
        case 14:
            guard p.count >= 14 else { return nil }
            let format = u16(4)
            let name = format == 0 ? "Raw" : format == 1 ? "User" : format == 2 ? "Control" : "Format " + Fmt.h4(format)
            let flags = UInt32(p[9]) | UInt32(p[10]) << 8 | UInt32(p[11]) << 16 | UInt32(p[12]) << 24
            let length = Int(p[13])
            let ident = p.count >= 14 + length ? Fmt.noteText(Array(p[14..<(14 + length)].prefix { $0 != 0 })) : ""
            return name + " Open" + (ident.isEmpty ? "" : ": " + ident) + (flags & 1 != 0 ? " (trusted socket)" : "")
                + " version \(p[6]).\(u16(7))" + client
        case 15:
            return "Control Close" + client
        case 16:
            guard p.count >= 6 else { return nil }
            return "MGMT Command " + Fmt.h4(u16(4)) + client + ", \(p.count - 6) bytes of parameters"
        case 17:
            guard p.count >= 6 else { return nil }
            let event = u16(4)
            let name = Int(event) < Self.managementEvents.count && event > 0 ? Self.managementEvents[Int(event)] + " " : ""
            return "MGMT Event " + name + "(" + Fmt.h4(event) + ")" + client + ", \(p.count - 6) bytes of parameters"
        default:
            return nil
        }
    }

    /// Management event codes 0x0001-0x0026 (BlueZ doc/mgmt-api.txt); index 0 is unused.
    static let managementEvents = [
        "", "Command Complete", "Command Status", "Controller Error", "Index Added", "Index Removed",
        "New Settings", "Class Of Device Changed", "Local Name Changed", "New Link Key", "New Long Term Key",
        "Device Connected", "Device Disconnected", "Connect Failed", "PIN Code Request", "User Confirmation Request",
        "User Passkey Request", "Authentication Failed", "Device Found", "Discovering", "Device Blocked",
        "Device Unblocked", "Device Unpaired", "Passkey Notify", "New Identity Resolving Key", "New Signature Resolving Key",
        "Device Added", "Device Removed", "New Connection Parameter", "Unconfigured Index Added",
        "Unconfigured Index Removed", "New Configuration Options", "Extended Index Added", "Extended Index Removed",
        "Local Out Of Band Extended Data Updated", "Advertising Added", "Advertising Removed", "Extended Controller Information Changed",
        "PHY Configuration Changed",
    ]
}
