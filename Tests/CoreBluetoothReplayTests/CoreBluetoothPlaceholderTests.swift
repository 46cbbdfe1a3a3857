import Testing
@testable import CoreBluetoothReplay

@Suite struct CoreBluetoothPlaceholderTests {
    @Test func moduleLinks() { _ = CoreBluetoothReplayModule.self }
}
