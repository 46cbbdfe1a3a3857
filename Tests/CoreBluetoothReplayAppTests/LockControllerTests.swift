import BLEReplay
import CoreBluetoothReplay
import Foundation
import Testing

/// The lock controller against ../shared/captures/android-yeelock.btsnoop (a Yeelock,
/// 60:C0:BF:1A:19:75, "EL_B0PUmFAH": vendor service 58AF3DCA-…39 with the status characteristic
/// …3A [indicate] and the command characteristic …3B [write], `blereplay gatt`), with the lock
/// ending every link with 0x13 after it receives the command (`--inject
/// disconnect:0x13@after=write-request:0x0010#1`, counted per link).
@Suite struct LockControllerTests {
    static func run(for seconds: TimeInterval) throws -> (LockController, CBReplay) {
        var c = ReplayConfiguration()
        c.faults = [try FaultSpec(parsing: "disconnect:0x13@after=write-request:0x0010#1")]
        let replay = try CBReplay(capture: CapturePaths.real("android-yeelock.btsnoop"), configuration: c)
        let app = replay.activate { LockController(now: { replay.clock.now }) }
        replay.run(for: seconds)
        return (app, replay)
    }

    @Test func ownQueuePeerDisconnectAndReconnectByIdentifier() throws {
        let (app, replay) = try Self.run(for: 10)
        // Every callback on the lock's own queue.
        #expect(app.offQueue == 0)
        #expect(app.log.first?.hasSuffix("state 5") == true)
        // The service filter in lower-case 128-bit form matches the service, which prints upper-case.
        #expect(app.log.contains { $0.hasSuffix("service 58AF3DCA-6FC0-4FA3-9464-74662F043A39") })
        #expect(!app.log.contains { $0.contains("no lock service") })
        #expect(app.log.contains { $0.hasSuffix("characteristics status true command true") })
        #expect(app.log.contains { $0.hasSuffix("indications true ok") })
        // The lock ends the link (HCI 0x13): CBError.peripheralDisconnected (7) in CBErrorDomain, the
        // peripheral already .disconnected in the callback; the write it cut gets no callback of its own.
        let lost = app.log.filter { $0.contains("disconnected") }
        #expect(lost.count >= 3)
        #expect(lost.allSatisfy { $0.hasSuffix("disconnected CBErrorDomain 7 state 0") })
        #expect(app.disconnectErrors.allSatisfy { ($0 as? CBError)?.code == .peripheralDisconnected && ($0 as? CBError)?.hciReason == 0x13 })
        #expect(!app.log.contains { $0.contains("wrote") })
        // The reconnect timer (asyncAfter on the lock's queue) fires exactly 2 s of virtual time later,
        // and retrievePeripherals(withIdentifiers:) gives back the same CBPeripheral object.
        let times = app.log.compactMap { line -> (Double, String)? in
            let parts = line.split(separator: " ", maxSplits: 1)
            return Double(parts[0]).map { ($0, String(parts[1])) }
        }
        for (i, entry) in times.enumerated() where entry.1.hasPrefix("disconnected") && i + 1 < times.count {
            #expect(times[i + 1].1 == "reconnecting state 0")
            #expect(abs(times[i + 1].0 - entry.0 - 2) < 1e-9)
        }
        #expect(app.retrievedSameObject == true)
        // Connected: retrieveConnectedPeripherals(withServices:) lists it.
        let id = try #require(app.savedIdentifier)
        #expect(!app.connectedList.isEmpty)
        #expect(app.connectedList.allSatisfy { $0 == [id] })
        // The UI heard Apple's text for CBError 7.
        #expect(app.ui.contains("Lost connection: The specified device has disconnected from us."))
        #expect(app.ui.first == "Searching…")
        #expect(replay.diagnostics.isEmpty)
    }

    /// Callbacks on the app's own queue stay in the simulation's order: two runs, one transcript.
    @Test func twoRunsGiveTheSameLog() throws {
        let (a, _) = try Self.run(for: 10)
        let (b, _) = try Self.run(for: 10)
        #expect(a.log == b.log)
        #expect(a.ui == b.ui)
    }
}
