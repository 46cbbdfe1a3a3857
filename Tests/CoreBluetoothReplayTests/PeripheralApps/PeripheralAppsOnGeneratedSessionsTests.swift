import CoreBluetoothReplay
import Foundation
import Testing
import TestSupport

/// The iOS-style peripheral apps against centrals nobody chose: the generator's sessions
/// (`Scripts/blegen/sessions.py`) whose links have the local device as peripheral (role 0x01),
/// with databases, requests and endings the apps were not written for, `blegen.ios`'s iPhone
/// peripheral (ios-peripheral.pklg) and `blegen.dualrole`'s phone that is central and
/// peripheral at once.
@Suite struct PeripheralAppsOnGeneratedSessionsTests {
    static let directory: String = {
        let d = FileManager.default.temporaryDirectory.appendingPathComponent("periph-gen-\(UUID().uuidString)").path
        try? FileManager.default.createDirectory(atPath: d, withIntermediateDirectories: true)
        return d
    }()

    /// Generated sessions with at least one local-peripheral link.
    static func sessions() throws -> [BlegenSessions.Session] {
        try BlegenSessions.generate(seed: 1, count: 40, shape: nil, into: directory)
            .filter { s in s.links.contains { $0["role"] as? String == "peripheral" } }
    }

    struct Outcome: Equatable {
        var links: Int
        var divergences: [String]
        var log: [String]
    }

    static func runUART(_ path: String) throws -> Outcome {
        let replay = try CBReplay(capture: path)
        let app = replay.activate { UARTPeripheral(now: { replay.clock.now }) }
        replay.run(for: 120)
        return Outcome(links: replay.localServerDriver.servers.count,
                       divergences: replay.localServerDriver.divergences.map(\.description), log: app.events)
    }

    static func runSettings(_ path: String) throws -> Outcome {
        let replay = try CBReplay(capture: path)
        let app = replay.activate { DeviceSettingsServer() }
        replay.run(for: 120)
        return Outcome(links: replay.localServerDriver.servers.count,
                       divergences: replay.localServerDriver.divergences.map(\.description), log: app.log)
    }

    static func runSteps(_ path: String) throws -> Outcome {
        let replay = try CBReplay(capture: path)
        let app = replay.activate { StepHistoryServer(now: { replay.clock.now }) }
        replay.run(for: 120)
        return Outcome(links: replay.localServerDriver.servers.count,
                       divergences: replay.localServerDriver.divergences.map(\.description), log: app.log)
    }

    /// Every recorded central of every such session connects to the app and is served (its
    /// requests name the recorded server's attributes, which the apps do not have: each is a
    /// divergence that says so, not a trap), and the same run twice gives the same result.
    @Test func everyRecordedCentralIsServedAndRunsRepeat() throws {
        let sessions = try Self.sessions()
        #expect(sessions.count >= 10)
        for s in sessions {
            let peripheralLinks = s.links.filter { $0["role"] as? String == "peripheral" && ($0["kind"] as? String) == "connection" }.count
            let a = try Self.runSettings(s.path), b = try Self.runSettings(s.path)
            #expect(a == b, "seed \(s.seed)")
            #expect(a.links >= peripheralLinks, "seed \(s.seed): \(a.links) links for \(peripheralLinks) recorded")
            // The UART app stops advertising while a central is subscribed: no other central can
            // connect meanwhile (a central connects only to an advertiser).
            let c = try Self.runUART(s.path), d = try Self.runUART(s.path)
            #expect(c == d, "seed \(s.seed)")
            #expect(c.links <= a.links, "seed \(s.seed)")
            // StepHistoryServer advertises all along: every recorded central connects to it.
            let e = try Self.runSteps(s.path), f = try Self.runSteps(s.path)
            #expect(e == f, "seed \(s.seed)")
            #expect(e.links >= peripheralLinks, "seed \(s.seed): \(e.links) links for \(peripheralLinks) recorded")
            // A request for an attribute the app lacks is a divergence naming it, never a crash.
            for line in a.divergences + c.divergences + e.divergences {
                #expect(line.hasPrefix("packet "), "seed \(s.seed): \(line)")
            }
        }
    }

    @Test func theIPhonePeripheralAndTheDualRolePhone() throws {
        try BlegenSessions.run("ios", [Self.directory])
        try BlegenSessions.run("dualrole", [Self.directory])
        // blegen.ios: the recorded iPhone's server refused a read of 0x0003 with 0x80, then a write
        // of 0x0005 with 0x0F. In the app's database 0x0003 is the system's Device Name, which the
        // system answers; the central's write was its answer to the 0x80, which it now never
        // gets, so the write does not come (Docs/peripheral.md "Requests": anchored to answers).
        let ios = try Self.runSettings(Self.directory + "/ios-peripheral.pklg")
        #expect(ios.links == 1)
        #expect(ios.divergences == [
            "packet 2 Read Request to 0x0003: recorded Error Response 0x80 Application Error (0x80) (packet 3), the app answered Read Response 69 50 68 6F 6E 65",
        ], "\(ios.divergences)")
        // blegen.dualrole: the laptop (role 1) discovers the phone's server, which holds the
        // system's services only in the recording; the app's answers differ where it has more.
        let dual = try Self.runSettings(Self.directory + "/dual-role.btsnoop")
        #expect(dual.links == 1)
        #expect(dual.log.isEmpty)
    }
}
