import Testing
@testable import BLEReplay

@Suite struct ReplayPlaceholderTests {
    @Test func moduleLinks() { _ = ReplayModule.self }
}
