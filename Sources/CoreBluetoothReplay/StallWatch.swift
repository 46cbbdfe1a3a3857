import BLECore
import Foundation
import Synchronization

/// Ends a replay whose thread the app blocked for good, instead of letting the test job hang.
///
/// Every delegate callback and virtual timer runs on the thread running `CBReplay.run`. An app
/// that waits there (`DispatchSemaphore.wait()`, `DispatchGroup.wait()`) for a delegate callback
/// or a timer waits for work only that same thread can run: it never returns. On iOS the callback
/// arrives on the manager's queue while another queue waits. One process-wide watcher thread looks
/// at every running replay twice a second; when one has run no event for `CBReplay.stallTimeout`
/// seconds of wall-clock time, it prints what happened and stops the process (a trap), so the CI
/// job fails with the reason. The wall clock only decides when to give up on a blocked thread;
/// it never changes what the replay does.
final class StallWatch: Sendable {
    /// Events started so far (the watcher compares readings).
    private let progress = Atomic<Int>(0)
    private let running = Atomic<Bool>(false)
    private let virtualTime = Atomic<Int64>(0)
    private let timeoutMilliseconds = Atomic<Int>(30_000)

    var isRunning: Bool { running.load(ordering: .acquiring) }
    var virtualMicroseconds: Int64 { virtualTime.load(ordering: .relaxed) }

    /// An event is about to run at `time` (virtual µs).
    func tick(at time: Int64) {
        virtualTime.store(time, ordering: .relaxed)
        progress.add(1, ordering: .relaxed)
    }

    func begin(timeout: TimeInterval) {
        timeoutMilliseconds.store(Int((timeout * 1000).rounded()), ordering: .relaxed)
        running.store(true, ordering: .releasing)
        if timeout > 0 { Self.watcher.watch(self) }
    }

    func end() {
        running.store(false, ordering: .releasing)
        Self.watcher.unwatch(self)
    }

    fileprivate var reading: (progress: Int, timeout: Int) {
        (progress.load(ordering: .relaxed), timeoutMilliseconds.load(ordering: .relaxed))
    }

    static let watcher = Watcher()

    /// The one thread that looks at the running replays.
    final class Watcher: Sendable {
        private struct Watched {
            let watch: StallWatch
            var progress: Int
            var since: ContinuousClock.Instant
        }
        private let watched = Mutex<(list: [ObjectIdentifier: Watched], started: Bool)>(([:], false))

        func watch(_ w: StallWatch) {
            let start = watched.withLock { s -> Bool in
                s.list[ObjectIdentifier(w)] = Watched(watch: w, progress: w.reading.progress, since: .now)
                defer { s.started = true }
                return !s.started
            }
            if start {
                let t = Thread { [self] in loop() }
                t.name = "CoreBluetoothReplay stall watch"
                t.start()
            }
        }

        func unwatch(_ w: StallWatch) {
            _ = watched.withLock { $0.list.removeValue(forKey: ObjectIdentifier(w)) }
        }

        private func loop() {
            while true {
                Thread.sleep(forTimeInterval: 0.5)
                let now = ContinuousClock.now
                let stalled = watched.withLock { s -> (StallWatch, Duration)? in
                    for (id, var w) in s.list {
                        let r = w.watch.reading
                        if r.progress != w.progress {
                            w.progress = r.progress
                            w.since = now
                            s.list[id] = w
                        } else if now - w.since >= .milliseconds(r.timeout) {
                            return (w.watch, now - w.since)
                        }
                    }
                    return nil
                }
                if let (w, waited) = stalled { Self.stop(w, waited: waited) }
            }
        }

        private static func stop(_ w: StallWatch, waited: Duration) -> Never {
            let t = String(format: "%.6f", Double(w.virtualMicroseconds) / 1_000_000)
            let message = "CoreBluetoothReplay: the app's code for the event at t+\(t) s (replay) has not returned after " +
                "\(waited.components.seconds) s of wall-clock time: it blocks the thread running the replay, most likely " +
                "waiting (DispatchSemaphore.wait, DispatchGroup.wait, a lock) for a delegate callback or a timer, which only " +
                "that thread can deliver, so the wait never ends (on iOS the callback comes on the manager's queue while " +
                "another queue waits). Stopping instead of hanging (CBReplay.stallTimeout; Docs/replay.md \"The runtime model\")."
            StandardStreams.error(message)
            fatalError(message)
        }
    }
}
