/// Two connections to one peripheral whose characteristic FFF1 (read, notify: 0x12) is only
/// ever notified, never read, which no sample capture has. Handles (Core v5.4 Vol 3 Part G 3):
///
///     0x0001-0x0004 FFF0 (vendor)   0x0002 decl, 0x0003 FFF1 (read, notify), 0x0004 CCCD
///     0x0005-0x0007 FFE0 (vendor)   0x0006 decl, 0x0007 FFE2 (read): never read, never notified
///
/// Connection 1 (handle 0x40) comes up at 100 ms, discovers, subscribes (CCCD 0x0004 = 01 00 at
/// 400 ms); FFF1 is notified 01 at 1 s and 03 at 3 s after the link came up; the central
/// disconnects at 4 s (0x13, Disconnection Complete 0x16 30 ms later). Connection 2 (0x41) comes
/// up at 5 s, subscribes at 5.1 s, FFF1 is notified 09 at 6 s; the capture ends at 7 s.
extension SpecCapture {
    public static let valueMomentsPeer: [UInt8] = [0xE1, 0x22, 0x33, 0x44, 0x55, 0x66]

    public static func valueMoments() -> SpecCapture {
        var c = SpecCapture()
        let h: UInt16 = 0x40
        c.connectionComplete(100, handle: h, role: 0, peer: valueMomentsPeer)
        var t: Int64 = 150
        func exchange(_ handle: UInt16, _ request: [UInt8], _ response: [UInt8]) {
            c.att(t, handle: handle, request, received: false)
            c.att(t + 20, handle: handle, response, received: true)
            t += 30
        }
        exchange(h, [0x10, 0x01, 0x00, 0xFF, 0xFF, 0x00, 0x28],
                 [0x11, 0x06, 0x01, 0x00, 0x04, 0x00, 0xF0, 0xFF, 0x05, 0x00, 0x07, 0x00, 0xE0, 0xFF])
        exchange(h, [0x10, 0x08, 0x00, 0xFF, 0xFF, 0x00, 0x28], [0x01, 0x10, 0x08, 0x00, 0x0A])
        exchange(h, [0x08, 0x01, 0x00, 0xFF, 0xFF, 0x03, 0x28],
                 [0x09, 0x07, 0x02, 0x00, 0x12, 0x03, 0x00, 0xF1, 0xFF, 0x06, 0x00, 0x02, 0x07, 0x00, 0xE2, 0xFF])
        exchange(h, [0x08, 0x07, 0x00, 0xFF, 0xFF, 0x03, 0x28], [0x01, 0x08, 0x07, 0x00, 0x0A])
        exchange(h, [0x04, 0x04, 0x00, 0x04, 0x00], [0x05, 0x01, 0x04, 0x00, 0x02, 0x29])
        t = 400
        exchange(h, [0x12, 0x04, 0x00, 0x01, 0x00], [0x13])
        c.att(1_100, handle: h, [0x1B, 0x03, 0x00, 0x01], received: true)
        c.att(3_100, handle: h, [0x1B, 0x03, 0x00, 0x03], received: true)
        c.cmd(4_100, 0x0406, c.le16(h) + [0x13])
        c.commandStatus(4_101, 0x0406)
        c.disconnectionComplete(4_130, handle: h, reason: 0x16)
        let h2: UInt16 = 0x41
        c.connectionComplete(5_000, handle: h2, role: 0, peer: valueMomentsPeer)
        t = 5_100
        exchange(h2, [0x12, 0x04, 0x00, 0x01, 0x00], [0x13])
        c.att(6_000, handle: h2, [0x1B, 0x03, 0x00, 0x09], received: true)
        c.att(7_000, handle: h2, [0x1B, 0x03, 0x00, 0x09], received: true)
        return c
    }
}
