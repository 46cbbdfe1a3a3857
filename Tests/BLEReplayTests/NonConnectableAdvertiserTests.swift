import BLECore
import BLEDecode
import Testing
@testable import BLEReplay

/// Every advertiser of a capture is modelled, non-connectable ones included (Docs/replay.md "The
/// peripheral model"). heart-rate-healthy holds an iBeacon, DE:AD:10:42:77:01, sending
/// ADV_NONCONN_IND (legacy event type 3, Core v5.4 Vol 4 Part E 7.7.65.2) twice: frames 32 and 37,
/// 353.119 ms apart, RSSI -80 and -74 dBm, no scan response (Scripts/make_sample_captures.py).
@Suite struct NonConnectableAdvertiserTests {
    static let beacon = "DE:AD:10:42:77:01"
    /// Flags 0x06, then Apple's manufacturer data: iBeacon 02 15, proximity UUID, major 1, minor 7, -59 dBm.
    static let beaconData: [UInt8] = [0x02, 0x01, 0x06, 0x1A, 0xFF, 0x4C, 0x00, 0x02, 0x15,
                                      0xE2, 0xC5, 0x6D, 0xB5, 0xDF, 0xFB, 0x48, 0xD2, 0xB0, 0x60, 0xD0, 0xF5, 0xA7, 0x10, 0x96, 0xE0,
                                      0x00, 0x01, 0x00, 0x07, 0xC5]

    func session() throws -> RecordedSession { try TestCaptures.session(TestCaptures.sample("heart-rate-healthy.btsnoop")) }

    @Test func theBeaconIsModelledAsRecorded() throws {
        let models = ModelBuilder.build(try session()).peripherals
        #expect(models.map(\.key) == ["C4:7A:3B:12:9E:51", "5D:21:C8:0A:93:3E", Self.beacon])
        let m = try #require(models.first { $0.key == Self.beacon })
        let adv = m.advertising
        #expect(adv.advertisingData == Self.beaconData)
        #expect(adv.scanResponse == nil)
        #expect(!adv.connectable && !adv.scannable && !adv.synthesized)
        #expect(adv.legacyEventType == 3)
        #expect(adv.interval == 353_119 - 5_000)          // the one gap, less the mean advDelay
        #expect(adv.rssi == -74)                          // median of [-80, -74] (upper middle)
        #expect(adv.reportCount == 2)
        #expect(m.address?.type == 1 && m.behaviours.isEmpty)
        // The connected sensor and the connectable band are unchanged.
        #expect(models[0].advertising.connectable && models[0].advertising.scannable)
        #expect(models[1].advertising.connectable && models[1].advertising.scanResponse != nil)
    }

    @Test(arguments: [(0, false, true, true), (1, false, true, false), (2, false, false, true), (3, false, false, false),
                      (0x13, true, true, true), (0x10, true, false, false), (0x12, true, false, true), (0x01, true, true, false),
                      (0x00, true, false, false)])
    func reportPropertiesFollowTheEventType(type: Int, extended: Bool, connectable: Bool, scannable: Bool) {
        let p = AdvertisingModel.properties(eventType: type, extended: extended)
        #expect(p.connectable == connectable && p.scannable == scannable)
    }

    func script(_ steps: String, limit: String = "1m") throws -> (ScriptResult, ReplayWorld) {
        let s = try CentralScript(parsing: Array("{\"limit\": \"\(limit)\", \"steps\": [\(steps)]}".utf8), name: "beacon.json")
        let session = try session()
        var base = ReplayConfiguration()
        base.keepTrace = true
        let c = ScriptReplay.configuration(s, session: session, base: base, unmatchedGiven: false)
        return ScriptReplay.run(session, script: s, configuration: c)
    }

    /// A script's scan reports the beacon, with its recorded RSSI, and says it is not connectable;
    /// the written trace shows its ADV_NONCONN_IND with the recorded data and no SCAN_RSP.
    @Test func aScriptScanFindsTheBeacon() throws {
        let (r, world) = try script("{\"scan\": {\"address\": \"\(Self.beacon)\", \"timeout\": \"5s\"}}")
        #expect(r.passed, "\(ScriptReport.text(r))")
        #expect(r.checks.first?.message == "found \(Self.beacon), RSSI -74 dBm, not connectable")
        let reports = world.trace.records.filter { $0.kind == .event && $0.payload.count > 12 && $0.payload[0] == 0x3E && $0.payload[2] == 0x02 }
        let beacon: [UInt8] = [0x01, 0x01, 0x77, 0x42, 0x10, 0xAD, 0xDE]   // address type random, then the address little-endian
        let mine = reports.filter { Array($0.payload[5...11]) == beacon }
        #expect(mine.count == 1)
        #expect(mine.first?.payload[4] == 3)                          // ADV_NONCONN_IND
        #expect(mine.first.map { Array($0.payload[13..<(13 + Self.beaconData.count)]) } == Self.beaconData)
    }

    /// A service filter excludes it: it advertises no service UUID.
    @Test func aServiceFilteredScanExcludesTheBeacon() throws {
        let (r, _) = try script("{\"scan\": {\"services\": [\"180D\"], \"address\": \"\(Self.beacon)\", \"timeout\": \"5s\"}}")
        #expect(!r.passed)
        #expect(r.checks.first?.message == "nothing matching the scan was found within 5 s")
        let (found, _) = try script("{\"scan\": {\"services\": [\"180D\"], \"timeout\": \"5s\"}}")
        #expect(found.checks.first?.message.hasPrefix("found Pulse HRM (C4:7A:3B:12:9E:51)") == true)
    }

    /// Connecting to it never completes (as on iOS): the attempt is still pending when the
    /// connect step's timeout cancels it, and no link was ever made.
    @Test func connectingToTheBeaconNeverCompletes() throws {
        let (r, world) = try script("""
            {"scan": {"address": "\(Self.beacon)", "timeout": "5s"}}, {"connect": {"timeout": "20s"}}
            """)
        #expect(!r.passed)
        #expect(r.checks.last?.message == "no connection within 20 s")
        #expect(r.events.contains { $0.hasSuffix("\(Self.beacon) advertises non-connectable: the connection attempt will never complete") })
        #expect(world.host.allLinks.isEmpty)
        // LE Create Connection, then (at the timeout) LE Create Connection Cancel and LE Connection Complete 0x02.
        #expect(world.trace.records.contains { $0.kind == .command && $0.payload.prefix(2) == [0x0D, 0x20] })
        #expect(world.trace.records.contains { $0.kind == .event && $0.payload.count > 4 && $0.payload[0] == 0x3E && $0.payload[2] == 0x01 && $0.payload[3] == 0x02 })
    }
}
