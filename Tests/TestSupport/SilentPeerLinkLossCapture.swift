/// A link lost while the peripheral streams notifications, after a read the central made in the
/// middle of the stream (the shape of issue 15's "link loss anchored to the app's traffic").
/// Handles (Core v5.4 Vol 3 Part G 3.1-3.3):
///
///     0x0001-0x0003 1800 Generic Access   0x0002 decl, 0x0003 Device Name (read)
///     0x000A-0x000D 180D Heart Rate       0x000B decl, 0x000C 2A37 (notify), 0x000D CCCD
///     0x000E-0x0010 180F Battery          0x000F decl, 0x0010 2A19 (read)
///
/// Times from the LE Connection Complete at 100 ms (interval 30 ms, supervision timeout 4 s):
/// discovery; the central enables notifications (CCCD 0x000D = 01 00) at 550 ms; the peripheral
/// notifies 2A37 (`06 nn`, nn = 60 + k) 16 times, every 500 ms from 1,100 ms to 8,600 ms; the
/// central reads Battery Level (0x0010 -> 5C) at 4,200 ms; the radio goes silent after the last
/// notification and the controller reports 0x08 at 12,650 ms, one supervision timeout after the
/// 8,650 ms silence. By rule 2 the silence is anchored to the Read Request, 4.45 s after it.
/// Advertising (LE Advertising Report, Vol 4 Part E 7.7.65.2): the peer's ADV_IND ("Pulse HRM",
/// 180D) every 20 ms from 0 to 80 ms; after the loss, from 13,000 to 15,000 ms every 100 ms, an
/// iBeacon's ADV_NONCONN_IND (D0:00:00:00:00:01) and, when `peerAdvertisesAgain`, the peer's ADV_IND.
extension SpecCapture {
    public static let silentPeerBeacon: [UInt8] = [0xD0, 0x00, 0x00, 0x00, 0x00, 0x01]
    public static let silentPeerAddress: [UInt8] = [0xC4, 0x7A, 0x3B, 0x12, 0x9E, 0x51]
    public static let silentPeerNotifications = 16

    public mutating func advertisingReport(_ ms: Int64, eventType: UInt8, address: [UInt8], _ data: [UInt8], rssi: Int8 = -60) {
        evt(ms, 0x3E, [0x02, 0x01, eventType, 0x01] + address.reversed() + [UInt8(data.count)] + data + [UInt8(bitPattern: rssi)])
    }

    public static func silentPeerLinkLoss(peerAdvertisesAgain: Bool = false) -> SpecCapture {
        var c = SpecCapture()
        let name = Array("Pulse HRM".utf8)
        let peerAdvertising: [UInt8] = [0x02, 0x01, 0x06, 0x03, 0x03, 0x0D, 0x18, UInt8(name.count + 1), 0x09] + name
        for ms in stride(from: Int64(0), through: 80, by: 20) {
            c.advertisingReport(ms, eventType: 0x00, address: silentPeerAddress, peerAdvertising)
        }
        let h: UInt16 = 0x41
        c.connectionComplete(100, handle: h, role: 0, peer: silentPeerAddress)
        var t: Int64 = 150
        func exchange(_ request: [UInt8], _ response: [UInt8]) { c.exchange(&t, handle: h, request, response) }
        // Primary services (Read By Group Type 0x2800, Vol 3 Part G 4.4.1).
        exchange([0x10, 0x01, 0x00, 0xFF, 0xFF, 0x00, 0x28],
                 [0x11, 0x06, 0x01, 0x00, 0x03, 0x00, 0x00, 0x18, 0x0A, 0x00, 0x0D, 0x00, 0x0D, 0x18,
                  0x0E, 0x00, 0x10, 0x00, 0x0F, 0x18])
        exchange([0x10, 0x11, 0x00, 0xFF, 0xFF, 0x00, 0x28], [0x01, 0x10, 0x11, 0x00, 0x0A])
        // Characteristics (Read By Type 0x2803, 4.6.1).
        exchange([0x08, 0x01, 0x00, 0xFF, 0xFF, 0x03, 0x28],
                 [0x09, 0x07, 0x02, 0x00, 0x02, 0x03, 0x00, 0x00, 0x2A, 0x0B, 0x00, 0x10, 0x0C, 0x00, 0x37, 0x2A,
                  0x0F, 0x00, 0x02, 0x10, 0x00, 0x19, 0x2A])
        exchange([0x08, 0x10, 0x00, 0xFF, 0xFF, 0x03, 0x28], [0x01, 0x08, 0x10, 0x00, 0x0A])
        // Descriptors (Find Information, 4.7.1).
        exchange([0x04, 0x0D, 0x00, 0x0D, 0x00], [0x05, 0x01, 0x0D, 0x00, 0x02, 0x29])
        // Enable notifications (t = 550 ms).
        t = 550
        exchange([0x12, 0x0D, 0x00, 0x01, 0x00], [0x13])
        for k in 0..<Int64(silentPeerNotifications) {
            c.att(1_100 + 500 * k, handle: h, [0x1B, 0x0C, 0x00, 0x06, UInt8(60 + k)], received: true)
            if k == 6 {
                c.att(4_200, handle: h, [0x0A, 0x10, 0x00], received: false)
                c.att(4_230, handle: h, [0x0B, 0x5C], received: true)
            }
        }
        c.disconnectionComplete(12_650, handle: h, reason: 0x08)
        for ms in stride(from: Int64(13_000), through: 15_000, by: 100) {
            c.advertisingReport(ms, eventType: 0x03, address: silentPeerBeacon, [0x02, 0x01, 0x04, 0x05, 0xFF, 0x4C, 0x00, 0x02, 0x15])
            if peerAdvertisesAgain { c.advertisingReport(ms + 7, eventType: 0x00, address: silentPeerAddress, peerAdvertising) }
        }
        return c
    }
}
