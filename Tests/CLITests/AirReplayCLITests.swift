import Foundation
import Testing
import TestSupport

/// `replay` of sniffer captures as a CI user runs it (Docs/replay.md "Sniffer captures"): exit
/// codes, and the inferred ending said as inferred in the text, `--json` and `--junit`. The
/// captures are `blegen.air`'s; the instants follow from its construction
/// (`AirCaptureReplayTests` in BLEReplayTests holds the arithmetic).
@Suite("blereplay replay on sniffer captures")
struct AirReplayCLITests {
    /// `--silent 10`: 10 answered events, then the central alone for 34 events; its last packet
    /// (56) at 5 000 + 43 × 30 000 µs, 1.2942 s after the CONNECT_IND (800 µs).
    @Test func anInferredTimeoutIsSaidAsInferredAndReplaysTheSameEveryRun() throws {
        let dir = CLI.temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: dir) }
        let capture = dir.appendingPathComponent("silent.pcap").path
        try BlegenSessions.run("air", ["--silent", "10", capture])
        var outputs: [String] = []
        for _ in 0..<3 {
            let r = try CLI.run(["replay", capture])
            #expect(r.status == 0, "\(r.stdout)\(r.stderr)")
            outputs.append(r.stdout)
        }
        #expect(Set(outputs).count == 1)
        let text = outputs[0]
        #expect(text.contains("connection: reproduced - 0/0 ATT PDUs, disconnected 0x08 Connection Timeout at +1.294200 s into conn 1 (as inferred on air)"), "\(text)")
        #expect(text.contains("note: the recorded end is inferred, not reported (diagnose: connection-timeout-on-air)"))
        #expect(!text.contains("still connected"))

        let junit = dir.appendingPathComponent("j.xml").path
        let j = try CLI.run(["replay", capture, "--json", "--junit", junit])
        #expect(j.status == 0, "\(j.stderr)")
        let json = try JSONSerialization.jsonObject(with: Data(j.stdout.utf8)) as? [String: Any]
        let connection = try #require((json?["connections"] as? [[String: Any]])?.first)
        #expect(connection["reproduced"] as? Bool == true)
        #expect((connection["recorded_end"] as? String)?.hasSuffix("(inferred on air)") == true)
        let air = try #require(connection["recorded_end_on_air"] as? [String: Any])
        #expect(air["inferred"] as? Bool == true)
        #expect(air["shown"] as? Bool == true)
        #expect(air["finding"] as? String == "connection-timeout-on-air")
        let xml = try String(contentsOfFile: junit, encoding: .utf8)
        #expect(xml.contains("(connection; recorded end inferred on air)"), "\(xml)")
        #expect(xml.contains("tests=\"1\" failures=\"0\""))
        #expect(xml.contains("inferred, not reported (diagnose: connection-timeout-on-air)"))
    }

    /// `--lost 5`: the link's last packet is 338 and the capture goes on 40 s: reproduced up to
    /// there, and the output says the capture does not show how it ended.
    @Test func aLinkTheSnifferLostIsReproducedUpToItsLastPacket() throws {
        let dir = CLI.temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: dir) }
        let capture = dir.appendingPathComponent("lost.pcap").path
        try BlegenSessions.run("air", ["--lost", "5", capture])
        let junit = dir.appendingPathComponent("j.xml").path
        let r = try CLI.run(["replay", capture, "--junit", junit])
        #expect(r.status == 0, "\(r.stdout)\(r.stderr)")
        #expect(r.stdout.contains("connection: reproduced up to packet 338 - 3/3 ATT PDUs, still connected after packet 338, where the recording stops showing the link"), "\(r.stdout)")
        #expect(r.stdout.contains("peripheral: not known: the capture does not show how the link ended"))
        #expect(r.stdout.contains("note: the capture does not show how the link ended (diagnose: connection-lost-from-view): compared up to its last packet 338 (+5.041400 s into conn 1)"))
        #expect(!r.stdout.contains("when the capture ended"))
        let xml = try String(contentsOfFile: junit, encoding: .utf8)
        #expect(xml.contains("(connection; up to packet 338, its end not in the capture)"), "\(xml)")
        let j = try CLI.run(["replay", capture, "--json"])
        let json = try JSONSerialization.jsonObject(with: Data(j.stdout.utf8)) as? [String: Any]
        let connection = try #require((json?["connections"] as? [[String: Any]])?.first)
        let air = try #require(connection["recorded_end_on_air"] as? [String: Any])
        #expect(air["inferred"] as? Bool == false)
        #expect(air["shown"] as? Bool == false)
        #expect(air["compared_up_to_packet_id"] as? Int == 338)
    }

    /// The central's LL_TERMINATE_IND 0x13 (`blegen.air OUTDIR`, packet 15): reproduced, and the
    /// written capture's Disconnect command carries 0x13 (it carried 0x02, the LL header's
    /// length byte read as if it were an HCI command's reason).
    @Test func aTerminateIndicationFromTheCentralIsWrittenWithItsReason() throws {
        let dir = CLI.temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: dir) }
        try BlegenSessions.run("air", [dir.path])
        let written = dir.appendingPathComponent("out.btsnoop").path
        let r = try CLI.run(["replay", dir.appendingPathComponent("le-ll.pcap").path, "--write-capture", written])
        #expect(r.status == 0, "\(r.stdout)\(r.stderr)")
        #expect(r.stdout.contains("10/10 ATT PDUs, disconnected 0x13 Remote User Terminated Connection at +0.016250 s into conn 1"), "\(r.stdout)")
        #expect(!r.stdout.contains("inferred"))
        let t = try CLI.run(["timeline", written])
        #expect(t.stdout.contains("Sent Disconnect handle 0x0001 reason 0x13 Remote User Terminated Connection"), "\(t.stdout)")
    }

    /// The shared sniffer captures are replayed (they were refused with exit 65): exit 0 where every
    /// link reproduced, 1 where one diverged.
    @Test(arguments: [("sniffle-gatt.pcap", Int32(0)), ("nrf-sniffer-zero-ltk.pcap", 0), ("nrf-sniffer-att-deadlock.pcap", 1)])
    func sharedSnifferCapturesExitWithTheirVerdicts(_ name: String, _ status: Int32) throws {
        let r = try CLI.run(["replay", CLI.sharedCapture(name)])
        #expect(r.status == status, "\(r.stdout)\(r.stderr)")
        #expect(!r.stderr.contains("link-layer (air) capture"))
    }
}
