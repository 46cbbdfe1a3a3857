import CoreBluetoothReplay
import Dispatch
import Foundation
import Testing

/// How app timing that is not plain `asyncAfter(deadline:execute:)` fares (Docs/replay.md "The
/// runtime model"): `qos:` or `flags:` forms run in virtual time; what runs on the wall clock
/// (work items, Foundation timers, calls from other threads) is listed in `replay.diagnostics`;
/// a callback that blocks the replay's thread for good stops the process with the reason.
@Suite struct RuntimeChecksTests {
    /// An app whose only behaviour is `onState`, run inside its first callback.
    final class StateApp: NSObject, CBCentralManagerDelegate {
        var central: CBCentralManager!
        let onState: (CBCentralManager) -> Void
        init(_ onState: @escaping (CBCentralManager) -> Void) {
            self.onState = onState
            super.init()
            central = CBCentralManager(delegate: self, queue: nil)
        }
        func centralManagerDidUpdateState(_ central: CBCentralManager) { onState(central) }
    }

    static func replay() throws -> CBReplay { try CBReplay(capture: CapturePaths.sample("heart-rate-healthy.btsnoop")) }

    @Test func qosAndFlagsTimersRunInVirtualTime() throws {
        let replay = try Self.replay()
        var fired: [String] = []
        let app = replay.activate {
            StateApp { _ in
                DispatchQueue.main.asyncAfter(deadline: .now() + 2, qos: .userInitiated) { fired.append("qos \(replay.clock.now)") }
                DispatchQueue.global().asyncAfter(deadline: .now() + 3, flags: .barrier) { fired.append("flags \(replay.clock.now)") }
                DispatchQueue.main.async(qos: .background) { fired.append("async qos \(replay.clock.now)") }
            }
        }
        replay.run(for: 5)
        _ = app
        #expect(fired == ["async qos 0.0", "qos 2.0", "flags 3.0"])
        #expect(replay.diagnostics.isEmpty)
    }

    @Test func aWorkItemIsReportedAsWallClock() throws {
        let replay = try Self.replay()
        let app = replay.activate {
            StateApp { _ in
                let timeout = DispatchWorkItem { }
                DispatchQueue.main.asyncAfter(deadline: .now() + 3600, execute: timeout)
                timeout.cancel()
            }
        }
        replay.run(for: 1)
        _ = app
        #expect(replay.diagnostics.map(\.kind) == [.dispatchWorkItem])
        #expect(replay.diagnostics.first?.time == 0)
    }

    /// An RSSI poll written with a GCD timer source (`DispatchSource.makeTimerSource(queue:)`, as
    /// many iOS apps poll): Dispatch runs it on the wall clock, so during `run(for:)` it does not
    /// tick in virtual time. It used to be silent; it is reported, once, where it is created.
    @Test(arguments: [false, true]) func aDispatchTimerSourceIsReportedAsWallClock(mainQueue: Bool) throws {
        let replay = try Self.replay()
        var timer: DispatchSourceTimer?
        let app = replay.activate {
            StateApp { _ in
                let t = mainQueue ? DispatchSource.makeTimerSource(queue: .main) : DispatchSource.makeTimerSource()
                t.schedule(deadline: .now() + 3600, repeating: 3600)
                t.setEventHandler {}
                t.resume()
                timer = t
            }
        }
        replay.run(for: 1)
        timer?.cancel()
        _ = app
        #expect(replay.diagnostics.map(\.kind) == [.dispatchSourceTimer])
        #expect(replay.diagnostics.first?.message.contains("wall clock") == true)
    }

    @Test func aFoundationTimerLeftOnTheRunLoopIsReported() throws {
        let replay = try Self.replay()
        var timer: Timer?
        var fired = false
        let app = replay.activate {
            StateApp { _ in timer = Timer.scheduledTimer(withTimeInterval: 1, repeats: false) { _ in fired = true } }
        }
        replay.run(for: 5)
        timer?.invalidate()
        _ = app
        #expect(!fired)
        #expect(replay.diagnostics.map(\.kind) == [.foundationTimer])
    }

    /// A call from another thread while the replay runs (here a real thread the callback starts and
    /// joins, standing for a Task after Task.sleep) is dropped and reported.
    @Test func aCallFromAnotherThreadIsDroppedAndReported() throws {
        let replay = try Self.replay()
        let app = replay.activate {
            StateApp { central in
                let joined = DispatchSemaphore(value: 0)
                Thread { central.scanForPeripherals(withServices: nil, options: nil); joined.signal() }.start()
                joined.wait()
            }
        }
        replay.run(for: 2)
        #expect(!app.central.isScanning)
        #expect(replay.diagnostics.map(\.kind) == [.callFromAnotherThread])
        #expect(replay.diagnostics.first?.message.hasPrefix("scanForPeripherals(withServices:options:) was called from a thread") == true)
    }

    /// Outside `run`, test code may call the API from any thread, as before.
    @Test func callsBetweenRunsAreNotReported() throws {
        let replay = try Self.replay()
        let app = replay.activate { StateApp { _ in } }
        replay.run(for: 1)
        app.central.scanForPeripherals(withServices: nil, options: nil)
        #expect(app.central.isScanning)
        #expect(replay.diagnostics.isEmpty)
    }

    /// Waiting in a callback for something only the replay's thread can deliver never ends; the
    /// replay stops the process with the reason instead of hanging the CI job.
    @Test func aCallbackThatBlocksForGoodStopsTheProcess() async {
        await #expect(processExitsWith: .failure) {
            let replay = try CBReplay(capture: CapturePaths.sample("heart-rate-healthy.btsnoop"))
            replay.stallTimeout = 1
            let app = replay.activate {
                StateApp { _ in
                    let done = DispatchSemaphore(value: 0)
                    DispatchQueue.main.asyncAfter(deadline: .now() + 1) { done.signal() }
                    done.wait()
                }
            }
            replay.run(for: 5)
            _ = app
        }
    }
}
