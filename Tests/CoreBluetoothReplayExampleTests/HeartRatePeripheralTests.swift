import BLEReplay
import CoreBluetoothReplay
import Foundation
import Testing

/// Examples/HeartRatePeripheral against Captures/heart-rate-peripheral.btsnoop, in which the
/// phone was the heart-rate sensor (LE Connection Complete role 0x01). Known answers are the
/// recording's (Scripts/make_sample_captures.py `heart_rate_peripheral`, `tshark -r`): the
/// collector connects at 1.000 s, reads Body Sensor Location (0x000F, frame 34) at 1.420 s and
/// gets 01 (frame 35), subscribes through CCCD 0x000D at 1.480 s, writes 01 to the control point
/// (0x0011) at 6.440 s; the link is lost: silent from 21.060 s, Disconnection Complete 0x08 at
/// 25.060 s (supervision timeout 4 s); it reconnects at 26.560 s, subscribes at 26.980 s and
/// disconnects (0x13) at 37.440 s.
@Suite struct HeartRatePeripheralTests {
    static func run(_ seconds: TimeInterval = 40) throws -> (CBReplay, HeartRatePeripheral) {
        let replay = try CBReplay(capture: Samples.capture("heart-rate-peripheral.btsnoop"))
        let clock = replay.clock!
        let app = replay.activate { HeartRatePeripheral(now: { clock.now }) }
        replay.run(for: seconds)
        return (replay, app)
    }

    static func near(_ a: TimeInterval, _ b: TimeInterval) -> Bool { abs(a - b) < 0.0005 }

    @Test func delegateCallsArriveInOrderAtTheRecordedInstants() throws {
        let (_, app) = try Self.run()
        let calls = app.events.filter {
            switch $0 {
            case .sent, .queueFull, .ready: false
            default: true
            }
        }
        let collector = try #require(calls.compactMap { e -> UUID? in if case .subscribed(_, let c) = e { c } else { nil } }.first)
        let expected: [HeartRatePeripheral.Event] = [
            .stateChanged(at: 0, poweredOn: true), .serviceAdded(at: 0, failed: false), .advertising(at: 0, failed: false),
            .read(at: 1.420, characteristic: "2A38", offset: 0),
            .subscribed(at: 1.480, central: collector),
            .wrote(at: 6.440, characteristic: "2A39", value: Data([0x01])),
            .unsubscribed(at: 25.060, central: collector),      // the link loss: 0x08
            .subscribed(at: 26.980, central: collector),        // the reconnect
            .unsubscribed(at: 37.440, central: collector),      // the collector's own disconnect
        ]
        #expect(calls.count == expected.count)
        for (got, want) in zip(calls, expected) {
            #expect(Self.same(got, want), "\(got) != \(want)")
        }
    }

    /// Events equal up to half a millisecond of time.
    static func same(_ a: HeartRatePeripheral.Event, _ b: HeartRatePeripheral.Event) -> Bool {
        switch (a, b) {
        case (.stateChanged(let t, let x), .stateChanged(let u, let y)): near(t, u) && x == y
        case (.serviceAdded(let t, let x), .serviceAdded(let u, let y)): near(t, u) && x == y
        case (.advertising(let t, let x), .advertising(let u, let y)): near(t, u) && x == y
        case (.read(let t, let c, let o), .read(let u, let d, let p)): near(t, u) && c == d && o == p
        case (.wrote(let t, let c, let v), .wrote(let u, let d, let w)): near(t, u) && c == d && v == w
        case (.subscribed(let t, let c), .subscribed(let u, let d)): near(t, u) && c == d
        case (.unsubscribed(let t, let c), .unsubscribed(let u, let d)): near(t, u) && c == d
        default: false
        }
    }

    @Test func theAppsAnswersMatchTheRecordedServer() throws {
        let (replay, app) = try Self.run()
        let driver = replay.localServerDriver
        #expect(driver.servers.count == 2)
        #expect(driver.divergences.isEmpty, "\(driver.divergences)")
        // Link 1: MTU, 2 x Read By Group Type, 2 x Read By Type, Find Information, the 2A38 read,
        // the CCCD write, the control-point write; link 2 the same without the 2A38 read and the
        // control point.
        #expect(driver.servers.map(\.compared) == [9, 7])
        #expect(driver.servers.allSatisfy { $0.unrecorded == 0 && $0.timeouts == 0 })
        #expect(app.energyResets == 1)
    }

    @Test func notificationsArePacedByFalseReturnsAndIsReady() throws {
        let (_, app) = try Self.run()
        let ev = app.events
        // Before the loss: one measurement a second, each sent at once (the queue has room).
        let firstLink = ev.filter { if case .sent(let t, _) = $0 { t < 25.06 } else { false } }
        #expect(firstLink.count >= 20)
        #expect(!ev.contains { if case .queueFull(let t) = $0 { t < 25.06 } else { false } })
        // The resubscription gets the last 30 s at once: more than the controller's 8 LE ACL
        // buffers (LE Read Buffer Size in the capture) hold, so updateValue returns false, and the
        // rest goes out after each peripheralManagerIsReady, at the link's connection events.
        let burst = ev.drop { if case .subscribed(let t, _) = $0 { !Self.near(t, 26.98) } else { true } }
        let full = burst.filter { if case .queueFull = $0 { true } else { false } }
        let ready = burst.compactMap { e -> TimeInterval? in if case .ready(let t) = e { t } else { nil } }
        #expect(ready.count >= 3)
        // After a false return nothing goes out until isReady (the app's 1 Hz timer may find the
        // queue still full and get false again), and isReady comes once per wait, never unasked.
        var owed = false
        for e in burst {
            switch e {
            case .queueFull: owed = true
            case .ready: #expect(owed); owed = false
            case .sent: #expect(!owed)
            default: break
            }
        }
        #expect(!owed)
        #expect(full.count >= ready.count)
        // isReady comes when the controller returns buffers: at a connection event of the link
        // that came up at 26.560 s (interval 24 x 1.25 ms = 30 ms).
        for t in ready {
            let k = ((t - 26.56) / 0.03).rounded()
            #expect(abs(t - (26.56 + k * 0.03)) < 0.0005, "isReady at \(t)")
        }
        // Nothing is lost: after the reconnect the collector gets the 26 stored measurements (one a
        // second since 1 s),
        // then the live ones.
        let resumed = burst.compactMap { e -> UInt8? in if case .sent(_, let b) = e { b } else { nil } }
        #expect(resumed.count >= 26 + 10)
    }

    /// `--inject` against the app's server: the collector goes silent after the app's 5th
    /// notification (1.48 s: the history, then one a second: the 5th at 5.000 s), so its
    /// control-point write (6.44 s) never comes and the app hears the loss one supervision
    /// timeout (4 s) later; the recorded reconnect still follows, and the fault (counted per
    /// link) fires there too: the 5th notification is in the history burst, which the app sends
    /// from didSubscribeTo (26.98 s) and which follows the CCCD write's Write Response, at its
    /// recorded instant (26.995 s, frame 110): the loss 4 s later.
    @Test func injectedFaultsApplyToTheRecordedCentral() throws {
        var c = ReplayConfiguration()
        c.faults = [try FaultSpec(parsing: "disconnect:0x08@after=handle-value-notification:0x000C#5")]
        let replay = try CBReplay(capture: Samples.capture("heart-rate-peripheral.btsnoop"), configuration: c)
        let clock = replay.clock!
        let app = replay.activate { HeartRatePeripheral(now: { clock.now }) }
        replay.run(for: 40)
        #expect(replay.world.firedFaults.count == 2 && replay.world.unfiredFaults.isEmpty)
        let unsubscribed = app.events.compactMap { e -> TimeInterval? in if case .unsubscribed(let t, _) = e { t } else { nil } }
        #expect(unsubscribed.count == 2)
        #expect(unsubscribed.count == 2 && Self.near(unsubscribed[0], 9.0) && Self.near(unsubscribed[1], 30.995), "\(unsubscribed)")
        #expect(!app.events.contains { if case .wrote = $0 { true } else { false } })
        #expect(app.events.contains { if case .subscribed(let t, _) = $0 { Self.near(t, 26.98) } else { false } })
    }

    @Test func aDifferentAnswerIsADivergenceNamingThePackets() throws {
        let replay = try CBReplay(capture: Samples.capture("heart-rate-peripheral.btsnoop"))
        let app = replay.activate { WristSensor() }
        replay.run(for: 10)
        let first = try #require(replay.localServerDriver.divergences.first)
        #expect(first.requestPacketID == 34 && first.recordedPacketID == 35)
        #expect(first.recorded == [0x0B, 0x01] && first.answered == [0x0B, 0x02])
        #expect(first.description == "packet 34 Read Request to 0x000F: recorded Read Response 01 (packet 35), the app answered Read Response 02")
        #expect(app.manager.isAdvertising)
    }
}

/// A sensor that says it is worn on the wrist (Body Sensor Location 0x02) where the recorded
/// one said chest.
final class WristSensor: NSObject, CBPeripheralManagerDelegate {
    var manager: CBPeripheralManager!
    let location = CBMutableCharacteristic(type: CBUUID(string: "2A38"), properties: [.read], value: nil, permissions: [.readable])

    override init() {
        super.init()
        manager = CBPeripheralManager(delegate: self, queue: nil)
    }

    func peripheralManagerDidUpdateState(_ peripheral: CBPeripheralManager) {
        let service = CBMutableService(type: CBUUID(string: "180D"), primary: true)
        service.characteristics = [
            CBMutableCharacteristic(type: CBUUID(string: "2A37"), properties: [.notify], value: nil, permissions: []),
            location,
            CBMutableCharacteristic(type: CBUUID(string: "2A39"), properties: [.write], value: nil, permissions: [.writeable]),
        ]
        peripheral.add(service)
        peripheral.startAdvertising([CBAdvertisementDataServiceUUIDsKey: [CBUUID(string: "180D")]])
    }

    func peripheralManager(_ peripheral: CBPeripheralManager, didReceiveRead request: CBATTRequest) {
        request.value = Data([0x02])
        peripheral.respond(to: request, withResult: .success)
    }

    func peripheralManager(_ peripheral: CBPeripheralManager, didReceiveWrite requests: [CBATTRequest]) {
        peripheral.respond(to: requests[0], withResult: .success)
    }
}
