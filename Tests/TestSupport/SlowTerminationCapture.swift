/// A connection the recorded central ended, whose Disconnection Complete came 1.5 s after its HCI
/// Disconnect: a peer slow to acknowledge LL_TERMINATE_IND keeps the link up (Core v5.4 Vol 6
/// Part B 5.1.3: the procedure ends at the acknowledgement, or at the latest when a supervision
/// timeout, here 4 s, has passed). One service (Vol 3 Part G 3.1-3.3): 0x0001-0x0003 FFE0, 0x0002
/// its characteristic declaration, 0x0003 FFE1 (read).
/// The central connects at 100 ms, exchanges the MTU (517 asked, 247 offered), discovers, reads
/// 0x0003, sends Disconnect (0x13) at 1000 ms; Disconnection Complete (0x16) at 2500 ms.
extension SpecCapture {
    public static let slowTerminationPeer: [UInt8] = [0xE1, 0x7C, 0x40, 0x2B, 0x93, 0x06]

    public static func slowTermination() -> SpecCapture {
        var c = SpecCapture()
        let h: UInt16 = 0x40
        c.connectionComplete(100, handle: h, role: 0, peer: slowTerminationPeer)
        var t: Int64 = 150
        func exchange(_ request: [UInt8], _ response: [UInt8]) { c.exchange(&t, handle: h, request, response) }
        exchange([0x02, 0x05, 0x02], [0x03, 0xF7, 0x00])
        exchange([0x10, 0x01, 0x00, 0xFF, 0xFF, 0x00, 0x28], [0x11, 0x06, 0x01, 0x00, 0x03, 0x00, 0xE0, 0xFF])
        exchange([0x10, 0x04, 0x00, 0xFF, 0xFF, 0x00, 0x28], [0x01, 0x10, 0x04, 0x00, 0x0A])
        exchange([0x08, 0x01, 0x00, 0x03, 0x00, 0x03, 0x28], [0x09, 0x07, 0x02, 0x00, 0x02, 0x03, 0x00, 0xE1, 0xFF])
        exchange([0x0A, 0x03, 0x00], [0x0B, 0x2A])
        // HCI Disconnect (Vol 4 Part E 7.1.6: handle, reason 0x13) and its Command Status.
        c.cmd(1_000, 0x0406, c.le16(h) + [0x13])
        c.commandStatus(1_001, 0x0406)
        c.disconnectionComplete(2_500, handle: h, reason: 0x16)
        return c
    }
}
