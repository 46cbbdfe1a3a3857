/// A link ended by an HCI Reset (Core v5.4 Vol 4 Part E 7.3.2: the controller keeps no link and
/// reports no Disconnection Complete), then a new link on the same handle. Frames: 1 LE
/// Connection Complete (handle 0x0040, local central), 2 Read Request 0x0003, 3 Read Response,
/// 4 Read Request 0x0003 (never answered), 5 HCI Reset (0x0C03), 6 Command Complete (Reset,
/// status 0): the link ends here, 1.5 s into it; 7 LE Connection Complete on handle 0x0040 again
/// (a new link), 8 Read Request, 9 Read Response, 10 Disconnection Complete 0x13.
extension SpecCapture {
    public static let controllerResetPeer: [UInt8] = [0xC4, 0x7A, 0x3B, 0x12, 0x9E, 0x51]

    public static func controllerReset() -> SpecCapture {
        var c = SpecCapture()
        c.connectionComplete(100, handle: 0x40, role: 0, peer: controllerResetPeer)
        c.att(200, handle: 0x40, [0x0A, 0x03, 0x00], received: false)
        c.att(230, handle: 0x40, [0x0B, 0x41], received: true)
        c.att(1000, handle: 0x40, [0x0A, 0x03, 0x00], received: false)
        c.cmd(1500, 0x0C03, [])
        c.evt(1600, 0x0E, [0x01, 0x03, 0x0C, 0x00])
        c.connectionComplete(3000, handle: 0x40, role: 0, peer: controllerResetPeer)
        c.att(3100, handle: 0x40, [0x0A, 0x03, 0x00], received: false)
        c.att(3130, handle: 0x40, [0x0B, 0x42], received: true)
        c.disconnectionComplete(8000, handle: 0x40, reason: 0x13)
        return c
    }
}
