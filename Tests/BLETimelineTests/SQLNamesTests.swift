import Testing
import BLECore
import BLEDecode
@testable import BLETimeline

/// The writer binds direction, kind and layer as `StaticString`s; they must spell exactly the
/// enums' raw values, which the `packets` view documents.
@Suite struct SQLNamesTests {
    @Test func staticNamesAreTheRawValues() {
        for d in [Direction.sent, .received, .unknown] { #expect(d.sqlName.description == d.rawValue) }
        for k in PacketKind.allCases { #expect(k.sqlName.description == k.rawValue) }
        for l in PacketLayer.allCases { #expect(l.sqlName.description == l.rawValue) }
    }
}
