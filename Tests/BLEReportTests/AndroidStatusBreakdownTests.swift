import BLEAnalysis
import Foundation
import Testing
@testable import BLEReport

/// A code whose events gave an Android status on some and none on others is reported with both
/// (Docs/android.md: a host cancel other than Android's own 30 s connect timeout gives the app
/// nothing). The report gave every cancelled attempt of a folder 133 GATT_ERROR because one had it.
/// android-lock-pairing.btsnoop holds 5 LE Create Connection Cancels; the one 30 s after its
/// create (packet 295) is Android's timeout, which an app hears as 133 GATT_ERROR.
@Suite("Android statuses of a code, some events without one")
struct AndroidStatusBreakdownTests {
    @Test func cancelsWithoutAStatusAreCountedAsSuch() throws {
        let s = try Support.statistics([Support.shared("android-lock-pairing.btsnoop")])
        let cancels = try #require(s.counts[.connectionCancelled]?.first { $0.key.code == 0x02 })
        #expect(cancels.count == 5)
        #expect(cancels.androids.map { $0.android.status } == [133] && cancels.androids.first?.count == 1)
        #expect(cancels.androidNone == 4)
        // Most of them gave an app nothing: no single status stands for the code.
        #expect(cancels.android == nil)
        #expect(cancels.androidBreakdown == "133 GATT_ERROR ×1, none ×4")
        // A code whose events all got a status keeps its one status, no "none".
        let timeouts = try #require(s.counts[.disconnect]?.first { $0.key.code == 0x08 } ?? s.counts[.disconnect]?.first)
        #expect(timeouts.androidNone == 0)
    }
}
