import BLECore
import Testing
@testable import BLEDecode

@Suite("Connection tracker")
struct TrackerTests {
    @Test func handleReuseMakesANewConnection() {
        var decoder = PacketDecoder()
        let first = decoder.decode(Rec.leConnectionComplete(handle: 0x0040))
        #expect(first.connection == ConnectionRef(index: 1, handle: 0x0040))
        #expect(decoder.decode(Rec.l2cap(.received, handle: 0x0040, cid: 0x0004, hx("1B 01 00 AA"))).connection?.index == 1)
        let closed = decoder.decode(Rec.disconnectionComplete(handle: 0x0040, reason: 0x13))
        #expect(closed.disconnections.first?.connection == ConnectionRef(index: 1, handle: 0x0040))
        let second = decoder.decode(Rec.leConnectionComplete(handle: 0x0040))
        #expect(second.connection == ConnectionRef(index: 2, handle: 0x0040))
        let att = decoder.decode(Rec.l2cap(.received, handle: 0x0040, cid: 0x0004, hx("1B 01 00 AA")))
        #expect(att.connection == ConnectionRef(index: 2, handle: 0x0040))
        #expect(att.attEvents.first?.connection.index == 2)
        #expect(att.foundInProgress.isEmpty)
        #expect(decoder.connectionsSeen == 2)
    }

    @Test func aclBeforeAnyConnectionCompleteIsAConnectionInProgress() throws {
        var decoder = PacketDecoder()
        let p = decoder.decode(Rec.l2cap(.received, handle: 0x0041, cid: 0x0004, hx("1B 01 00 AA")))
        let found = try #require(p.foundInProgress.first)
        #expect(found.0 == ConnectionRef(index: 1, handle: 0x0041))
        #expect(found.1 == .le)
        #expect(p.attEvents.count == 1)
        // Reported once
        let again = decoder.decode(Rec.l2cap(.sent, handle: 0x0041, cid: 0x0004, hx("52 01 00 01")))
        #expect(again.foundInProgress.isEmpty)
        #expect(again.connection == ConnectionRef(index: 1, handle: 0x0041))
        // Its disconnect closes it
        #expect(decoder.decode(Rec.disconnectionComplete(handle: 0x0041, reason: 0x08)).disconnections.first?.connection?.index == 1)
        #expect(decoder.connectionsSeen == 1)
        #expect(decoder.finish().isEmpty)
    }

    @Test func bredrChannelsRevealABREDRConnectionInProgress() throws {
        var decoder = PacketDecoder()
        // Signalling CID 0x0001 in the first packet: BR/EDR
        let sig = decoder.decode(Rec.l2cap(.received, handle: 0x000C, cid: 0x0001, hx("0A 01 02 00 02 00")))
        #expect(sig.foundInProgress.first?.1 == .bredr)
        #expect(sig.layer == .bredr)
        // A dynamic CID above the LE range: BR/EDR
        let dyn = decoder.decode(Rec.l2cap(.received, handle: 0x000D, cid: 0x5C10, hx("00 01")))
        #expect(dyn.foundInProgress.first?.1 == .bredr)
        // A continuation first: assumed LE until a CID says otherwise, then classified BR/EDR
        _ = decoder.decode(Rec.acl(.received, handle: 0x000E, pb: 0b01, hx("01 02")))
        let later = decoder.decode(Rec.l2cap(.received, handle: 0x000E, cid: 0x0110, hx("01 02")))
        #expect(later.layer == .bredr)
        let fake = decoder.decode(Rec.l2cap(.received, handle: 0x000E, cid: 0x0004, hx("1B 01 00 AA")))
        #expect(fake.attEvents.isEmpty)
    }

    @Test func cancelledConnectionAttemptIsARefButNeverOpens() throws {
        var decoder = PacketDecoder()
        _ = decoder.decode(Rec.cmd(hx("0D 20 19 60 00 30 00 00 01 55 44 33 22 11 C0 00 18 00 28 00 00 00 F4 01 00 00 00 00")))
        _ = decoder.decode(Rec.evt(hx("0F 04 00 01 0D 20")))
        _ = decoder.decode(Rec.cmd(hx("0E 20 00")))
        _ = decoder.decode(Rec.evt(hx("0E 04 01 0E 20 00")))
        // Enhanced Connection Complete, status 0x02, handle 0x0040 (garbage on failure)
        let failed = decoder.decode(Rec.evt(hx("3E 1F 0A 02 40 00 00 01 55 44 33 22 11 C0 00 00 00 00 00 00 00 00 00 00 00 00 00 00 00 00 00 00 00")))
        let c = try #require(failed.connectionCompletes.first)
        #expect(c.status == .unknownConnectionIdentifier && c.connection == ConnectionRef(index: 1, handle: 0x0040))
        // The handle did not open: ACL on it is a connection found in progress (#2)
        let acl = decoder.decode(Rec.l2cap(.received, handle: 0x0040, cid: 0x0004, hx("1B 01 00 AA")))
        #expect(acl.foundInProgress.first?.0 == ConnectionRef(index: 2, handle: 0x0040))
        // A Disconnection Complete on the handle a failed Connection Complete named belongs to that
        // attempt: it names no connection and opens none
        var other = PacketDecoder()
        _ = other.decode(Rec.evt(hx("3E 13 01 3E 40 00 00 01 55 44 33 22 11 C0 18 00 00 00 F4 01 05")))
        #expect(other.decode(Rec.disconnectionComplete(handle: 0x0040, reason: 0x3E)).disconnections.first?.connection == nil)
        #expect(other.finish().isEmpty)
    }

    @Test func failedDisconnectionKeepsTheConnectionOpen() {
        var decoder = PacketDecoder()
        _ = decoder.decode(Rec.leConnectionComplete(handle: 0x0040))
        _ = decoder.decode(Rec.cmd(hx("06 04 03 40 00 13")))
        // 05 04 | 0C Command Disallowed | 40 00 | 13
        let p = decoder.decode(Rec.evt(hx("05 04 0C 40 00 13")))
        #expect(p.summary == "Rcvd Disconnect Complete status 0x0C Command Disallowed reason 0x13 Remote User Terminated Connection")
        #expect(p.disconnections.first?.status == .commandDisallowed)
        #expect(decoder.decode(Rec.l2cap(.received, handle: 0x0040, cid: 0x0004, hx("1B 01 00 AA"))).connection?.index == 1)
        #expect(decoder.connectionsSeen == 1)
    }

    @Test func disconnectStatesFollowTheCommandAndEvents() {
        var decoder = PacketDecoder()
        _ = decoder.decode(Rec.leConnectionComplete(handle: 0x0040))
        func state() -> String {
            switch decoder.tracker.handles[0x0040 as UInt32] {
            case .open?: "open"
            case .disconnecting(_, let reason)?: "disconnecting \(hex(reason.rawValue))"
            case nil: "closed"
            }
        }
        #expect(state() == "open")
        _ = decoder.decode(Rec.cmd(hx("06 04 03 40 00 13")))
        #expect(state() == "disconnecting 0x13")
        // Command Status 0x0C Command Disallowed: the Disconnect was refused
        _ = decoder.decode(Rec.evt(hx("0F 04 0C 01 06 04")))
        #expect(state() == "open")
        _ = decoder.decode(Rec.cmd(hx("06 04 03 40 00 16")))
        _ = decoder.decode(Rec.evt(hx("0F 04 00 01 06 04")))
        #expect(state() == "disconnecting 0x16")
        _ = decoder.decode(Rec.disconnectionComplete(handle: 0x0040, reason: 0x16))
        #expect(state() == "closed")
    }

    @Test func connectionCompleteOnAnOpenHandleReplacesIt() {
        var decoder = PacketDecoder()
        _ = decoder.decode(Rec.leConnectionComplete(handle: 0x0040))
        _ = decoder.decode(Rec.acl(.received, handle: 0x0040, pb: 0b10, hx("05 00 04 00 1B")))
        let p = decoder.decode(Rec.leConnectionComplete(handle: 0x0040))
        #expect(p.connection?.index == 2)
        // The event is well formed: the missing Disconnection Complete is link 1's end, not a
        // decode problem; the PDU link 1 left half reassembled is.
        #expect(p.events.contains { if case .linkReplaced(let old, let new) = $0 { old.index == 1 && new.index == 2 } else { false } })
        #expect(p.problems.count == 1)
        #expect(p.problems[0].reason.hasPrefix("incomplete L2CAP PDU discarded (handle reused)"))
    }

    @Test func disconnectionDropsPendingReassembly() {
        var decoder = PacketDecoder()
        _ = decoder.decode(Rec.leConnectionComplete(handle: 0x0040))
        _ = decoder.decode(Rec.acl(.received, handle: 0x0040, pb: 0b10, hx("05 00 04 00 1B")))
        let p = decoder.decode(Rec.disconnectionComplete(handle: 0x0040, reason: 0x08))
        #expect(p.problems.count == 1)
        #expect(p.problems.first?.reason.hasPrefix("incomplete L2CAP PDU discarded (disconnection)") == true)
        #expect(decoder.reassembler.isEmpty)
    }

    @Test func finishReportsOpenConnectionsAndPartialPDUs() {
        var decoder = PacketDecoder()
        _ = decoder.decode(Rec.leConnectionComplete(handle: 0x0040))
        _ = decoder.decode(Rec.l2cap(.received, handle: 0x0042, cid: 0x0004, hx("1B 01 00 AA")))
        _ = decoder.decode(Rec.acl(.received, handle: 0x0040, pb: 0b10, hx("05 00 04 00 1B")))
        let end = decoder.finish()
        #expect(end.count == 3)
        #expect(end.allSatisfy { $0.kind == .truncated })
        #expect(end[0].layer == .l2cap && end[0].reason.contains("end of capture") && end[0].reason.contains("5 of 9 bytes"))
        #expect(end[1].reason == "connection #1 (handle 0x0040, le) still open at end of capture")
        #expect(end[2].reason == "connection #2 (handle 0x0042, le, begun before the capture) still open at end of capture")
        #expect(end[1].offset == Rec.base)
        #expect(decoder.finish().isEmpty)
    }

    @Test func eventsNamingAHandleGetTheConnection() {
        var decoder = PacketDecoder()
        _ = decoder.decode(Rec.leConnectionComplete(handle: 0x0040))
        let conn = ConnectionRef(index: 1, handle: 0x0040)
        // Mode Change (status, handle), Max Slots Change (handle first)
        #expect(decoder.decode(Rec.evt(hx("14 06 00 40 00 02 00 08"))).connection == conn)
        #expect(decoder.decode(Rec.evt(hx("1B 03 40 00 05"))).connection == conn)
        // LE Read Remote Features command, then its Command Status
        #expect(decoder.decode(Rec.cmd(hx("16 20 02 40 00"))).connection == conn)
        #expect(decoder.decode(Rec.evt(hx("0F 04 00 01 16 20"))).connection == conn)
        // Unknown handle: a link begun before the capture (EventOnlyConnectionTests)
        #expect(decoder.decode(Rec.evt(hx("13 05 01 47 00 01 00"))).connection == ConnectionRef(index: 2, handle: 0x0047))
        #expect(decoder.connectionsSeen == 2)
    }
}
