import BLECore
import Testing
@testable import BLEDecode

@Suite("HCI LE Meta events")
struct HCILEMetaTests {
    @Test func leConnectionComplete() throws {
        var decoder = PacketDecoder()
        // 3E 13     LE Meta, length 19
        // 01        LE Connection Complete
        // 00        Status
        // 40 00     Connection_Handle 0x0040
        // 00        Role central
        // 01        Peer_Address_Type random
        // 55 44 33 22 11 C0  Peer_Address C0:11:22:33:44:55
        // 18 00     Connection_Interval 24 (30 ms)
        // 00 00     Peripheral_Latency 0
        // F4 01     Supervision_Timeout 500 (5 s)
        // 05        Central_Clock_Accuracy
        let p = decoder.decode(Rec.evt(hx("3E 13 01 00 40 00 00 01 55 44 33 22 11 C0 18 00 00 00 F4 01 05")))
        #expect(p.summary == "Rcvd LE Meta (LE Connection Complete) status 0x00 handle 0x0040 peer C0:11:22:33:44:55 (random) central interval 30 ms")
        #expect(p.problems.isEmpty)
        let c = try #require(p.connectionCompletes.first)
        #expect(c.connection == ConnectionRef(index: 1, handle: 0x0040))
        #expect(c.transport == .le && c.status == .success && c.role == 0)
        #expect(c.peerAddress == BluetoothAddress("C0:11:22:33:44:55") && c.peerAddressType == .random)
        #expect(c.interval == 24 && c.peripheralLatency == 0 && c.supervisionTimeout == 500)
        #expect(c.eventName == "LE Connection Complete")
        #expect(p.connection == c.connection)
    }

    @Test func enhancedConnectionCompleteV1AndV2() throws {
        var decoder = PacketDecoder()
        // 3E 1F | 0A Enhanced v1 | 00 | 41 00 | 01 peripheral | 00 public | 06 05 04 03 02 01
        // | 00 x6 Local_RPA | 00 x6 Peer_RPA | 28 00 interval 40 (50 ms) | 02 00 latency | 2C 01 timeout 300 | 00
        let v1 = decoder.decode(Rec.evt(hx("3E 1F 0A 00 41 00 01 00 06 05 04 03 02 01 00 00 00 00 00 00 00 00 00 00 00 00 28 00 02 00 2C 01 00")))
        #expect(v1.summary == "Rcvd LE Meta (LE Enhanced Connection Complete) status 0x00 handle 0x0041 peer 01:02:03:04:05:06 (public) peripheral interval 50 ms")
        let c1 = try #require(v1.connectionCompletes.first)
        #expect(c1.role == 1 && c1.interval == 40 && c1.peripheralLatency == 2 && c1.supervisionTimeout == 300)
        // v2 (0x29) adds Advertising_Handle FF and Sync_Handle FFFF: length 34
        let v2 = decoder.decode(Rec.evt(hx("3E 22 29 00 42 00 00 01 06 05 04 03 02 01 00 00 00 00 00 00 00 00 00 00 00 00 18 00 00 00 F4 01 00 FF FF FF")))
        #expect(v2.summary.hasPrefix("Rcvd LE Meta (LE Enhanced Connection Complete [v2]) status 0x00 handle 0x0042"))
        #expect(v2.connectionCompletes.first?.connection == ConnectionRef(index: 2, handle: 0x0042))
        #expect(v2.problems.isEmpty)
    }

    @Test func failedEnhancedConnectionCompleteAfterCancel() throws {
        var decoder = PacketDecoder()
        _ = decoder.decode(Rec.cmd(hx("0E 20 00")))
        _ = decoder.decode(Rec.evt(hx("0E 04 01 0E 20 00")))
        // Status 0x02 Unknown Connection Identifier: the attempt was cancelled; handle 0x0000
        let p = decoder.decode(Rec.evt(hx("3E 1F 0A 02 00 00 00 00 00 00 00 00 00 00 00 00 00 00 00 00 00 00 00 00 00 00 00 00 00 00 00 00 00")))
        #expect(p.summary == "Rcvd LE Meta (LE Enhanced Connection Complete) status 0x02 Unknown Connection Identifier handle 0x0000 peer 00:00:00:00:00:00 (public) (cancelled by host)")
        let c = try #require(p.connectionCompletes.first)
        #expect(c.status == .unknownConnectionIdentifier)
        #expect(c.connection == ConnectionRef(index: 1, handle: 0x0000))
        #expect(decoder.connectionsSeen == 1)
    }

    @Test func legacyAdvertisingReportWithTwoReports() throws {
        var decoder = PacketDecoder()
        // 3E 1F | 02 LE Advertising Report | 02 Num_Reports
        // report 0: 00 ADV_IND | 01 random | 66 55 44 33 22 11 | 06 len | 05 09 41 42 43 44 (Complete
        //           Local Name "ABCD") | C4 RSSI -60
        // report 1: 04 SCAN_RSP | 00 public | 06 05 04 03 02 01 | 03 len | 02 0A 04 (TX Power 4) | 7F RSSI n/a
        let p = decoder.decode(Rec.evt(hx("3E 1F 02 02 00 01 66 55 44 33 22 11 06 05 09 41 42 43 44 C4 04 00 06 05 04 03 02 01 03 02 0A 04 7F")))
        #expect(p.problems.isEmpty)
        #expect(p.summary == "Rcvd LE Meta (LE Advertising Report) 2 reports")
        #expect(p.reports.count == 2)
        let a = p.reports[0], b = p.reports[1]
        #expect(a.address == BluetoothAddress("11:22:33:44:55:66") && a.addressType == .random)
        #expect(a.eventType == 0 && !a.isExtended && !a.isScanResponse && a.rssi == -60)
        #expect(a.data == hx("05 09 41 42 43 44"))
        #expect(b.eventType == 4 && b.isScanResponse && b.rssi == nil && b.txPower == nil)
        #expect(b.data == hx("02 0A 04"))
    }

    @Test func singleAdvertisingReportSummary() {
        var decoder = PacketDecoder()
        // one report, no data, RSSI -71 (0xB9)
        let p = decoder.decode(Rec.evt(hx("3E 0C 02 01 03 00 06 05 04 03 02 01 00 B9")))
        #expect(p.summary.hasPrefix("Rcvd LE Meta (LE Advertising Report) 01:02:03:04:05:06 rssi -71"))
        #expect(p.reports.first?.eventType == 3)
    }

    @Test func extendedAdvertisingReportWithTwoReports() throws {
        var decoder = PacketDecoder()
        // 3E 3A | 0D LE Extended Advertising Report | 02 Num_Reports
        // report 0: 13 00 Event_Type (connectable, scannable, legacy) | 01 random | 66 55 44 33 22 11
        //           | 01 Primary_PHY | 00 Secondary_PHY | FF SID | 7F TX_Power n/a | C4 RSSI -60
        //           | 00 00 Periodic interval | 00 | 00 x6 Direct_Address | 03 len | 02 01 06 Flags
        // report 1: 1B 00 (… scan response bit 3) | 00 public | 06 05 04 03 02 01 | 01 | 00 | FF
        //           | 08 TX_Power 8 | B0 RSSI -80 | 00 00 | 00 | 00 x6 | 05 len | 04 09 61 62 63 "abc"
        let p = decoder.decode(Rec.evt(hx("""
            3E 3A 0D 02
            13 00 01 66 55 44 33 22 11 01 00 FF 7F C4 00 00 00 00 00 00 00 00 00 03 02 01 06
            1B 00 00 06 05 04 03 02 01 01 00 FF 08 B0 00 00 00 00 00 00 00 00 00 05 04 09 61 62 63
            """)))
        #expect(p.problems.isEmpty)
        #expect(p.reports.count == 2)
        let a = p.reports[0], b = p.reports[1]
        #expect(a.isExtended && a.eventType == 0x13 && !a.isScanResponse && a.txPower == nil && a.rssi == -60)
        #expect(a.data == hx("02 01 06"))
        #expect(b.isScanResponse && b.txPower == 8 && b.rssi == -80 && b.addressType == .public)
        #expect(b.data == hx("04 09 61 62 63"))
    }

    @Test func truncatedSecondReportKeepsTheFirst() {
        var decoder = PacketDecoder()
        // Num_Reports 2, but the second report stops after its Event_Type
        let p = decoder.decode(Rec.evt(hx("3E 0D 02 02 03 00 06 05 04 03 02 01 00 B9 00")))
        #expect(p.reports.count == 1)
        #expect(p.problems.count == 1)
        #expect(p.problems.first?.offset == Rec.base + 15)
        #expect(p.summary.hasPrefix("Rcvd LE Meta (LE Advertising Report) (malformed: Address_Type[1]"))
    }

    @Test func directedAdvertisingReport() {
        var decoder = PacketDecoder()
        // 3E 12 | 0B | 01 | 01 ADV_DIRECT_IND | 01 random | 66 55 44 33 22 11 | 01 | 06 05 04 03 02 01 | D8 RSSI -40
        let p = decoder.decode(Rec.evt(hx("3E 12 0B 01 01 01 66 55 44 33 22 11 01 06 05 04 03 02 01 D8")))
        #expect(p.problems.isEmpty)
        #expect(p.reports.count == 1)
        #expect(p.reports.first?.rssi == -40 && p.reports.first?.data == [])
    }

    @Test func connectionUpdateAndLinkEvents() throws {
        var decoder = PacketDecoder()
        _ = decoder.decode(Rec.leConnectionComplete(handle: 0x0040))
        let conn = ConnectionRef(index: 1, handle: 0x0040)
        // 3E 0A | 03 Connection Update Complete | 00 | 40 00 | 06 00 interval 7.5 ms | 00 00 | C8 00 timeout 2 s
        let u = decoder.decode(Rec.evt(hx("3E 0A 03 00 40 00 06 00 00 00 C8 00")))
        #expect(u.summary == "Rcvd LE Meta (LE Connection Update Complete) handle 0x0040 interval 7.5 ms latency 0 timeout 2000 ms")
        if case .connectionUpdate(let cu)? = u.events.first {
            #expect(cu.connection == conn && cu.interval == 6 && cu.supervisionTimeout == 200 && cu.status == .success)
        } else { Issue.record("no connection update") }
        // 3E 0C | 04 Read Remote Features Complete | 00 | 40 00 | 8 feature bytes
        let f = decoder.decode(Rec.evt(hx("3E 0C 04 00 40 00 FF 59 00 00 00 00 00 00")))
        #expect(f.linkEvents.first?.name == "LE Read Remote Features Complete")
        #expect(f.linkEvents.first?.fields.first?.1 == "ff59000000000000")
        #expect(f.connection == conn)
        // 3E 0D | 05 LTK Request | 40 00 | 8 random bytes | 34 12 EDIV
        let ltk = decoder.decode(Rec.evt(hx("3E 0D 05 40 00 01 02 03 04 05 06 07 08 34 12")))
        #expect(ltk.linkEvents.first?.fields.map(\.1) == ["0102030405060708", "0x1234"])
        // 3E 0B | 06 Remote Connection Parameter Request | 40 00 | 06 00 | 0C 00 | 00 00 | C8 00
        let req = decoder.decode(Rec.evt(hx("3E 0B 06 40 00 06 00 0C 00 00 00 C8 00")))
        #expect(req.summary == "Rcvd LE Meta (LE Remote Connection Parameter Request) handle 0x0040 interval 7.5-15 ms latency 0 timeout 2000 ms")
        // 3E 0B | 07 Data Length Change | 40 00 | FB 00 | 48 08 | FB 00 | 48 08
        let dl = decoder.decode(Rec.evt(hx("3E 0B 07 40 00 FB 00 48 08 FB 00 48 08")))
        #expect(dl.summary == "Rcvd LE Meta (LE Data Length Change) handle 0x0040 tx 251 rx 251 octets")
        #expect(dl.linkEvents.first?.fields.map(\.0) == ["max_tx_octets", "max_tx_time", "max_rx_octets", "max_rx_time"])
        // 3E 06 | 0C PHY Update Complete | 00 | 40 00 | 02 | 02
        let phy = decoder.decode(Rec.evt(hx("3E 06 0C 00 40 00 02 02")))
        #expect(phy.summary == "Rcvd LE Meta (LE PHY Update Complete) handle 0x0040 tx 2M rx 2M")
        #expect(phy.linkEvents.first?.status == .success)
        // 3E 04 | 14 Channel Selection Algorithm | 40 00 | 01 (#2)
        let csa = decoder.decode(Rec.evt(hx("3E 04 14 40 00 01")))
        #expect(csa.connection == conn && csa.linkEvents.first?.fields.first?.1 == "#2")
    }

    @Test func advertisingSetTerminatedAndOthers() {
        var decoder = PacketDecoder()
        _ = decoder.decode(Rec.leConnectionComplete(handle: 0x0040))
        // 3E 06 | 12 | 00 | 01 Advertising_Handle | 40 00 | 00
        let t = decoder.decode(Rec.evt(hx("3E 06 12 00 01 40 00 00")))
        #expect(t.summary == "Rcvd LE Meta (LE Advertising Set Terminated) advertising handle 0x01 connection handle 0x0040")
        #expect(t.connection == ConnectionRef(index: 1, handle: 0x0040))
        // 3E 01 | 11 Scan Timeout
        #expect(decoder.decode(Rec.evt(hx("3E 01 11"))).summary == "Rcvd LE Meta (LE Scan Timeout)")
        // 3E 02 | 7F unknown sub-event
        #expect(decoder.decode(Rec.evt(hx("3E 02 7F 00"))).summary == "Rcvd LE Meta (Unknown LE sub-event 0x7F)")
        // 3E 00: no sub-event code
        let empty = decoder.decode(Rec.evt(hx("3E 00")))
        #expect(empty.summary == "Rcvd LE Meta (malformed: no LE sub-event code)")
        #expect(empty.problems.first?.offset == Rec.base + 2)
        // 3E 1D | 19 CIS Established | 3E status | 60 00 CIS handle | 25 bytes of parameters (7.7.65.25)
        #expect(decoder.decode(Rec.evt(hx("3E 1D 19 3E 60 00") + [UInt8](repeating: 0, count: 25))).summary
                == "Rcvd LE Meta (LE CIS Established) status 0x3E Connection Failed to be Established CIS handle 0x0060")
        // Cut after its status: the status is still shown, the missing handle is a problem
        let cut = decoder.decode(Rec.evt(hx("3E 02 19 3E")))
        #expect(cut.summary.hasPrefix("Rcvd LE Meta (LE CIS Established) status 0x3E Connection Failed to be Established"))
        #expect(cut.problems.count == 1)
    }

    @Test(arguments: [false, true])
    func dhKeyShownOnlyWithKeepKeys(_ keepKeys: Bool) {
        var decoder = PacketDecoder(options: DecoderOptions(keepKeys: keepKeys))
        // 3E 22 | 09 Generate DHKey Complete | 00 | 32 key bytes (01 x32)
        let p = decoder.decode(Rec.evt([0x3E, 0x22, 0x09, 0x00] + [UInt8](repeating: 0x01, count: 32)))
        #expect(p.summary.contains("DHKey 0101") == keepKeys)
    }
}

/// LE Extended Advertising Report data status (Core v5.4 Vol 4 Part E 7.7.65.13, Event_Type
/// bits 5-6), as tshark 4.0 shows it ("Data Status: Incomplete, more data to come").
@Suite("Extended advertising data status")
struct ExtendedAdvertisingDataStatusTests {
    /// One report: Event_Type, random address D1:22:33:44:55:66, 1M/2M PHY, SID 1, no TX
    /// power, RSSI -60, no periodic interval, no direct address, then the data.
    private func report(_ eventType: UInt16, _ data: [UInt8]) -> CaptureRecord {
        let body: [UInt8] = [0x0D, 0x01, UInt8(eventType & 0xFF), UInt8(eventType >> 8), 0x01,
                             0x66, 0x55, 0x44, 0x33, 0x22, 0xD1, 0x01, 0x02, 0x01, 0x7F, 0xC4,
                             0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, UInt8(data.count)] + data
        return Rec.evt([0x3E, UInt8(body.count)] + body)
    }

    @Test func fragmentsSayTheyAreFragments() throws {
        var decoder = PacketDecoder()
        let more = decoder.decode(report(0x0021, hx("02 01 06 05 09 45 61 72")))
        #expect(more.reports.first?.dataStatus == 1)
        #expect(more.summary.hasSuffix("(incomplete, more data to come)"))
        let last = decoder.decode(report(0x0001, hx("62 75 64 73")))
        #expect(last.reports.first?.dataStatus == 0)
        #expect(!last.summary.contains("incomplete"))
        let cut = decoder.decode(report(0x0040, hx("02 01 06")))
        #expect(cut.reports.first?.dataStatus == 2)
        #expect(cut.summary.hasSuffix("(incomplete, truncated)"))
        #expect(more.problems.isEmpty && last.problems.isEmpty && cut.problems.isEmpty)
    }

    /// The same report from advertiser `last` (address D1:22:33:44:55:`last`) and set `sid`.
    private func report(_ eventType: UInt16, sid: UInt8, last: UInt8, _ data: [UInt8]) -> CaptureRecord {
        let body: [UInt8] = [0x0D, 0x01, UInt8(eventType & 0xFF), UInt8(eventType >> 8), 0x01,
                             last, 0x55, 0x44, 0x33, 0x22, 0xD1, 0x01, 0x02, sid, 0x7F, 0xC4,
                             0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, UInt8(data.count)] + data
        return Rec.evt([0x3E, UInt8(body.count)] + body)
    }

    /// 7.7.65.13: fragments of one advertising set (address + Advertising_SID) come in order,
    /// possibly with other advertisers' reports between them. The last fragment carries the
    /// whole data: here Flags (02 01 06) and a Complete Local Name "Earbuds" (08 09 ...) split
    /// inside the name; the first fragment alone would read as the name "Ear".
    @Test func theLastFragmentCarriesTheWholeAdvertisement() throws {
        var decoder = PacketDecoder()
        let first = decoder.decode(report(0x0021, sid: 3, last: 0x66, hx("02 01 06 08 09 45 61 72")))
        let other = decoder.decode(report(0x0001, sid: 3, last: 0x77, hx("05 09 4D 65 74 72")))   // "Metr", another device
        let otherSet = decoder.decode(report(0x0001, sid: 4, last: 0x66, hx("02 01 06")))       // same device, other set
        let end = decoder.decode(report(0x0001, sid: 3, last: 0x66, hx("62 75 64 73")))
        #expect(first.reports.first?.parsed.localName == nil)
        #expect(first.reports.first?.data == hx("02 01 06 08 09 45 61 72"))
        #expect(other.reports.first?.parsed.localName == "Metr")
        #expect(otherSet.reports.first?.data == hx("02 01 06"))
        #expect(end.reports.first?.data == hx("02 01 06 08 09 45 61 72 62 75 64 73"))
        #expect(end.reports.first?.parsed.localName == "Earbuds")
        #expect(end.summary.contains("\"Earbuds\""))
        // The run is over: the next report of the set starts a new advertisement.
        let again = decoder.decode(report(0x0001, sid: 3, last: 0x66, hx("03 09 41 42")))
        #expect(again.reports.first?.parsed.localName == "AB")
    }
}
