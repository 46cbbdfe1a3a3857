/// A central-role link on which both sides are GATT servers with overlapping handle ranges, and
/// each discovers the other (Core v5.4 Vol 3 Part G 2.2: client and server roles are per ATT
/// direction, independent of the link-layer role). The local device (a phone) is the central
/// (LE Connection Complete role 0x00); the remote device (an e-bike) reads the phone's database.
///
/// The phone's database (what the bike discovers: requests received, responses sent):
///
///     0x0001-0x0003 1800 Generic Access     0x0002 decl, 0x0003 2A00 Device Name (read) "iPhone"
///     0x0004-0x0007 1801 Generic Attribute  0x0005 decl, 0x0006 2A05 Service Changed (indicate), 0x0007 CCCD
///     0x0008-0x000B 1805 Current Time       0x0009 decl, 0x000A 2A2B Current Time (read, notify), 0x000B CCCD
///     0x000C-0x000F ANCS 7905F431-…         0x000D decl, 0x000E Notification Source 9FBF120D-… (notify), 0x000F CCCD
///
/// The bike's database (what the phone discovers by service UUID, Vol 3 Part G 4.4.2: requests
/// sent, responses received):
///
///     0x0006-0x0009 FFE0 (vendor)           0x0007 decl, 0x0008 FFE1 (write, notify), 0x0009 CCCD
///
/// The two discoveries interleave from 150 ms. The bike reads the phone's Device Name and Current
/// Time and subscribes to its Service Changed and Current Time; the phone subscribes to FFE1
/// (500 ms), which the bike then notifies. At 1000 ms the phone notifies its Current Time; at
/// `twoServersServiceChangedAt` it indicates Service Changed for 0x0008-0x000B on 0x0006, which
/// the bike confirms 15 ms later when `confirmed`, and never otherwise. The phone writes FFE1 at
/// 2500 ms, the bike notifies at 2600 ms, and the phone disconnects at 3000 ms (0x13; Disconnection
/// Complete 0x16 at 3050 ms).
extension SpecCapture {
    public static let twoServersPeer: [UInt8] = [0xF1, 0xB1, 0x6E, 0x20, 0x00, 0x42]
    public static let twoServersHandle: UInt16 = 0x0040
    /// When the phone's Service Changed indication goes out (ms of the capture).
    public static let twoServersServiceChangedAt: Int64 = 2_000
    public static let ancsService = "7905F431-B5CE-4E99-A40F-4B1E122D00D0"
    public static let ancsNotificationSource = "9FBF120D-6301-42D9-8C58-25E699A21DBD"

    /// A 128-bit UUID as ATT carries it: little-endian, the canonical text read backwards.
    public static func uuid128LittleEndian(_ text: String) -> [UInt8] {
        let digits = Array(text.filter { $0 != "-" })
        let bytes = stride(from: 0, to: digits.count, by: 2).map { UInt8(String(digits[$0...$0 + 1]), radix: 16)! }
        return bytes.reversed()
    }

    public static func twoServers(confirmed: Bool) -> SpecCapture {
        var c = SpecCapture()
        let h = twoServersHandle
        func rx(_ ms: Int64, _ pdu: [UInt8]) { c.att(ms, handle: h, pdu, received: true) }
        func tx(_ ms: Int64, _ pdu: [UInt8]) { c.att(ms, handle: h, pdu, received: false) }
        let ancs = uuid128LittleEndian(ancsService)
        let source = uuid128LittleEndian(ancsNotificationSource)
        c.connectionComplete(100, handle: h, role: 0, peer: twoServersPeer)
        // The bike: Read By Group Type 0x2800 from 0x0001 (Vol 3 Part G 4.4.1).
        rx(150, [0x10, 0x01, 0x00, 0xFF, 0xFF, 0x00, 0x28])
        // The phone: Find By Type Value 0x2800 = FFE0 (4.4.2).
        tx(152, [0x06, 0x01, 0x00, 0xFF, 0xFF, 0x00, 0x28, 0xE0, 0xFF])
        // The phone answers: length 6; 0x0001-0x0003 1800, 0x0004-0x0007 1801, 0x0008-0x000B 1805.
        tx(160, [0x11, 0x06, 0x01, 0x00, 0x03, 0x00, 0x00, 0x18, 0x04, 0x00, 0x07, 0x00, 0x01, 0x18,
                 0x08, 0x00, 0x0B, 0x00, 0x05, 0x18])
        // The bike answers: FFE0 is 0x0006-0x0009.
        rx(180, [0x07, 0x06, 0x00, 0x09, 0x00])
        rx(190, [0x10, 0x0C, 0x00, 0xFF, 0xFF, 0x00, 0x28])
        tx(200, [0x11, 0x14, 0x0C, 0x00, 0x0F, 0x00] + ancs)            // length 20: ANCS 0x000C-0x000F
        rx(210, [0x10, 0x10, 0x00, 0xFF, 0xFF, 0x00, 0x28])
        tx(220, [0x01, 0x10, 0x10, 0x00, 0x0A])                           // Attribute Not Found
        // Characteristics (Read By Type 0x2803, 4.6.1), both ways.
        tx(230, [0x08, 0x06, 0x00, 0x09, 0x00, 0x03, 0x28])
        rx(232, [0x08, 0x01, 0x00, 0xFF, 0xFF, 0x03, 0x28])
        // Length 7: 0x0002 read -> 0x0003 2A00; 0x0005 indicate -> 0x0006 2A05; 0x0009 read|notify -> 0x000A 2A2B.
        tx(240, [0x09, 0x07, 0x02, 0x00, 0x02, 0x03, 0x00, 0x00, 0x2A, 0x05, 0x00, 0x20, 0x06, 0x00, 0x05, 0x2A,
                 0x09, 0x00, 0x12, 0x0A, 0x00, 0x2B, 0x2A])
        // Length 7: 0x0007 write|notify -> 0x0008 FFE1.
        rx(260, [0x09, 0x07, 0x07, 0x00, 0x18, 0x08, 0x00, 0xE1, 0xFF])
        rx(270, [0x08, 0x0A, 0x00, 0xFF, 0xFF, 0x03, 0x28])
        tx(280, [0x09, 0x15, 0x0D, 0x00, 0x10, 0x0E, 0x00] + source)     // length 21: 0x000D notify -> 0x000E
        tx(290, [0x08, 0x08, 0x00, 0x09, 0x00, 0x03, 0x28])
        rx(300, [0x08, 0x0E, 0x00, 0xFF, 0xFF, 0x03, 0x28])
        tx(310, [0x01, 0x08, 0x0E, 0x00, 0x0A])
        rx(320, [0x01, 0x08, 0x08, 0x00, 0x0A])
        // Descriptors (Find Information, 4.7.1): one CCCD (2902) each.
        tx(330, [0x04, 0x09, 0x00, 0x09, 0x00])
        rx(335, [0x04, 0x07, 0x00, 0x07, 0x00])
        tx(345, [0x05, 0x01, 0x07, 0x00, 0x02, 0x29])
        rx(350, [0x05, 0x01, 0x09, 0x00, 0x02, 0x29])
        rx(360, [0x04, 0x0B, 0x00, 0x0B, 0x00])
        tx(370, [0x05, 0x01, 0x0B, 0x00, 0x02, 0x29])
        rx(380, [0x04, 0x0F, 0x00, 0x0F, 0x00])
        tx(390, [0x05, 0x01, 0x0F, 0x00, 0x02, 0x29])
        // The bike reads the phone's name and time, and subscribes to Service Changed and Current Time.
        rx(400, [0x0A, 0x03, 0x00])
        tx(410, [0x0B] + Array("iPhone".utf8))
        rx(420, [0x12, 0x07, 0x00, 0x02, 0x00])
        tx(430, [0x13])
        rx(440, [0x12, 0x0B, 0x00, 0x01, 0x00])
        tx(450, [0x13])
        rx(460, [0x0A, 0x0A, 0x00])
        // Current Time (Current Time Service 3.1): 2026-12-01 18:00:00, Tuesday, fractions 0, adjust 0.
        tx(470, [0x0B, 0xEA, 0x07, 0x0C, 0x01, 0x12, 0x00, 0x00, 0x02, 0x00, 0x00])
        // The phone subscribes to FFE1; the bike notifies.
        tx(500, [0x12, 0x09, 0x00, 0x01, 0x00])
        rx(530, [0x13])
        rx(600, [0x1B, 0x08, 0x00, 0x01, 0x02, 0x03])
        tx(700, [0x52, 0x08, 0x00, 0xAA])
        rx(800, [0x1B, 0x08, 0x00, 0x04])
        // The phone notifies its Current Time, one second on.
        tx(1_000, [0x1B, 0x0A, 0x00, 0xEA, 0x07, 0x0C, 0x01, 0x12, 0x00, 0x01, 0x02, 0x00, 0x00])
        // The phone's Service Changed for 0x0008-0x000B (Vol 3 Part G 7.1).
        tx(twoServersServiceChangedAt, [0x1D, 0x06, 0x00, 0x08, 0x00, 0x0B, 0x00])
        if confirmed { rx(twoServersServiceChangedAt + 15, [0x1E]) }
        tx(2_500, [0x12, 0x08, 0x00, 0x55])
        rx(2_530, [0x13])
        rx(2_600, [0x1B, 0x08, 0x00, 0x05])
        // HCI Disconnect (Vol 4 Part E 7.1.6), reason 0x13.
        c.cmd(3_000, 0x0406, c.le16(h) + [0x13])
        c.commandStatus(3_001, 0x0406)
        c.disconnectionComplete(3_050, handle: h, reason: 0x16)
        return c
    }
}
