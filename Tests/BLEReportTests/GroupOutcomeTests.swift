import BLEAnalysis
import BLECore
import Foundation
import Testing
@testable import BLEReport

/// The `events_by_*` rows name what each group's own events gave an app. They named the code's
/// most common outcome over the whole folder: beside a sniffer capture whose eight 0x13 endings
/// were the central's own (no error, Android 0 GATT_SUCCESS), the yeelock, whose two 0x13 endings
/// were its own (peer-terminated), was shown with the phone's outcome rather than
/// CBError.peripheralDisconnected and Android 19.
@Suite("an error code's outcome per group")
struct GroupOutcomeTests {
    @Test func aDevicesRowNamesItsOwnOutcome() throws {
        let s = try Support.statistics([Support.shared("android-yeelock.btsnoop"), Support.shared("nrf-sniffer-psoc6-crash.pcapng")])
        let key = EventKey(kind: .disconnect, code: 0x13)
        let fleet = try #require(s.counts[.disconnect]?.first { $0.key == key })
        let yeelock = try #require(s.groups[.device]?.first { $0.key.first == "60:C0:BF:1A:19:75" })
        let own = try #require(yeelock.outcomes[key])
        let n = try #require(yeelock.events[key])
        #expect(own.cbError == "CBError.peripheralDisconnected")
        #expect(own.android(total: n)?.status == 19)
        // The fleet's outcome for the code differs: the row would have been wrong.
        #expect(fleet.cbError != own.cbError)
        // The table shows the row's own.
        let table = ReportTables.long(s, .device)
        let csv = table.csv()
        let line = try #require(csv.split(separator: "\n").first { $0.hasPrefix("60:C0:BF:1A:19:75,") && $0.contains(",disconnect,19,0x13,") })
        #expect(line.contains(",CBError.peripheralDisconnected,19,GATT_CONN_TERMINATE_PEER_USER,"))
    }

    /// by_capture and by_phone count every capture: sniffle-adv-only.pcapng (advertising, no
    /// connection, no error) had no row, so their captures added up to one less than the report's.
    @Test func aCaptureWithNothingToCountStillHasItsRow() throws {
        let s = try Support.statistics([Support.shared("sniffle-adv-only.pcapng"), Support.shared("android-yeelock.btsnoop")])
        let byCapture = try #require(s.groups[.capture])
        #expect(byCapture.count == 2)
        #expect(byCapture.contains { $0.key.first?.hasSuffix("sniffle-adv-only.pcapng") == true && $0.attempts == 0 && $0.events.isEmpty })
        #expect(try #require(s.groups[.phone]).reduce(0) { $0 + $1.captures } == 2)
    }
}
