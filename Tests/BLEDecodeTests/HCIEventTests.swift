import BLECore
import Testing
@testable import BLEDecode

@Suite("HCI events")
struct HCIEventTests {
    @Test func disconnectionCompleteOfAKnownConnection() {
        var decoder = PacketDecoder()
        _ = decoder.decode(Rec.leConnectionComplete(handle: 0x0040))
        // 05        Disconnection Complete
        // 04        parameter length
        // 00        Status success
        // 40 00     Connection_Handle 0x0040
        // 08        Reason 0x08 Connection Timeout
        let p = decoder.decode(Rec.evt(hx("05 04 00 40 00 08")))
        #expect(p.summary == "Rcvd Disconnect Complete reason 0x08 Connection Timeout")
        #expect(p.connection == ConnectionRef(index: 1, handle: 0x0040))
        let d = p.disconnections.first
        #expect(d?.connection == ConnectionRef(index: 1, handle: 0x0040))
        #expect(d?.handle == 0x0040)
        #expect(d?.status == .success)
        #expect(d?.reason == .connectionTimeout)
    }

    /// A handle the capture never saw: a link begun before the capture, which ends here
    /// (`EventOnlyConnectionTests`). A failed Disconnection Complete (status 0x0C) names none.
    @Test func disconnectionCompleteOfAnUnknownHandle() {
        var decoder = PacketDecoder()
        let p = decoder.decode(Rec.evt(hx("05 04 00 47 00 3E")))
        #expect(p.summary == "Rcvd Disconnect Complete reason 0x3E Connection Failed to be Established")
        #expect(p.connection == ConnectionRef(index: 1, handle: 0x0047))
        #expect(p.disconnections.first?.connection == ConnectionRef(index: 1, handle: 0x0047))
        #expect(p.disconnections.first?.reason == .connectionFailedToBeEstablished)
        let failed = decoder.decode(Rec.evt(hx("05 04 0C 48 00 16")))
        #expect(failed.summary == "Rcvd Disconnect Complete status 0x0C Command Disallowed handle 0x0048 (unknown) reason 0x16 Connection Terminated By Local Host")
        #expect(failed.disconnections.first?.connection == nil)
    }

    @Test func encryptionEvents() throws {
        var decoder = PacketDecoder()
        _ = decoder.decode(Rec.leConnectionComplete(handle: 0x0040))
        let conn = ConnectionRef(index: 1, handle: 0x0040)
        // 08 04 | 00 status | 40 00 handle | 01 Encryption_Enabled on (v1, 7.7.8)
        let v1 = decoder.decode(Rec.evt(hx("08 04 00 40 00 01")))
        #expect(v1.summary == "Rcvd Encryption Change handle 0x0040 on")
        let e1 = try #require(v1.encryptionChanges.first)
        #expect(e1.connection == conn && e1.enabled == true && e1.isKeyRefresh == false && e1.status == .success)
        // 59 05 | 00 | 40 00 | 01 | 10 Encryption_Key_Size 16 (v2, 7.7.8.a)
        let v2 = decoder.decode(Rec.evt(hx("59 05 00 40 00 01 10")))
        #expect(v2.summary == "Rcvd Encryption Change [v2] handle 0x0040 on key size 16")
        #expect(v2.encryptionChanges.first?.enabled == true)
        // 08 04 | 06 PIN or Key Missing | 40 00 | 00 off
        let failed = decoder.decode(Rec.evt(hx("08 04 06 40 00 00")))
        #expect(failed.summary == "Rcvd Encryption Change status 0x06 PIN or Key Missing handle 0x0040 off")
        #expect(failed.encryptionChanges.first?.status == .pINOrKeyMissing)
        // 30 03 | 00 | 40 00: Encryption Key Refresh Complete (7.7.39)
        let refresh = decoder.decode(Rec.evt(hx("30 03 00 40 00")))
        #expect(refresh.summary == "Rcvd Encryption Key Refresh Complete handle 0x0040")
        let r = try #require(refresh.encryptionChanges.first)
        #expect(r.isKeyRefresh && r.enabled == nil && r.connection == conn)
    }

    @Test func commandCompleteCarriesTheStatus() throws {
        var decoder = PacketDecoder()
        // 0E 04 | 01 Num_HCI_Command_Packets | 0C 20 opcode LE Set Scan Enable | 00 Status
        let ok = decoder.decode(Rec.evt(hx("0E 04 01 0C 20 00")))
        #expect(ok.summary == "Rcvd Command Complete (LE Set Scan Enable)")
        let r = try #require(ok.commandResults.first)
        #expect(r.opcode == 0x200C && r.status == .success && !r.isCommandStatus && r.name == "LE Set Scan Enable")
        // … status 0x0C Command Disallowed
        let bad = decoder.decode(Rec.evt(hx("0E 04 01 0C 20 0C")))
        #expect(bad.summary == "Rcvd Command Complete (LE Set Scan Enable) status 0x0C Command Disallowed")
        #expect(bad.commandResults.first?.status == .commandDisallowed)
        // 0E 03 | 01 | 00 00 opcode NOP: no return parameters, no status
        let nop = decoder.decode(Rec.evt(hx("0E 03 01 00 00")))
        #expect(nop.summary == "Rcvd Command Complete (No Operation)")
        #expect(nop.commandResults.count == 1 && nop.commandResults.first?.status == nil)
        // Vendor command's Command Complete: 0E 05 | 01 | 57 FD | 00 | 01. Its return parameters
        // are the vendor's (5.4.1): no HCI status, the first byte kept apart (HCIVendorCommandTests).
        let vendor = decoder.decode(Rec.evt(hx("0E 05 01 57 FD 00 01")))
        #expect(vendor.summary == "Rcvd Command Complete (Android LE Advertising Filter: Feature Select)")
        #expect(vendor.commandResults.first?.status == nil)
        #expect(vendor.commandResults.first?.vendorReturn == HCIVendorReturn(firstByte: 0x00, isStatus: true))
    }

    @Test func commandStatusAndCompleteInheritTheCommandsConnection() throws {
        var decoder = PacketDecoder()
        _ = decoder.decode(Rec.leConnectionComplete(handle: 0x0040))
        let conn = ConnectionRef(index: 1, handle: 0x0040)
        _ = decoder.decode(Rec.cmd(hx("06 04 03 40 00 13")))
        // 0F 04 | 00 Status | 01 Num_HCI_Command_Packets | 06 04 opcode Disconnect
        let status = decoder.decode(Rec.evt(hx("0F 04 00 01 06 04")))
        #expect(status.summary == "Rcvd Command Status (Disconnect)")
        let r = try #require(status.commandResults.first)
        #expect(r.isCommandStatus && r.status == .success && r.connection == conn)
        #expect(status.connection == conn)
        // LE Read Remote Features then a failing Command Status
        _ = decoder.decode(Rec.cmd(hx("16 20 02 40 00")))
        let failed = decoder.decode(Rec.evt(hx("0F 04 1A 01 16 20")))
        #expect(failed.summary == "Rcvd Command Status (LE Read Remote Features) status 0x1A Unsupported Remote Feature")
        #expect(failed.connection == conn)
        // A second status for the same opcode has no pending command any more.
        #expect(decoder.decode(Rec.evt(hx("0F 04 00 01 16 20"))).connection == nil)
    }

    @Test func hardwareErrorAndBufferEvents() {
        var decoder = PacketDecoder()
        _ = decoder.decode(Rec.leConnectionComplete(handle: 0x0040))
        // 10 01 | 12 Hardware_Code
        let hw = decoder.decode(Rec.evt(hx("10 01 12")))
        #expect(hw.summary == "Rcvd Hardware Error code 0x12")
        if case .hardwareError(let code)? = hw.events.first { #expect(code == 0x12) } else { Issue.record("no hardware error") }
        // 13 05 | 01 Num_Handles | 40 00 handle | 02 00 Num_Completed_Packets
        let ncp = decoder.decode(Rec.evt(hx("13 05 01 40 00 02 00")))
        #expect(ncp.summary == "Rcvd Number of Completed Packets 0x0040: 2")
        #expect(ncp.connection == ConnectionRef(index: 1, handle: 0x0040))
        // Two handles: no single connection
        let two = decoder.decode(Rec.evt(hx("13 09 02 40 00 01 00 41 00 03 00")))
        #expect(two.summary == "Rcvd Number of Completed Packets 0x0040: 1, 0x0041: 3")
        #expect(two.connection == nil)
        // 1A 01 | 01 Link_Type ACL
        #expect(decoder.decode(Rec.evt(hx("1A 01 01"))).summary == "Rcvd Data Buffer Overflow (ACL)")
    }

    /// The local role of a BR/EDR ACL (Core v5.4 Vol 4 Part E 7.7.3 does not carry it): the
    /// peer's page (Connection Request, 7.7.4) makes the local device peripheral, a Role Change
    /// before completion (7.7.18) gives the role the link starts with, and with neither page in
    /// the capture the role is unknown, not "peripheral".
    @Test func bredrLocalRoleFromPageAndRoleChange() throws {
        var decoder = PacketDecoder()
        // 04 0A | BD_ADDR E1 25 0F DC 1B 00 | 04 04 24 Class_Of_Device | 01 ACL
        let request = decoder.decode(Rec.evt(hx("04 0A E1 25 0F DC 1B 00 04 04 24 01")))
        #expect(request.summary == "Rcvd Connect Request peer 00:1B:DC:0F:25:E1")
        let accepted = decoder.decode(Rec.evt(hx("03 0B 00 0B 00 E1 25 0F DC 1B 00 01 00")))
        #expect(accepted.connectionCompletes.first?.role == 1)
        // Paged again, then a role switch to central (12 08 | 00 | BD_ADDR | 00) before completion
        _ = decoder.decode(Rec.evt(hx("04 0A E1 25 0F DC 1B 00 04 04 24 01")))
        let change = decoder.decode(Rec.evt(hx("12 08 00 E1 25 0F DC 1B 00 00")))
        #expect(change.summary == "Rcvd Role Change peer 00:1B:DC:0F:25:E1 central")
        let switched = decoder.decode(Rec.evt(hx("03 0B 00 0C 00 E1 25 0F DC 1B 00 01 00")))
        #expect(switched.connectionCompletes.first?.role == 0)
        // A Role Change on a link already up is not carried to the next one; no page seen: unknown
        _ = decoder.decode(Rec.evt(hx("12 08 00 E1 25 0F DC 1B 00 01")))
        let unknown = decoder.decode(Rec.evt(hx("03 0B 00 0D 00 E1 25 0F DC 1B 00 01 00")))
        let c = try #require(unknown.connectionCompletes.first)
        #expect(c.role == nil)
    }

    @Test func bredrConnectionComplete() throws {
        var decoder = PacketDecoder()
        // Create Connection to 00:1B:DC:0F:25:E1: 05 04 0D | BD_ADDR | 18 CC packet types | 01 | 00 | 00 00 | 01
        _ = decoder.decode(Rec.cmd(hx("05 04 0D E1 25 0F DC 1B 00 18 CC 01 00 00 00 01")))
        // 03 0B | 00 Status | 0B 00 handle | E1 25 0F DC 1B 00 BD_ADDR | 01 Link_Type ACL | 00 encryption off
        let p = decoder.decode(Rec.evt(hx("03 0B 00 0B 00 E1 25 0F DC 1B 00 01 00")))
        #expect(p.summary == "Rcvd Connect Complete handle 0x000B peer 00:1B:DC:0F:25:E1")
        let c = try #require(p.connectionCompletes.first)
        #expect(c.transport == .bredr && c.status == .success && c.role == 0)
        #expect(c.connection == ConnectionRef(index: 1, handle: 0x000B))
        #expect(c.peerAddress == BluetoothAddress("00:1B:DC:0F:25:E1"))
        #expect(c.eventName == "Connect Complete")
        // A failed page: status 0x04, a new ref, nothing opened
        let failed = decoder.decode(Rec.evt(hx("03 0B 04 00 00 E1 25 0F DC 1B 00 01 00")))
        #expect(failed.summary == "Rcvd Connect Complete status 0x04 Page Timeout handle 0x0000 peer 00:1B:DC:0F:25:E1")
        #expect(failed.connectionCompletes.first?.connection.index == 2)
        #expect(decoder.connectionsSeen == 2)
        // SCO link: named, not a connection
        let sco = decoder.decode(Rec.evt(hx("03 0B 00 0C 00 E1 25 0F DC 1B 00 00 00")))
        #expect(sco.connectionCompletes.isEmpty)
        #expect(sco.summary.hasSuffix("(SCO)"))
    }

    @Test func vendorAndUnknownEvents() {
        var decoder = PacketDecoder()
        // FF 03 | AA BB CC: vendor event, kept whole
        let v = decoder.decode(Rec.evt(hx("FF 03 AA BB CC")))
        #expect(v.summary == "Rcvd Vendor event")
        #expect(v.problems.isEmpty && v.events.isEmpty && v.layer == .hci)
        // FE 00: no such event code
        #expect(decoder.decode(Rec.evt(hx("FE 00"))).summary == "Rcvd Unknown event 0xFE")
        // 0C 08 | 00 | 40 00 | 0A version | 0F 00 company | 01 02 subversion
        let version = decoder.decode(Rec.evt(hx("0C 08 00 40 00 0A 0F 00 01 02")))
        #expect(version.summary == "Rcvd Read Remote Version Information Complete handle 0x0040")
        #expect(version.linkEvents.first?.fields.map(\.1) == ["0x0A", "0x000F", "0x0201"])
    }

    @Test func parameterLengthDisagreements() {
        var decoder = PacketDecoder()
        // Disconnection Complete claims 4 parameter bytes, has 3: truncated at payload byte 5
        let short = decoder.decode(Rec.evt(hx("05 04 00 40 00")))
        #expect(short.problems.first?.kind == .truncated)
        #expect(short.problems.first?.offset == Rec.base + 5)
        #expect(short.summary.hasPrefix("Rcvd Disconnect Complete (malformed: Reason"))
        #expect(short.disconnections.isEmpty)
        // Number of Completed Packets with one byte more than its length: the excess is reported
        let long = decoder.decode(Rec.evt(hx("13 05 01 40 00 02 00 FF")))
        #expect(long.problems.count == 1)
        #expect(long.problems.first?.offset == Rec.base + 7)
        #expect(long.problems.first?.kind == .malformed)
        #expect(long.summary == "Rcvd Number of Completed Packets 0x0040: 2")
        // A vendor event whose length disagrees keeps its name and reports the damage
        let vendor = decoder.decode(Rec.evt(hx("FF 09 01 02")))
        #expect(vendor.summary == "Rcvd Vendor event" && vendor.problems.count == 1)
        // No header at all
        let empty = decoder.decode(Rec.evt([0x05]))
        #expect(empty.summary == "Rcvd HCI event (malformed: header cut short)")
        #expect(empty.problems.first?.offset == Rec.base + 1)
    }

    @Test func everyPrefixOfAnEventIsHandled() {
        let full = hx("3E 1F 0A 00 40 00 00 01 55 44 33 22 11 C0 00 00 00 00 00 00 00 00 00 00 00 00 18 00 00 00 F4 01 05")
        for n in 0..<full.count {
            var decoder = PacketDecoder()
            let p = decoder.decode(Rec.evt(Array(full.prefix(n))))
            #expect(!p.problems.isEmpty, "prefix \(n)")
            #expect(p.connectionCompletes.isEmpty, "prefix \(n)")
            #expect(decoder.connectionsSeen == 0)
            #expect(p.problems.allSatisfy { $0.offset >= Rec.base && $0.offset <= Rec.base + n }, "prefix \(n)")
        }
    }
}
