import BLECore

/// Who sent an LE air frame, as far as its sniffer pseudo-header says (for the record's
/// `direction`: central to peripheral is `sent`, peripheral to central `received`, as
/// Wireshark's nRF Sniffer dissector shows them). BLEDecode reads the whole header
/// (`SnifferHeader`); this only fills the packets table's direction column.
///
/// - LINKTYPE 256 (`LINKTYPE_BLUETOOTH_LE_LL_WITH_PHDR`): flags u16 little-endian at byte 8,
///   PDU type in bits 7-9: 2 data central to peripheral, 3 data peripheral to central.
/// - LINKTYPE 272 (`LINKTYPE_NORDIC_BLE`): flags at byte 8 in every header version; bit 1 is
///   the direction (1 = central to peripheral) of a data PDU. A data PDU is one whose access
///   address (after the event header: byte 7 + its length byte at 7, or byte 17 in the legacy
///   0xBEEF form) is not the advertising one, or, from header version 3, packet id 0x06.
/// - LINKTYPE 251 and advertising PDUs: unknown.
enum AirFrameDirection {
    static func direction(linkType: PcapLinkType, frame: UnsafeRawBufferPointer) -> Direction {
        switch linkType {
        case .bluetoothLELLWithPHDR:
            guard frame.count >= 10 else { return .unknown }
            let flags = UInt16(frame[8]) | UInt16(frame[9]) << 8
            switch (flags >> 7) & 0x7 {
            case 2: return .sent
            case 3: return .received
            default: return .unknown
            }
        case .nordicBLE:
            guard frame.count >= 9 else { return .unknown }
            let legacy = frame[0] == 0xBE && frame[1] == 0xEF
            let aaStart = legacy ? 17 : 7 + Int(frame[7])
            let isData: Bool
            if !legacy, frame[3] >= 3 {
                isData = frame[6] == 0x06
            } else if frame.count >= aaStart + 4 {
                let aa = UInt32(frame[aaStart]) | UInt32(frame[aaStart + 1]) << 8 | UInt32(frame[aaStart + 2]) << 16
                    | UInt32(frame[aaStart + 3]) << 24
                isData = aa != 0x8E89_BED6
            } else {
                isData = false
            }
            guard isData else { return .unknown }
            return frame[8] & 0x02 != 0 ? .sent : .received
        default:
            return .unknown
        }
    }
}
