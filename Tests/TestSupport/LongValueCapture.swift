/// A connection with a 300-byte attribute value read as a long read (Core v5.4 Vol 3 Part G
/// 4.8.3) at an ATT MTU of 185, which no sample capture has. Handles (Vol 3 Part G 3.1-3.3):
///
///     0x0001-0x0003 1800 Generic Access     0x0002 decl, 0x0003 Device Name (read)
///     0x0004-0x0005 1801 Generic Attribute  (no characteristics)
///     0x0006-0x0008 FFE0 (vendor)           0x0007 decl, 0x0008 FFE1 (read, write: 0x0A)
///
/// The central connects at 100 ms, exchanges the MTU (Client Rx 517, Server Rx 185: MTU 185),
/// discovers, reads the Device Name, then reads 0x0008: Read Response with bytes 0-183
/// (MTU - 1 = 184 of them), Read Blob Request at offset 184 (`0C 08 00 B8 00`), Read Blob
/// Response with bytes 184-299 (116, shorter than MTU - 1: the value is complete). Byte i of
/// the value is `i & 0xFF`. The capture ends at 2000 ms with the link up.
extension SpecCapture {
    public static let longValuePeer: [UInt8] = [0xD4, 0x11, 0x22, 0x33, 0x44, 0x55]
    public static let longValue: [UInt8] = (0..<300).map { UInt8($0 & 0xFF) }

    /// `properties` is FFE1's characteristic properties byte (0x0A read, write; 0x0E adds write
    /// without response); `serverRxMTU` the peripheral's Server Rx MTU (185; 517 makes the MTU 517).
    public static func longValueRead(properties: UInt8 = 0x0A, serverRxMTU: UInt16 = 185) -> SpecCapture {
        var c = SpecCapture()
        let h: UInt16 = 0x40
        c.connectionComplete(100, handle: h, role: 0, peer: longValuePeer)
        var t: Int64 = 150
        func exchange(_ request: [UInt8], _ response: [UInt8]) { c.exchange(&t, handle: h, request, response) }
        // Exchange MTU (Vol 3 Part F 3.4.2): 517 asked, 185 offered.
        exchange([0x02, 0x05, 0x02], [0x03] + c.le16(serverRxMTU))
        // Primary services (Read By Group Type 0x2800).
        exchange([0x10, 0x01, 0x00, 0xFF, 0xFF, 0x00, 0x28],
                 [0x11, 0x06, 0x01, 0x00, 0x03, 0x00, 0x00, 0x18, 0x04, 0x00, 0x05, 0x00, 0x01, 0x18,
                  0x06, 0x00, 0x08, 0x00, 0xE0, 0xFF])
        exchange([0x10, 0x09, 0x00, 0xFF, 0xFF, 0x00, 0x28], [0x01, 0x10, 0x09, 0x00, 0x0A])
        // Characteristics (Read By Type 0x2803).
        exchange([0x08, 0x01, 0x00, 0xFF, 0xFF, 0x03, 0x28],
                 [0x09, 0x07, 0x02, 0x00, 0x02, 0x03, 0x00, 0x00, 0x2A, 0x07, 0x00, properties, 0x08, 0x00, 0xE1, 0xFF])
        exchange([0x08, 0x08, 0x00, 0xFF, 0xFF, 0x03, 0x28], [0x01, 0x08, 0x08, 0x00, 0x0A])
        exchange([0x0A, 0x03, 0x00], [0x0B] + Array("Long Box".utf8))
        // The long read at MTU 185.
        exchange([0x0A, 0x08, 0x00], [0x0B] + Array(longValue[0..<184]))
        exchange([0x0C, 0x08, 0x00, 0xB8, 0x00], [0x0D] + Array(longValue[184...]))
        c.att(2_000, handle: h, [0x0A, 0x03, 0x00], received: false)
        c.att(2_030, handle: h, [0x0B] + Array("Long Box".utf8), received: true)
        return c
    }
}
