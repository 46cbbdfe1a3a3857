import BLECore
import Testing
@testable import BLEDecode

/// A link that began before the capture and shows only HCI events on its handle, never ACL data
/// (`PacketDecoder+EventConnections.swift`): it gets a connection, marked as begun before the
/// capture, exactly as a link found from its ACL does. Event layouts from Core v5.4 Vol 4 Part E
/// 7.7.5 (Disconnection Complete), 7.7.8 (Encryption Change), 7.7.19 (Number Of Completed
/// Packets), 7.7.65.3 (LE Connection Update Complete).
@Suite struct EventOnlyConnectionTests {
    func found(_ p: DecodedPacket) -> [ConnectionRef] {
        p.events.compactMap { if case .connectionFoundInProgress(let ref, _) = $0 { ref } else { nil } }
    }

    /// 05 04 | 00 Status | 47 00 Connection_Handle 0x0047 | 3E Reason: the link's only packet.
    @Test func disconnectionCompleteAloneOpensAndClosesALinkBegunBeforeTheCapture() {
        var d = PacketDecoder()
        let p = d.decode(Rec.evt(hx("05 04 00 47 00 3E")))
        let ref = ConnectionRef(index: 1, handle: 0x0047)
        #expect(found(p) == [ref])
        #expect(p.connection == ref)
        #expect(p.disconnections.first?.connection == ref)
        #expect(p.summary == "Rcvd Disconnect Complete reason 0x3E Connection Failed to be Established")
        #expect(d.tracker.connection(0x0047) == nil)
        #expect(d.connectionsSeen == 1)
        // The end-of-capture sweep has nothing left open.
        #expect(d.finish().isEmpty)
    }

    /// Encryption Change (08 04 | 00 | 40 00 | 01) then Number Of Completed Packets
    /// (13 05 | 01 Num_Handles | 40 00 | 02 00) then Disconnection Complete: one connection.
    @Test func encryptionChangeThenCompletedPacketsThenDisconnectAreOneConnection() {
        var d = PacketDecoder()
        let enc = d.decode(Rec.evt(hx("08 04 00 40 00 01")))
        let ref = ConnectionRef(index: 1, handle: 0x0040)
        #expect(found(enc) == [ref])
        #expect(enc.encryptionChanges.first?.connection == ref)
        let nocp = d.decode(Rec.evt(hx("13 05 01 40 00 02 00")))
        #expect(found(nocp).isEmpty && nocp.connection == ref)
        let disc = d.decode(Rec.evt(hx("05 04 00 40 00 13")))
        #expect(found(disc).isEmpty && disc.disconnections.first?.connection == ref)
        #expect(d.connectionsSeen == 1)
    }

    /// Number Of Completed Packets for two handles (13 09 | 02 | 41 00 01 00 | 42 00 03 00): each
    /// unknown handle is a link of its own; the packet names none of them (it concerns two).
    @Test func completedPacketsForTwoUnknownHandlesAreTwoLinks() {
        var d = PacketDecoder()
        let p = d.decode(Rec.evt(hx("13 09 02 41 00 01 00 42 00 03 00")))
        #expect(found(p) == [ConnectionRef(index: 1, handle: 0x0041), ConnectionRef(index: 2, handle: 0x0042)])
        #expect(p.connection == nil)
    }

    /// LE Connection Update Complete (3E 0A | 03 | 00 | 43 00 | 28 00 | 00 00 | C8 00) on an
    /// unknown handle: a link begun before the capture, and LE (an LE Meta event is the clue).
    @Test func leConnectionUpdateOpensAnLELink() {
        var d = PacketDecoder()
        let p = d.decode(Rec.evt(hx("3E 0A 03 00 43 00 28 00 00 00 C8 00")))
        #expect(found(p) == [ConnectionRef(index: 1, handle: 0x0043)])
        #expect(d.tracker.connection(0x0043)?.transport == .le)
        #expect(d.tracker.connection(0x0043)?.origin == .inferredFromEvent)
    }

    /// A late event on a handle the capture saw close is not a new link: Disconnection Complete
    /// closes 0x0040, then Number Of Completed Packets still names it.
    @Test func aLateEventOnAClosedHandleOpensNothing() {
        var d = PacketDecoder()
        _ = d.decode(Rec.leConnectionComplete(handle: 0x0040))
        _ = d.decode(Rec.disconnectionComplete(handle: 0x0040, reason: 0x13))
        let late = d.decode(Rec.evt(hx("13 05 01 40 00 01 00")))
        #expect(found(late).isEmpty && late.connection == nil)
        #expect(d.connectionsSeen == 1)
    }

    /// The controller saying there is no such link (status 0x02 Unknown Connection Identifier:
    /// 08 04 | 02 | 44 00 | 00), a failed Disconnection Complete (05 04 | 0C | 45 00 | 16), the
    /// reserved handle 0x0F01 and the controller-diagnostics handle 0x0EDC open nothing.
    @Test func noLinkFromUnknownIdentifierFailuresOrReservedHandles() {
        var d = PacketDecoder()
        #expect(found(d.decode(Rec.evt(hx("08 04 02 44 00 00")))).isEmpty)
        #expect(found(d.decode(Rec.evt(hx("05 04 0C 45 00 16")))).isEmpty)
        #expect(found(d.decode(Rec.evt(hx("13 05 01 01 0F 01 00")))).isEmpty)
        #expect(found(d.decode(Rec.evt(hx("13 05 01 DC 0E 01 00")))).isEmpty)
        #expect(d.connectionsSeen == 0)
    }

    /// Mode Change (14 06 | 00 | 0B 00 | 02 | 20 03), a BR/EDR-only event, opens the link and
    /// tells its transport at once.
    @Test func aBREDROnlyEventOpensABREDRLink() {
        var d = PacketDecoder()
        let p = d.decode(Rec.evt(hx("14 06 00 0B 00 02 20 03")))
        #expect(found(p) == [ConnectionRef(index: 1, handle: 0x000B)])
        #expect(d.tracker.connection(0x000B)?.transport == .bredr)
    }
}
