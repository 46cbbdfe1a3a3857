import BLEAnalysis
import BLECore
import BLETimeline
import Foundation
import Testing
import TestSupport
@testable import BLEReplay

/// Faithful replay of sniffer (air) captures (Docs/replay.md "Sniffer captures"): a recorded
/// connection takes its end from what the air shows (`AirEnding`, the findings `diagnose` made),
/// never "still connected when the capture ended" for a link the sniffer stopped seeing.
///
/// The generated captures are `Scripts/blegen/air.py`'s; every instant below is computed from its
/// construction (times in µs from the file's start, the connection's origin its CONNECT_IND).
@Suite("replay of sniffer captures: the end the air shows")
struct AirCaptureReplayTests {
    /// Writes `blegen.air ARGUMENTS… FILE` and loads its session (imported and analysed).
    static func generated(_ arguments: [String], _ name: String = "air.pcap") throws -> RecordedSession {
        let directory = try TemporaryDirectory(prefix: "air-replay")
        let capture = directory.path + "/" + name
        try BlegenSessions.run("air", arguments + [capture])
        return try TestCaptures.session(capture)
    }

    /// The first plain-LINKTYPE-251 / PPI session (`blegen.air OUTDIR`): `name` of the two files.
    static func generatedPair(_ name: String) throws -> RecordedSession {
        let directory = try TemporaryDirectory(prefix: "air-replay-pair")
        try BlegenSessions.run("air", [directory.path])
        return try TestCaptures.session(directory.path + "/" + name)
    }

    static func replay(_ session: RecordedSession) -> (FaithfulReplayResult, ReplayWorld) {
        var c = ReplayConfiguration()
        c.unmatched = .strict
        return FaithfulReplay.run(session, configuration: c)
    }

    static func describe(_ v: ConnectionVerdict) -> String {
        "connection \(v.connectionID): \(v.divergence.map { "\($0.kind): expected \($0.expected), got \($0.got)" } ?? "reproduced")"
    }

    // `silent_peripheral_session(N)`: CONNECT_IND at 800 µs (supervision timeout 1 s), N answered
    // events from 5 000 µs every 30 ms (packets 3 … 2N+2), then 34 events of the central alone
    // (6 when N is 0), the last at 5 000 + (N + 33) × 30 000 µs.
    static let connectIndication: Int64 = 800

    /// `connection-timeout-on-air`: 0x08 at the link's last packet (where `diagnose` and `report`
    /// place it), said as inferred, the same instant on every run.
    @Test(arguments: [10, 100])
    func aSilentPeripheralReplaysItsInferredTimeout(_ answered: Int) throws {
        let session = try Self.generated(["--silent", "\(answered)"])
        let c = try #require(session.connections.first)
        let lastPacket = 2 + 2 * answered + 34
        let instant = 5_000 + Int64(answered + 33) * 30_000 - Self.connectIndication
        #expect(c.disconnect?.reason == HCIStatusCode(0x08))
        #expect(c.disconnect?.time == instant)
        #expect(c.disconnect?.packetID == lastPacket)
        #expect(c.disconnectInferred)
        var ends: [VirtualTime?] = []
        for _ in 0..<3 {
            let (r, world) = Self.replay(session)
            let v = try #require(r.verdicts.first)
            #expect(v.reproduced, "\(Self.describe(v))")
            #expect(v.endInferred)
            #expect(v.comparedUpTo == nil)
            #expect(v.recordedEnd.hasSuffix("(inferred on air)"), "\(v.recordedEnd)")
            #expect(v.notes.contains { $0.contains("inferred, not reported (diagnose: connection-timeout-on-air)") })
            let link = try #require(world.host.allLinks.first)
            #expect(link.endReason == HCIStatusCode(0x08))
            #expect(link.endedAt.map(link.relative) == instant)
            ends.append(link.endedAt)
        }
        #expect(Set(ends).count == 1)
    }

    /// The same session as Ubertooth writes it (`--silent-ppi`: PPI around LINKTYPE 251): a PPI
    /// capture is an air capture (it was taken for an HCI one, its link "still connected").
    @Test func aSilentPeripheralInAPPICaptureReplaysItsInferredTimeout() throws {
        let session = try Self.generated(["--silent-ppi", "10"])
        let c = try #require(session.connections.first)
        let instant = 5_000 + Int64(10 + 33) * 30_000 - Self.connectIndication
        #expect(c.disconnectInferred && c.disconnect?.reason == HCIStatusCode(0x08) && c.disconnect?.time == instant)
        let (r, world) = Self.replay(session)
        let v = try #require(r.verdicts.first)
        #expect(v.reproduced && v.endInferred, "\(Self.describe(v))")
        let link = try #require(world.host.allLinks.first)
        #expect(link.endReason == HCIStatusCode(0x08))
        #expect(link.endedAt.map(link.relative) == instant)
    }

    /// The peripheral never answered: 0x3E Connection Failed to be Established, inferred, at the
    /// central's sixth packet (packet 8, 5 000 + 5 × 30 000 µs).
    @Test func aPeripheralThatNeverAnsweredReplays0x3E() throws {
        let session = try Self.generated(["--silent", "0"])
        let c = try #require(session.connections.first)
        let instant = 5_000 + 5 * 30_000 - Self.connectIndication
        #expect(c.disconnect?.reason == HCIStatusCode(0x3E))
        #expect(c.disconnect?.time == instant)
        #expect(c.disconnect?.packetID == 8)
        let (r, world) = Self.replay(session)
        let v = try #require(r.verdicts.first)
        #expect(v.reproduced && v.endInferred, "\(Self.describe(v))")
        let link = try #require(world.host.allLinks.first)
        #expect(link.endReason == HCIStatusCode(0x3E))
        #expect(link.endedAt.map(link.relative) == instant)
    }

    /// `--lost 5`: an MTU exchange (packets 3-4), a Read Request the peripheral never answers (5,
    /// with its Empty PDU 6), 5 s of Empty PDU events (166 events, packets 7-338), then 40 s of
    /// advertising. The recording covers the link up to packet 338 and does not show how it
    /// ended: reproduced up to there, never "still connected when the capture ended".
    @Test func aLinkTheSnifferLostIsReproducedUpToItsLastPacket() throws {
        let session = try Self.generated(["--lost", "5"])
        let c = try #require(session.connections.first)
        let events = 5_000_000 / 30_000
        let lastPacket = 6 + 2 * events
        // CONNECT_IND at 500 µs; the first event at 500 + 1 250 + 30 000; the peripheral 150 µs after the central.
        let lastTime = 500 + 1_250 + 30_000 + Int64(events + 1) * 30_000 + 150 - 500
        #expect(c.disconnect == nil)
        #expect(c.endNotShown)
        #expect(c.end == lastTime)
        let (r, world) = Self.replay(session)
        let v = try #require(r.verdicts.first)
        #expect(v.reproduced, "\(Self.describe(v))")
        #expect(v.comparedUpTo == lastPacket)
        #expect(!v.endInferred)
        #expect(v.recordedEnd.hasPrefix("not in the capture: its last packet is \(lastPacket)"), "\(v.recordedEnd)")
        #expect(v.endingRule == "not known: the capture does not show how the link ended")
        #expect(v.notes.contains { $0.contains("the capture does not show how the link ended (diagnose: connection-lost-from-view)") })
        #expect(!v.simulatedEnd.contains("when the capture ended") && v.endingRule?.contains("when the capture ended") == false)
        #expect(world.host.allLinks.first?.endReason == nil)
    }

    /// A plaintext LL_TERMINATE_IND 0x13 from the central (`blegen.air OUTDIR`: packet 15, frames
    /// 1 250 µs apart, the CONNECT_IND packet 2): the disconnect as the timeline holds it (not
    /// inferred), at its instant, with its reason; the local Disconnect the decoder takes it for
    /// carries 0x13 (it carried the LL header's length byte, 0x02).
    @Test(arguments: ["le-ll.pcap", "ppi-ubertooth.pcap"])
    func aTerminateIndicationOnAirReplaysWithItsReason(_ name: String) throws {
        let session = try Self.generatedPair(name)
        let c = try #require(session.connections.first)
        #expect(c.disconnect?.reason == HCIStatusCode(0x13))
        let instant: Int64 = 14 * 1_250 - 1_250
        #expect(c.disconnect?.time == instant)
        #expect(c.disconnect?.packetID == 15)
        #expect(c.localDisconnect?.reason == 0x13)
        #expect(c.airEnding == nil && !c.disconnectInferred)
        let (r, world) = Self.replay(session)
        let v = try #require(r.verdicts.first)
        #expect(v.reproduced && !v.endInferred && v.comparedUpTo == nil, "\(Self.describe(v))")
        let link = try #require(world.host.allLinks.first)
        #expect(link.endReason == HCIStatusCode(0x13))
        #expect(link.endedAt.map(link.relative) == instant)
    }

    /// `--extended`: two links followed at once; the peripheral ends the LE Coded one (AUX_CONNECT_REQ
    /// at 1 800 µs) in its event 29 (5 000 + 29 × 50 000 + 900 µs), the central the other
    /// (CONNECT_IND at 3 400 µs) in its event 25 (8 000 + 25 × 30 000 µs); both 0x13.
    @Test func extendedAdvertisingLinksEndWithTheirTerminateIndications() throws {
        let session = try Self.generated(["--extended"])
        let (r, world) = Self.replay(session)
        #expect(r.verdicts.count == 2)
        for v in r.verdicts { #expect(v.reproduced && !v.endInferred && v.comparedUpTo == nil, "\(Self.describe(v))") }
        let ends = world.host.allLinks.compactMap { l in l.endedAt.map { (l.endReason, l.relative($0)) } }
        #expect(ends.map(\.0) == [HCIStatusCode(0x13), HCIStatusCode(0x13)])
        let byPeripheral: Int64 = 5_000 + 29 * 50_000 + 900 - 1_800
        let byCentral: Int64 = 8_000 + 25 * 30_000 - 3_400
        #expect(ends.map(\.1) == [byPeripheral, byCentral])
    }

    /// `--nordic 2|3`, `--plain`: the link ends with an encrypted LL Control PDU of an
    /// LL_TERMINATE_IND's length from the central (`terminate-encrypted-on-air`): its reason is not in
    /// the capture, so the replay compares up to the link's last packet and says so.
    @Test(arguments: [["--nordic", "2"], ["--nordic", "3"], ["--plain"]])
    func anEncryptedTerminationIsComparedUpToTheLastPacket(_ arguments: [String]) throws {
        let session = try Self.generated(arguments)
        let c = try #require(session.connections.first)
        guard case .encryptedTermination(let packet, let sender) = c.airEnding?.kind else {
            Issue.record("expected an encrypted termination, got \(String(describing: c.airEnding))")
            return
        }
        #expect(sender == "the central")
        let (r, _) = Self.replay(session)
        let v = try #require(r.verdicts.first)
        #expect(v.reproduced, "\(Self.describe(v))")
        #expect(v.comparedUpTo == c.airEnding?.lastPacketID)
        #expect(v.recordedEnd.contains("most likely the central's LL_TERMINATE_IND at packet \(packet)"), "\(v.recordedEnd)")
        #expect(v.notes.contains { $0.contains("terminate-encrypted-on-air") })
    }

    /// What each shared sniffer capture gives (77 links): the links whose end the capture does not
    /// show are compared up to their last packet, and diverge only where the capture itself is
    /// inconsistent (a packet the sniffer missed, or a side that sent a request while another was
    /// outstanding), with the packet named.
    static let sharedVerdicts: [(String, reproduced: Int, diverged: Int)] = [
        ("nrf-sniffer-att-deadlock.pcap", 0, 1), ("nrf-sniffer-esp32-desync.pcap", 1, 0),
        ("nrf-sniffer-invalid-control.pcapng", 10, 4), ("nrf-sniffer-psoc6-crash.pcapng", 55, 3),
        ("nrf-sniffer-zero-ltk.pcap", 1, 0), ("sniffle-adv-only.pcapng", 0, 0), ("sniffle-gatt.pcap", 1, 0),
        ("ubertooth-le-sc-pairing.pcapng", 0, 1),
    ]

    @Test(arguments: sharedVerdicts)
    func sharedSnifferCapturesAgreeWithDiagnose(_ name: String, reproduced: Int, diverged: Int) throws {
        let directory = try TemporaryDirectory(prefix: "air-shared")
        let db = directory.path + "/t.db"
        _ = try Importer.importCaptures([TestCaptures.shared(name)], into: db)
        let store = try TimelineStore(path: db)
        _ = try Analyzer.analyze(store)
        let diagnosis = try #require(DiagnosisLoader.load(store).first)
        let session = try TestCaptures.session(db)
        let (r, _) = Self.replay(session)
        #expect(r.verdicts.filter(\.reproduced).count == reproduced, "\(r.verdicts.map(Self.describe))")
        #expect(r.verdicts.filter { !$0.reproduced }.count == diverged)
        for v in r.verdicts {
            let d = try #require(diagnosis.connections.first { $0.id == v.connectionID })
            let c = try #require(session.connections.first { $0.id == v.connectionID })
            #expect(!(v.endingRule ?? "").contains("still connected when the capture ended") || d.lostFromView == nil)
            if let timeout = d.findings.first(where: { $0.finding.code == AirEnding.timeoutOnAirCode }) {
                // The same reason at the same instant as diagnose says.
                #expect(v.endInferred)
                #expect(c.disconnect?.reason == AirEnding.inferredReason(findingTitle: timeout.finding.title))
                #expect(c.disconnect?.packetID == d.lastPacketID)
                #expect(d.lostFromView.map { c.origin.saturatingAdding(c.disconnect?.time ?? 0) == $0.lastSeen } ?? false)
            } else if d.lostFromView != nil, d.disconnectReason == nil {
                #expect(v.comparedUpTo == d.lastPacketID, "connection \(v.connectionID)")
                #expect(c.disconnect == nil)
            } else {
                #expect(v.comparedUpTo == nil && !v.endInferred)
                #expect(c.disconnect.map { Int($0.reason.rawValue) } == d.disconnectReason)
            }
            if let divergence = v.divergence {
                // The divergence names the recorded packet it expected, or the simulated frame it got.
                #expect(divergence.expectedPacketID != nil || divergence.gotFrame != nil, "\(Self.describe(v))")
            }
        }
    }
}
