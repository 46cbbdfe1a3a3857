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

    // LE Create BIG Complete (Core v5.4 Vol 4 Part E 7.7.65.27): Status 00, BIG_Handle 01,
    // BIG_Sync_Delay 10 00 00, Transport_Latency_BIG 20 4E 00, PHY 02, NSE 02, BN 01, PTO 00,
    // IRC 01, Max_PDU 28 00, ISO_Interval 08 00, Num_BIS 02, handles 0x0070 0x0071.
    static let bigComplete = hx("3E 17 1B 00 01 10 00 00 20 4E 00 02 02 01 00 01 28 00 08 00 02 70 00 71 00")

    func found(_ p: DecodedPacket) -> [ConnectionRef] {
        p.events.compactMap { if case .connectionFoundInProgress(let ref, _) = $0 { ref } else { nil } }
    }

    @Test func bisHandlesOfACreatedBIGAreNoLinks() throws {
        var decoder = PacketDecoder()
        let big = decoder.decode(Rec.evt(Self.bigComplete))
        #expect(big.problems.isEmpty)
        #expect(big.summary.hasSuffix("BIG 0x01 BIS 0x0070, 0x0071"))
        // ISO data on a BIS (5.4.5): handle 0x0070, PB 0b10, 8 bytes
        let iso = decoder.decode(Rec.make(.iso, .sent, hx("70 20 08 00 01 00 04 00 01 02 03 04")))
        #expect(iso.connection == nil && iso.summary.hasSuffix("(BIS)"))
        // Number Of Completed Packets counts BIS packets too (7.7.19): 2 handles, 0x0070: 2, 0x0071: 2
        let nocp = decoder.decode(Rec.evt(hx("13 09 02 70 00 02 00 71 00 02 00")))
        #expect(found(nocp).isEmpty && nocp.connection == nil)
        // LE Terminate BIG Complete (7.7.65.28): BIG_Handle 01, Reason 0x16
        let end = decoder.decode(Rec.evt(hx("3E 03 1C 01 16")))
        #expect(end.summary.hasSuffix("BIG 0x01 reason 0x16 Connection Terminated By Local Host"))
        #expect(decoder.connectionsSeen == 0)
    }

    @Test func bisHandlesOfASynchronisedBIGAreNoLinks() {
        var decoder = PacketDecoder()
        // LE BIG Sync Established (7.7.65.29): Status 00, BIG_Handle 02, Transport_Latency_BIG
        // 20 4E 00, NSE 02, BN 01, PTO 00, IRC 01, Max_PDU 28 00, ISO_Interval 08 00, Num_BIS 01, 0x0080
        let sync = decoder.decode(Rec.evt(hx("3E 11 1D 00 02 20 4E 00 02 01 00 01 28 00 08 00 01 80 00")))
        #expect(sync.problems.isEmpty)
        let iso = decoder.decode(Rec.make(.iso, .received, hx("80 20 08 00 01 00 04 00 01 02 03 04")))
        #expect(iso.summary.hasSuffix("(BIS)"))
        // LE BIG Sync Lost (7.7.65.30): BIG_Handle 02, Reason 0x08
        _ = decoder.decode(Rec.evt(hx("3E 03 1E 02 08")))
        let after = decoder.decode(Rec.make(.iso, .received, hx("80 20 08 00 01 00 04 00 01 02 03 04")))
        #expect(!after.summary.hasSuffix("(BIS)"))
    }

    @Test func aFailedCISIsAnErrorOfItsACL() throws {
        var decoder = PacketDecoder()
        _ = decoder.decode(Rec.leConnectionComplete(handle: 0x0040))
        _ = decoder.decode(Rec.cmd(hx("64 20 05 01 61 00 40 00")))
        // LE CIS Established (7.7.65.25), status 0x3E Connection Failed to be Established
        let failed = decoder.decode(Rec.evt(hx("3E 1D 19 3E 61 00") + [UInt8](repeating: 0, count: 25)))
        let l = try #require(failed.linkEvents.first)
        #expect(l.name == "LE CIS Established" && l.status == HCIStatusCode(0x3E) && l.recordsError)
        #expect(l.connection?.index == 1)
        // LE Create BIG Complete with status 0x0C Command Disallowed: no BIS, an error
        let big = decoder.decode(Rec.evt(hx("3E 03 1B 0C 01")))
        #expect(big.problems.isEmpty)
        #expect(big.linkEvents.first?.status == HCIStatusCode(0x0C))
    }

    @Test func aCISLostIsAnErrorOfItsACLAndOneAHostEndedIsNot() throws {
        var decoder = PacketDecoder()
        _ = decoder.decode(Rec.leConnectionComplete(handle: 0x0040))
        for (cis, reason, error) in [(UInt16(0x0061), UInt8(0x08), true), (0x0062, 0x16, false)] {
            // LE CIS Request (7.7.65.26), LE CIS Established (7.7.65.25), then Disconnection Complete (7.7.5)
            _ = decoder.decode(Rec.evt(hx("3E 07 1A 40 00") + [UInt8(cis & 0xFF), 0, 1, 0]))
            _ = decoder.decode(Rec.evt(hx("3E 1D 19 00") + [UInt8(cis & 0xFF), 0] + [UInt8](repeating: 1, count: 25)))
            let gone = decoder.decode(Rec.disconnectionComplete(handle: cis, reason: reason))
            #expect(gone.disconnections.isEmpty)
            let l = try #require(gone.linkEvents.first)
            #expect(l.connection?.index == 1 && l.status == HCIStatusCode(reason) && l.recordsError == error)
        }
    }
}
