import CoreBluetoothReplay
import Foundation
import Testing

/// Examples/ResilientCentral against the error captures. Known answers are the recordings'
/// (`blereplay diagnose` / `timeline`): failed-to-establish has two 0x3E attempts before a good
/// link; auth-errors answers the first reads of 0x0015 / 0x0017 with 0x05 / 0x0F and the retries
/// (after pairing) with 2A000000 / 1122334455667788, the write to 0x0019 with 0x03, the first
/// write of 05 01 to 0x001B with application error 0x80 and the second with success; att-timeout
/// never answers the Write Request to 0x000E, and the host disconnects after the 30 s ATT timeout.
@Suite struct ResilientCentralTests {
    static let custom = CBUUID(string: "7A3E0001-52C1-4B8E-9E4A-2F6C3B1D0E55")
    static func c(_ n: String) -> CBUUID { CBUUID(string: "7A3E\(n)-52C1-4B8E-9E4A-2F6C3B1D0E55") }

    @Test func failedConnectionsAreRetriedWithBackoffUntilTheLinkHolds() throws {
        let replay = try CBReplay(capture: Samples.capture("failed-to-establish.btsnoop"))
        let clock = replay.clock!
        let app = replay.activate { ResilientCentral(targetName: "Acme Scale", service: Self.custom, now: { clock.now }) }
        replay.run(for: 30)
        let failures = app.events.compactMap { e -> (Double, String, Int)? in
            if case .failedToConnect(let t, let d, let c) = e { return (t, d, c) } else { return nil }
        }
        #expect(failures.count == 2)
        #expect(failures.allSatisfy { $0.1 == CBErrorDomain && $0.2 == CBError.Code.connectionFailed.rawValue })
        let delays = app.events.compactMap { e -> Double? in if case .reconnectScheduled(_, let d) = e { return d } else { return nil } }
        #expect(delays == [1, 2])
        let connected = app.events.compactMap { e -> Double? in if case .connected(let t) = e { return t } else { return nil } }
        #expect(connected.count == 1)
        // The good link comes up after the second wait (2 s after the second failure).
        if let last = failures.last, let up = connected.first { #expect(up >= last.0 + 2) }
        #expect(app.device?.state == .connected)
    }

    @Test func attErrorsArriveWithCoreBluetoothsCodesAndRetriesSucceed() throws {
        let replay = try CBReplay(capture: Samples.capture("auth-errors.btsnoop"))
        let clock = replay.clock!
        let writes = [ResilientCentral.Write(characteristic: Self.c("0022"), value: Data("MT2-000000".utf8)),
                      ResilientCentral.Write(characteristic: Self.c("0023"), value: Data([0x05, 0x01]))]
        let app = replay.activate {
            ResilientCentral(targetName: "Acme Meter", service: Self.custom, writes: writes, now: { clock.now })
        }
        replay.run(for: 20)
        let ev = app.events
        // 0x05 and 0x0F make the system pair (recorded: pairing succeeded) and send the reads
        // again, as iOS does: the app never sees them and gets the values read after encryption.
        #expect(!ev.contains(.readFailed(Self.c("0020"), domain: CBATTErrorDomain, code: CBATTError.Code.insufficientAuthentication.rawValue)))
        #expect(!ev.contains(.readFailed(Self.c("0021"), domain: CBATTErrorDomain, code: CBATTError.Code.insufficientEncryption.rawValue)))
        #expect(ev.contains(.read(Self.c("0020"), Data([0x2A, 0, 0, 0]))))
        #expect(ev.contains(.read(Self.c("0021"), Data([0x11, 0x22, 0x33, 0x44, 0x55, 0x66, 0x77, 0x88]))))
        #expect(ev.contains(.writeFailed(Self.c("0022"), domain: CBATTErrorDomain, code: 3)))
        // The 0x001B write goes out after the pairing (behind the reads): the recording answered
        // it with 0x80 before encryption and with success after, so it succeeds.
        #expect(!ev.contains(.writeFailed(Self.c("0023"), domain: CBATTErrorDomain, code: 0x80)))
        #expect(ev.contains(.wrote(Self.c("0023"))))
        #expect(CBATTError.Code.insufficientAuthentication.rawValue == 5)

        app.disconnect()
        replay.run(for: 2)
        #expect(app.events.last.map { if case .disconnected(_, nil, nil) = $0 { true } else { false } } == true)
    }

    @Test func anUnansweredWriteEndsTheLinkWithConnectionTimeoutThirtySecondsLater() throws {
        let replay = try CBReplay(capture: Samples.capture("att-timeout.btsnoop"))
        let clock = replay.clock!
        let app = replay.activate {
            ResilientCentral(targetName: "Acme Logger", service: Self.custom,
                             writes: [.init(characteristic: Self.c("0002"), value: Data([0x07, 0x00, 0x10]))], now: { clock.now })
        }
        replay.run(for: 40)
        let sent = try #require(app.events.compactMap { e -> Double? in if case .writeSent(let t, _) = e { return t } else { return nil } }.first)
        let lost = try #require(app.events.compactMap { e -> (Double, String?, Int?)? in
            if case .disconnected(let t, let d, let c) = e { return (t, d, c) } else { return nil }
        }.first)
        #expect(lost.1 == CBErrorDomain)
        #expect(lost.2 == CBError.Code.connectionTimeout.rawValue)
        // The ATT timeout (Core v5.4 Vol 3 Part F 3.3.3) runs from the request, then the host disconnects.
        #expect(lost.0 - sent >= 30 && lost.0 - sent < 30.5)
        #expect(app.events.contains(.reconnectScheduled(lost.0, delay: 1)))
    }

    @Test func stateRestorationHandsTheConnectedPeripheralToTheNextLaunch() throws {
        let replay = try CBReplay(capture: Samples.capture("auth-errors.btsnoop"))
        let clock = replay.clock!
        let first = replay.activate { ResilientCentral(targetName: "Acme Meter", service: Self.custom, now: { clock.now }) }
        replay.run(for: 5)
        let id = try #require(first.device?.identifier)
        #expect(first.device?.state == .connected)
        replay.relaunch()
        let second = replay.activate { ResilientCentral(targetName: "Acme Meter", service: Self.custom, now: { clock.now }) }
        replay.run(for: 1)
        #expect(second.events.first == .restored([id]))
        #expect(second.device?.state == .connected)
        #expect(second.device !== first.device)
    }
}
