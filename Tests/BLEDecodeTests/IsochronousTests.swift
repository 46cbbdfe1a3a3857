import BLECore
import Testing
@testable import BLEDecode

/// Connected isochronous streams (Core v5.4 Vol 4 Part E 7.7.65.25-26, 5.4.5); shape from
/// Scripts/blegen/shapes.py `le_audio`, where tshark 4.0 shows the CIS Request, CIS Established,
/// five ISO Data packets and two Disconnect Completes (one for the CIS handle 0x0060).
@Suite("Isochronous channels")
struct IsochronousTests {
    @Test func aCISBelongsToItsACLConnectionAndItsEndIsNotTheConnectionsEnd() throws {
        var decoder = PacketDecoder()
        _ = decoder.decode(Rec.leConnectionComplete(handle: 0x0040))
        // LE CIS Request: ACL handle 0x0040, CIS handle 0x0060, CIG 1, CIS 0
        let request = decoder.decode(Rec.evt(hx("3E 07 1A 40 00 60 00 01 00")))
        #expect(request.connection?.index == 1)
        // LE CIS Established: status 0, handle 0x0060, then 25 bytes of timing/PHY parameters
        let up = decoder.decode(Rec.evt(hx("3E 1D 19 00 60 00") + [UInt8](repeating: 1, count: 25)))
        #expect(up.problems.isEmpty)
        #expect(up.connection?.index == 1)
        // ISO data on the CIS: handle 0x0060, PB 0b10, length 8
        let iso = decoder.decode(Rec.make(.iso, .received, hx("60 20 08 00 01 00 04 00 01 02 03 04")))
        #expect(iso.connection?.index == 1)
        #expect(iso.problems.isEmpty)
        // The CIS ends: no disconnection event, the ACL connection stays open
        let cisGone = decoder.decode(Rec.disconnectionComplete(handle: 0x0060, reason: 0x13))
        #expect(cisGone.disconnections.isEmpty)
        #expect(cisGone.connection?.index == 1)
        let aclGone = decoder.decode(Rec.disconnectionComplete(handle: 0x0040, reason: 0x13))
        #expect(aclGone.disconnections.first?.connection?.index == 1)
        #expect(decoder.finish().isEmpty)
    }

    @Test func createCISNamesTheACLConnection() throws {
        var decoder = PacketDecoder()
        _ = decoder.decode(Rec.leConnectionComplete(handle: 0x0040))
        // LE Create CIS (0x2064): 1 CIS, CIS handle 0x0061 on ACL 0x0040
        let cmd = decoder.decode(Rec.cmd(hx("64 20 05 01 61 00 40 00")))
        #expect(cmd.commands.first?.connection?.index == 1)
        // A failed CIS Established (0x3E Connection Failed to be Established) forgets it
        _ = decoder.decode(Rec.evt(hx("3E 1D 19 3E 61 00") + [UInt8](repeating: 0, count: 25)))
        let unknown = decoder.decode(Rec.disconnectionComplete(handle: 0x0061, reason: 0x13))
        #expect(unknown.disconnections.first?.connection == nil)
    }
}
