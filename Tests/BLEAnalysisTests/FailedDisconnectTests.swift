import Testing
import TestSupport
import BLETimeline
import BLEAnalysis

/// A Disconnect the controller did not carry out is no request to end the link: one refused in
/// its Command Status (Core v5.4 Vol 4 Part E 7.7.15) with none accepted before it, or one whose
/// Disconnection Complete reports a failure (7.7.5: "Status 0x01-0xFF: Disconnection failed to
/// complete"; the link stays up). A link that then ends with 0x08 was lost: the app sees
/// CBError.connectionTimeout and Android status 8, not "no error, the local host had asked to
/// disconnect" and GATT_SUCCESS. A second Disconnect refused while an accepted one is under way
/// changes nothing (blegen.linkloss `repeated-disconnect.btsnoop`).
@Suite("a Disconnect the controller did not carry out")
struct FailedDisconnectTests {
    static let peer: [UInt8] = [0xC4, 0x7A, 0x3B, 0x12, 0x9E, 0x51]

    /// 06 04 Disconnect | 03 length | handle | reason (7.1.6)
    static func disconnect(_ c: inout SpecCapture, _ ms: Int64, handle: UInt16, reason: UInt8) {
        c.cmd(ms, 0x0406, c.le16(handle) + [reason])
    }

    static func capture() -> [UInt8] {
        var c = SpecCapture()
        // Link 1 (0x0040): the Disconnect is refused, 0x0C Command Disallowed; the link is lost later.
        c.connectionComplete(0, handle: 0x40, role: 0, peer: peer)                       // 1
        disconnect(&c, 100, handle: 0x40, reason: 0x13)                                   // 2
        c.commandStatus(101, 0x0406, status: 0x0C)                                        // 3
        c.disconnectionComplete(5000, handle: 0x40, reason: 0x08)                         // 4
        // Link 2 (0x0041): the Disconnect is accepted, then fails to complete (status 0x0C).
        c.connectionComplete(6000, handle: 0x41, role: 0, peer: peer)                    // 5
        disconnect(&c, 6100, handle: 0x41, reason: 0x13)                                  // 6
        c.commandStatus(6101, 0x0406)                                                     // 7
        // 05 Disconnection Complete | 0C status | 41 00 handle | 13 reason                    8
        c.evt(6160, 0x05, [0x0C, 0x41, 0x00, 0x13])
        c.disconnectionComplete(12000, handle: 0x41, reason: 0x08)                        // 9
        // Link 3 (0x0042): accepted, a second Disconnect refused, then 0x16: the host ended it.
        c.connectionComplete(13000, handle: 0x42, role: 0, peer: peer)                   // 10
        disconnect(&c, 13100, handle: 0x42, reason: 0x13)                                 // 11
        c.commandStatus(13101, 0x0406)                                                    // 12
        disconnect(&c, 13120, handle: 0x42, reason: 0x05)                                 // 13
        c.commandStatus(13121, 0x0406, status: 0x0C)                                      // 14
        c.disconnectionComplete(13160, handle: 0x42, reason: 0x16)                        // 15
        return c.bytes
    }

    @Test func aLinkLostAfterAFailedDisconnectWasLost() throws {
        try AnalysedSpecCapture.withTimeline(Self.capture()) { store in
            let db = store.database
            let links = try db.rows("SELECT handle, local_disconnect_requested FROM connection ORDER BY id")
            #expect(links.map { [$0[0].int, $0[1].int] } == [[0x40, 0], [0x41, 0], [0x42, 1]])
            let ends = try db.rows("SELECT packet_id, code, cb_error, android_status FROM error WHERE context = 'disconnect' ORDER BY packet_id")
            #expect(ends.map { $0[0].int } == [4, 9, 15])
            #expect(ends[0][2].string == "CBError.connectionTimeout" && ends[0][3].int == 8)
            #expect(ends[1][2].string == "CBError.connectionTimeout" && ends[1][3].int == 8)
            // The host's own, accepted Disconnect ended link 3: no CBError (the app cancelled).
            #expect(ends[2][2].string == nil)
            // The failed completion is an error of its own.
            let failed = try db.rows("SELECT packet_id, code FROM error WHERE context = 'disconnect-failed'")
            #expect(failed.map { [$0[0].int, $0[1].int] } == [[8, 0x0C]])
            // The diagnosis of links 1 and 2: a supervision timeout, not a termination never acknowledged.
            let timeouts = try db.rows("""
                SELECT f.title, f.cb_error FROM finding f JOIN connection c ON c.id = f.connection_id
                WHERE f.code = 'supervision-timeout' ORDER BY c.id
                """)
            #expect(timeouts.count == 2)
            for t in timeouts {
                #expect(!(t[0].string ?? "").contains("while disconnecting"))
                #expect(t[1].string == "CBError.connectionTimeout")
            }
        }
    }
}
