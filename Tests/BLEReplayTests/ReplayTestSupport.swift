import BLECore
import Foundation
import TestSupport
@testable import BLEReplay

/// Paths to the captures the replay tests run on.
enum TestCaptures {
    /// The package root: three levels above this file.
    static var packageRoot: String {
        var parts = "\(#filePath)".split(separator: "/", omittingEmptySubsequences: false)
        parts.removeLast(3)
        return parts.joined(separator: "/")
    }

    /// `Captures/NAME` (made by Scripts/make_sample_captures.py).
    static func sample(_ name: String) -> String { "\(packageRoot)/Captures/\(name)" }

    /// `../shared/captures/NAME` (real captures; never copied into the repository).
    static func shared(_ name: String) -> String { "\(packageRoot)/../shared/captures/\(name)" }

    static let samples = ["heart-rate-healthy.btsnoop", "heart-rate-supervision-timeout.btsnoop", "att-timeout.btsnoop",
                          "failed-to-establish.btsnoop", "pairing-failed.btsnoop", "auth-errors.btsnoop",
                          "heart-rate-peripheral.btsnoop"]

    /// Every shared capture with HCI traffic.
    static let sharedHCI = ["android-classic-spp.btsnoop", "android-lock-long-session.btsnoop", "android-lock-pairing.btsnoop",
                            "android-pongbot.btsnoop", "android-yeelock.btsnoop", "btmon-monitor.btsnoop",
                            "ios-glasses-app-control.pklg", "ios-glasses.pklg", "scale-h4-phdr.pcap", "smartwatch-h4-phdr.pcapng"]

    /// Air (link-layer) captures from sniffers: replayed with the end the air shows (AirCaptureReplayTests).
    static let sharedAir = ["nrf-sniffer-att-deadlock.pcap", "nrf-sniffer-esp32-desync.pcap", "nrf-sniffer-invalid-control.pcapng",
                            "nrf-sniffer-psoc6-crash.pcapng", "nrf-sniffer-zero-ltk.pcap", "sniffle-adv-only.pcapng",
                            "sniffle-gatt.pcap", "ubertooth-le-sc-pairing.pcapng"]

    static func session(_ path: String) throws -> RecordedSession {
        let loaded = try ReplaySource.load(path: path)
        guard let s = loaded.sessions.first else { throw RecordingLoader.Failure(message: "\(path): no capture") }
        return s
    }

    /// Replays `session` faithfully, keeping the trace, and writes it to `written` as
    /// `replay --write-capture` does: the round trip a written capture's re-import is checked by.
    @discardableResult
    static func replayWriting(_ session: RecordedSession, to written: String,
                              configuration base: ReplayConfiguration = ReplayConfiguration()) throws -> (FaithfulReplayResult, ReplayWorld) {
        var configuration = base
        configuration.keepTrace = true
        let (result, world) = FaithfulReplay.run(session, configuration: configuration)
        try world.trace.writeBtsnoop(to: written)
        return (result, world)
    }

    /// Writes `capture` to a scratch file, loads its session, replays it writing the trace to a
    /// second one (`replayWriting`) and hands `body` both paths, the session and the result: the
    /// round trip of the written-capture tests. Both files are removed after.
    static func writtenRoundTrip<T>(_ capture: SpecCapture, name: String,
                                    _ body: (_ original: String, _ written: String, _ session: RecordedSession,
                                             _ result: FaithfulReplayResult) throws -> T) throws -> T {
        let dir = FileManager.default.temporaryDirectory.path
        let original = "\(dir)/\(name)-\(UUID().uuidString).btsnoop"
        let written = "\(dir)/\(name)-replayed-\(UUID().uuidString).btsnoop"
        defer {
            try? FileManager.default.removeItem(atPath: original)
            try? FileManager.default.removeItem(atPath: written)
        }
        try capture.write(to: original)
        let session = try Self.session(original)
        let (result, _) = try replayWriting(session, to: written)
        return try body(original, written, session, result)
    }
}

extension ATTMatchKey {
    static func writeRequest(_ handle: UInt16) -> ATTMatchKey { ATTMatchKey(opcode: .init(0x12), handle: handle) }
}
