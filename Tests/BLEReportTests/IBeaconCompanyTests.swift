import BLEAnalysis
import BLECore
import BLETimeline
import Foundation
import Testing
import TestSupport

/// A device's company comes from its manufacturer data (Core Supplement Part A 1.4), but an
/// iBeacon frame (company 0x004C, then type 0x02 and length 0x15) is a format any vendor's
/// beacon sends: a smart lock advertising one was headed "Apple, Inc. (0x004C)" in `gatt`.
@Suite("device company and iBeacons")
struct IBeaconCompanyTests {
    @Test func anIBeaconFrameNamesNoMaker() throws {
        var c = SpecCapture()
        let beaconOnly: [UInt8] = [0xD0, 0x00, 0x00, 0x00, 0x00, 0x01]
        let nordicAndBeacon: [UInt8] = [0xC4, 0x7A, 0x3B, 0x12, 0x9E, 0x51]
        // Flags, then Manufacturer Specific Data (0xFF): 4C 00 02 15, a 16-byte UUID, major, minor, power.
        let ibeacon: [UInt8] = [0x02, 0x01, 0x06, 0x1A, 0xFF, 0x4C, 0x00, 0x02, 0x15] + Array(repeating: 0xE2, count: 16) + [0x00, 0x01, 0x00, 0x07, 0xC5]
        // Manufacturer Specific Data of Nordic Semiconductor (0x0059): 59 00 01 02.
        let nordic: [UInt8] = [0x02, 0x01, 0x06, 0x05, 0xFF, 0x59, 0x00, 0x01, 0x02]
        c.advertisingReport(0, eventType: 0x03, address: beaconOnly, ibeacon)
        c.advertisingReport(10, eventType: 0x00, address: nordicAndBeacon, ibeacon)
        c.advertisingReport(20, eventType: 0x00, address: nordicAndBeacon, nordic)
        let (directory, store) = try Support.timeline(of: c)
        defer { Support.remove(directory) }
        let rows = try store.database.rows("SELECT address, company_id, company_name FROM device ORDER BY address")
        #expect(rows.map { $0[0].string ?? "" } == ["C4:7A:3B:12:9E:51", "D0:00:00:00:00:01"])
        #expect(rows.first?[1].int == 0x0059 && rows.first?[2].string == "Nordic Semiconductor ASA")
        #expect(rows.last?[1].int == nil && rows.last?[2].string == nil)
    }
}
