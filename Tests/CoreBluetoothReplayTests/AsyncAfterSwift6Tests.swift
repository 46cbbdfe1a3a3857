import CoreBluetoothReplay
import Dispatch
import Foundation
import Synchronization
import Testing

/// In Swift 6 language mode too, an app's `DispatchQueue.asyncAfter(deadline:execute:)` resolves
/// to CoreBluetoothReplay's overload and runs on the virtual clock (this target is Swift 6; the
/// examples target checks Swift 5 mode, where apps usually are). Swift 6 makes a closure given to
/// `DispatchQueue.main` main-actor isolated and checks that at run time, so the replay is driven
/// from the main actor, as a Swift 6 app's test must do (Docs/replay.md, "Your own timers").
@Suite struct AsyncAfterSwift6Tests {
    final class Fired: Sendable {
        let at = Mutex<Int?>(nil)
    }

    @MainActor @Test func aSendableClosureRunsOnTheVirtualClock() throws {
        let replay = try CBReplay(capture: Samples.capture("heart-rate-healthy.btsnoop"))
        let fired = Fired()
        var scheduledAt: TimeInterval?
        replay.run(for: 1)
        replay.world.scheduler.schedule(after: 0) {
            scheduledAt = replay.clock.now
            DispatchQueue.main.asyncAfter(deadline: .now() + 2.5) { fired.at.withLock { $0 = 1 } }
        }
        replay.run(for: 2.499)
        #expect(fired.at.withLock { $0 } == nil)
        replay.run(for: 0.002)
        #expect(fired.at.withLock { $0 } == 1)
        #expect(scheduledAt == 1)
    }
}
