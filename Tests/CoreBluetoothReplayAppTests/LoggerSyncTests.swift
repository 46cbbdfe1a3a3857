import CoreBluetoothReplay
import Foundation
import Testing

/// The logger sync against Captures/att-timeout.btsnoop (Acme Logger: control point 7A3E0002 at
/// 0x000E [write, indicate], status 7A3E0003 at 0x0012 [read, notify]; the recorded central wrote
/// 01 to 0x000E (answered, then a status notification 01 01 00 00), then 07 00 10, which the logger
/// never answered). The app's own five-second command timeout fires first and it cancels the link.
@Suite struct LoggerSyncTests {
    @Test func anUnansweredCommandIsGivenUpWithCancelPeripheralConnection() throws {
        let replay = try CBReplay(capture: CapturePaths.sample("att-timeout.btsnoop"))
        let app = replay.activate { LoggerSync(now: { replay.clock.now }) }
        replay.run(for: 60)
        let lines = app.log.map { String($0.split(separator: " ", maxSplits: 1)[1]) }
        // Indications on the control point, notifications on the status, each confirmed once.
        #expect(Array(lines.prefix(3)) == ["connected", "indications 7A3E0002 true", "notifications 7A3E0003 true"])
        #expect(app.statusValues == [Data([0x01, 0x01, 0x00, 0x00])])
        #expect(app.commandsAnswered == 1)
        // The second command is never answered: the app's asyncAfter timeout fires exactly 5 s after
        // it was sent, in virtual time, and the app cancels the connection.
        let times = app.log.map { Double($0.split(separator: " ")[0])! }
        let sent = try #require(lines.lastIndex(of: "command sent"))
        let gaveUp = try #require(lines.firstIndex(of: "command timed out"))
        #expect(abs(times[gaveUp] - times[sent] - 5) < 1e-9)
        // .disconnecting at once; the write left outstanding gets no callback of its own; a read made
        // after the cancel is dropped as iOS drops it (API MISUSE in the log, no callback); then
        // didDisconnectPeripheral with no error (the app ended it), before any 30 s ATT timeout.
        #expect(app.stateAfterCancel == .disconnecting)
        #expect(!app.readAfterCancelAnswered)
        #expect(lines[gaveUp + 1] == "disconnected by us state 0")
        #expect(times[gaveUp + 1] - times[gaveUp] < 0.1)
        #expect(lines.count == gaveUp + 2)
        #expect(replay.diagnostics.map(\.kind) == [.apiMisuse])
        #expect(app.logger?.state == .disconnected)
    }
}
