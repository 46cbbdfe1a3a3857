import CoreBluetoothReplay
import Foundation
import Testing

/// HeartRateMonitorService against Captures/heart-rate-peripheral.btsnoop (the phone was the
/// heart-rate sensor; HeartRatePeripheralTests lists what the recording holds): the collector
/// reads 2A38 at 1.420 s, subscribes at 1.480 s, writes the control point at 6.440 s, loses the
/// link (0x08 at 25.060 s), reconnects, subscribes at 26.980 s and disconnects at 37.440 s.
@Suite struct HeartRateMonitorServiceTests {
    static func run(burst: Int = 1) throws -> (CBReplay, HeartRateMonitorService) {
        let replay = try CBReplay(capture: CapturePaths.sample("heart-rate-peripheral.btsnoop"))
        let clock = replay.clock!
        let app = replay.activate { () -> HeartRateMonitorService in
            let s = HeartRateMonitorService(clock: { clock.now })
            s.burst = burst
            return s
        }
        replay.run(for: 40)
        return (replay, app)
    }

    /// The log prints UUIDs as apps do (`"\(uuid)"`): CBUUID's description names the ones Apple
    /// names ("Heart Rate"), as on iOS.
    @Test func theServiceAnswersAsTheRecordedPhoneDid() throws {
        let (replay, app) = try Self.run()
        #expect(replay.localServerDriver.divergences.isEmpty, "\(replay.localServerDriver.divergences)")
        let calls = app.log.filter { !$0.contains("ready") && !$0.contains("queue full") }
        #expect(calls == [
            "0.0000 poweredOn", "0.0000 didAdd Heart Rate", "0.0000 advertising",
            "1.4200 read Body Sensor Location offset 0",
            "1.4800 subscribed Heart Rate Measurement max 182",
            "6.4400 write Heart Rate Control Point 01",
            "25.0600 unsubscribed Heart Rate Measurement",
            "26.9800 subscribed Heart Rate Measurement max 182",
            "37.4400 unsubscribed Heart Rate Measurement",
        ], "\(calls)")
        #expect(app.energyExpended < 40)
    }

    /// Five measurements a second fill the transmit queue (8 LE ACL buffers): updateValue
    /// returns false, the app keeps the rest, and peripheralManagerIsReady comes when buffers
    /// return; every measurement goes out once and in order.
    @Test func aFullQueueIsDrainedFromIsReady() throws {
        let (replay, app) = try Self.run(burst: 12)
        #expect(replay.localServerDriver.divergences.isEmpty, "\(replay.localServerDriver.divergences)")
        let full = app.log.filter { $0.contains("queue full") }
        let ready = app.log.filter { $0.hasSuffix(" ready") }
        #expect(!full.isEmpty)
        #expect(ready.count == full.count, "\(app.log)")
        let counters = app.sent.map { UInt16($0[2]) | UInt16($0[3]) << 8 }
        #expect(zip(counters, counters.dropFirst()).allSatisfy { $0 < $1 || $1 == 1 }, "\(counters)")
    }

    @Test func theSameRunTwiceGivesTheSameLog() throws {
        let (_, a) = try Self.run(burst: 12)
        let (_, b) = try Self.run(burst: 12)
        #expect(a.log == b.log)
    }
}

/// The same app on the real captures (../shared/captures), none of which recorded the local
/// device as an LE peripheral: no recorded central comes to the app, which advertises and
/// measures undisturbed; the replay neither traps nor invents a central.
@Suite struct HeartRateMonitorServiceOnRealCapturesTests {
    @Test(arguments: ["ios-glasses.pklg", "android-yeelock.btsnoop", "android-lock-pairing.btsnoop", "smartwatch-h4-phdr.pcapng"])
    func noRecordedCentralComesToTheApp(_ name: String) throws {
        let replay = try CBReplay(capture: CapturePaths.real(name))
        let clock = replay.clock!
        let app = replay.activate { HeartRateMonitorService(clock: { clock.now }) }
        replay.run(for: 30)
        #expect(replay.localServerDriver.servers.isEmpty)
        #expect(replay.localServerDriver.divergences.isEmpty)
        #expect(app.manager.isAdvertising)
        #expect(app.log.prefix(3).map { String($0.split(separator: " ", maxSplits: 1)[1]) } == ["poweredOn", "didAdd Heart Rate", "advertising"])
        #expect(app.sent.isEmpty)
    }
}
