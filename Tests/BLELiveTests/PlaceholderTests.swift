import Testing
@testable import BLELive

@Suite struct PlaceholderTests {
    @Test func builds() {}
}
