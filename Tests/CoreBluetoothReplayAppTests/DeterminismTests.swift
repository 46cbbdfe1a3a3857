import CoreBluetoothReplay
import Dispatch
import Foundation
import Synchronization
import Testing

/// The four apps, 1,000 replays in all, run concurrently with a CPU hog spinning beside them:
/// every run's transcript (each callback and timer with its virtual time) is byte-identical.
@Suite struct DeterminismTests {
    /// The recordings, loaded once (loading is the same every time; each run builds its own
    /// replay from the loaded session).
    static let linkLoss = try! CBReplay(capture: CapturePaths.sample("heart-rate-supervision-timeout.btsnoop")).session
    static let healthy = try! CBReplay(capture: CapturePaths.sample("heart-rate-healthy.btsnoop")).session

    /// One run of one app, as text.
    static func transcript(_ n: Int) throws -> String {
        switch n % 4 {
        case 0:
            let replay = CBReplay(session: linkLoss)
            let hub = replay.activate { () -> SensorHub in
                let hub = SensorHub(targetName: "Pulse HRM", now: { replay.clock.now })
                hub.start()
                return hub
            }
            replay.run(for: 30)
            return (hub.log + replay.diagnostics.map(\.description)).joined(separator: "\n")
        case 1:
            let replay = CBReplay(session: healthy)
            let app = replay.activate { QueueCentral(now: { replay.clock.now }) }
            replay.run(for: 8)
            return (app.log + app.shown).joined(separator: "\n")
        case 2:
            let replay = CBReplay(session: healthy)
            let client = replay.activate { HeartRateClient() }
            replay.run(for: 8)
            return (client.log + replay.diagnostics.map(\.description)).joined(separator: "\n")
        default:
            let replay = CBReplay(session: healthy)
            let (proxy, screen) = replay.activate { () -> (ForwardingCentral, DeviceScreen) in
                let proxy = ForwardingCentral(name: "Pulse HRM")
                let screen = DeviceScreen()
                proxy.add(screen)
                return (proxy, screen)
            }
            replay.run(for: 8)
            _ = proxy
            return (screen.events + screen.values.keys.sorted().map { "\($0)=\(screen.values[$0]!.map { String($0) })" }).joined(separator: "\n")
        }
    }

    @Test func aThousandRunsUnderLoadGiveTheSameTranscript() throws {
        let expected = try (0..<4).map { try Self.transcript($0) }
        let runs = 1_000
        let mismatches = Mutex<[Int]>([])
        let failures = Mutex<[String]>([])
        let stop = Atomic<Bool>(false)
        let hog = Thread {
            var x: UInt64 = 1
            while !stop.load(ordering: .relaxed) { for _ in 0..<10_000 { x = x &* 6364136223846793005 &+ 1 } }
            if x == 0 { print(x) }
        }
        hog.start()
        defer { stop.store(true, ordering: .relaxed) }
        let started = ContinuousClock.now
        DispatchQueue.concurrentPerform(iterations: runs) { i in
            do {
                if try Self.transcript(i) != expected[i % 4] { mismatches.withLock { $0.append(i) } }
            } catch {
                failures.withLock { $0.append("\(i): \(error)") }
            }
        }
        let elapsed = ContinuousClock.now - started
        #expect(failures.withLock { $0 }.isEmpty)
        #expect(mismatches.withLock { $0 }.isEmpty)
        #expect(expected.allSatisfy { $0.split(separator: "\n").count >= 3 })
        print("DeterminismTests: \(runs) runs in \(elapsed)")
    }
}
