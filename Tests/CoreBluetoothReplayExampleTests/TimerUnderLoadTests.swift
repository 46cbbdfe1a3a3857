import CoreBluetoothReplay
import Dispatch
import Foundation
import Testing

/// Determinism of the app's `asyncAfter` timers when the machine is slow (Docs/replay.md "Your
/// own timers"): real time the app's code spends before its `.now()` does not move the timer.
/// In this Swift 5 target, as an app written the iOS way schedules on `DispatchQueue.main`.
@Suite struct TimerUnderLoadTests {
    final class App: NSObject, CBCentralManagerDelegate {
        let stall: TimeInterval
        let delay: TimeInterval
        let clock: CBReplayClock
        var central: CBCentralManager!
        var fired: [TimeInterval] = []
        var started: TimeInterval?

        init(replay: CBReplay, stall: TimeInterval, delay: TimeInterval) {
            self.stall = stall
            self.delay = delay
            clock = replay.clock
            super.init()
            central = replay.activate { CBCentralManager(delegate: self, queue: nil) }
        }
        func centralManagerDidUpdateState(_ central: CBCentralManager) {
            guard central.state == .poweredOn else { return }
            started = clock.now
            // The machine is busy: real time passes before the app reads `.now()`.
            let until = Date().addingTimeInterval(stall)
            while Date() < until {}
            DispatchQueue.main.asyncAfter(deadline: .now() + delay) { [self] in fired.append(clock.now) }
        }
    }

    @Test(arguments: [(0.0, 7.5), (0.004, 7.5), (0.012, 7.5), (0.004, 0.25), (0.012, 16.0), (0.003, 1.0)])
    func aStallBeforeNowDoesNotMoveTheTimer(stall: TimeInterval, delay: TimeInterval) throws {
        let replay = try CBReplay(capture: Samples.capture("heart-rate-healthy.btsnoop"))
        let app = App(replay: replay, stall: stall, delay: delay)
        replay.run(for: 20)
        let start = try #require(app.started)
        #expect(app.fired.count == 1)
        #expect(abs((app.fired.first ?? -1) - start - delay) < 1e-9)
    }
}
