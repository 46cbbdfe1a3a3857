import CoreBluetoothReplay
import Foundation
import Testing

/// The own-queue client on heart-rate-healthy: every callback on its queue, a semaphore wait for
/// work sent to a global queue that completes (it deadlocked before), values shown on the main
/// queue. Battery Level 5C = 92 %, Manufacturer Name "Acme Sensors" (Captures/README.md).
@Suite struct QueueCentralTests {
    @Test func callbacksOnItsQueueAndAWaitForGlobalWorkCompletes() throws {
        let replay = try CBReplay(capture: CapturePaths.sample("heart-rate-healthy.btsnoop"))
        let app = replay.activate { QueueCentral(now: { replay.clock.now }) }
        replay.run(for: 20)
        #expect(app.offQueueCallbacks == 0)
        #expect(app.log.first?.hasSuffix("state 5") == true)
        #expect(app.log.contains { $0.hasSuffix("read 2A19 battery 92%") })
        #expect(app.log.contains { $0.hasSuffix("read 2A29 Acme Sensors") })
        #expect(app.shown.contains("battery 92%"))
        #expect(app.shown.contains("HRM-200"))
        #expect(replay.diagnostics.isEmpty)
    }
}
