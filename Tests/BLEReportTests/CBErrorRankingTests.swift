import BLEAnalysis
import Testing
@testable import BLEReport

/// A code's `cb_error` is the CoreBluetooth outcome most of its events had. On a tie between a
/// central app's `CBError.connectionTimeout` and a link where the phone was the peripheral
/// (`PeripheralManagerView.reportLabel`: no callback at all), the report named the sentence,
/// because it broke ties by name backwards; it now names what an app is given.
@Suite("which CoreBluetooth outcome stands for a code")
struct CBErrorRankingTests {
    typealias C = CodeCount.CBCount

    @Test func onATieAnErrorAnAppIsGivenComesFirst() {
        let ranked = C.ranked([C(cbError: PeripheralManagerView.reportLabel, count: 1), C(cbError: "CBError.connectionTimeout", count: 1)])
        #expect(ranked.map(\.cbError) == ["CBError.connectionTimeout", PeripheralManagerView.reportLabel])
        let withNone = C.ranked([C(cbError: nil, count: 2), C(cbError: "CBATTError.insufficientAuthentication", count: 2)])
        #expect(withNone.first?.cbError == "CBATTError.insufficientAuthentication")
    }

    @Test func theMostCommonStillWins() {
        let ranked = C.ranked([C(cbError: "CBError.connectionTimeout", count: 1), C(cbError: PeripheralManagerView.reportLabel, count: 3),
                               C(cbError: "CBError.peripheralDisconnected", count: 1)])
        #expect(ranked.map(\.cbError) == [PeripheralManagerView.reportLabel, "CBError.connectionTimeout", "CBError.peripheralDisconnected"])
    }
}
