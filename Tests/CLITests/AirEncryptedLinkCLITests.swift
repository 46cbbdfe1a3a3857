import Foundation
import Testing
import TestSupport

/// `diagnose` and `gatt` of sniffer captures (`blegen.air --nordic`, `--rf`, `--encrypted`) whose
/// outcome is known by construction: an encrypted link whose payloads the sniffer could not read
/// is said to be unreadable from its first ciphertext on (Core v5.4 Vol 6 Part E 1), never "0 ATT
/// PDUs" and "MTU 23 (never exchanged)" as if nothing had been said; a connection update applies at its
/// instant whether the sniffer records event counters (nRF Sniffer) or not (LINKTYPE 251, 256); a
/// packet with a CRC error is left out whether the sniffer says so (272, 256) or not (251).
@Suite("blereplay on a sniffer's encrypted link")
struct AirEncryptedLinkCLITests {
    @Test("ATT counted once per PDU (a retransmission and a bad-CRC copy left out), unknown from the first ciphertext on",
          arguments: [["--nordic", "2"], ["--nordic", "3"], ["--rf", "direction"], ["--rf", "none"], ["--plain"]])
    func followedSession(_ shape: [String]) throws {
        let dir = CLI.temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: dir) }
        let capture = dir.appendingPathComponent("air.pcap").path
        try BlegenSessions.run("air", shape + [capture])
        let text = try CLI.run(["diagnose", capture])
        #expect(text.status == 0, "\(text.stderr)")
        // 0x02 0x03 0x0A 0x0B 0x1B 0x12 0x13; LL_CONNECTION_UPDATE_IND (packet 20) has instant
        // 14, the event of packet 32; LL_START_ENC_RSP (packet 38) is the first ciphertext.
        #expect(text.stdout.contains("ATT: 7 PDU(s), 3 transaction(s), 0 error(s), 0 timeout(s), 1 notification(s)/indication(s); not known from packet 38 on: encrypted, and the sniffer did not decrypt it"),
                "\(text.stdout)")
        #expect(text.stdout.contains("1 update(s), last: interval 50.00 ms, latency 0, timeout 5000 ms (packet 32)"), "\(text.stdout)")
        #expect(text.stdout.contains("MTU 65, encrypted yes"))
        let json = try CLI.run(["diagnose", capture, "--json"])
        let captures = try JSONSerialization.jsonObject(with: Data(json.stdout.utf8)) as? [[String: Any]]
        let connection = (captures?.first?["connections"] as? [[String: Any]])?.first
        #expect(connection?["ciphertext_from_packet_id"] as? Int == 38)
        #expect(connection?["att_pdus"] as? Int == 7)
    }

    @Test("a link encrypted before any ATT: MTU and GATT unknown, not defaults")
    func encryptedAtOnce() throws {
        let dir = CLI.temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: dir) }
        let capture = dir.appendingPathComponent("encrypted.pcap").path
        try BlegenSessions.run("air", ["--encrypted", capture])
        let text = try CLI.run(["diagnose", capture])
        #expect(text.status == 0, "\(text.stderr)")
        #expect(text.stdout.contains("MTU unknown (no exchange seen before the link's payloads turned unreadable at packet 7)"),
                "\(text.stdout)")
        #expect(!text.stdout.contains("never exchanged"))
        #expect(text.stdout.contains("; not known from packet 7 on: encrypted"))
        let json = try CLI.run(["diagnose", capture, "--json"])
        let captures = try JSONSerialization.jsonObject(with: Data(json.stdout.utf8)) as? [[String: Any]]
        let connection = (captures?.first?["connections"] as? [[String: Any]])?.first
        #expect(connection?["mtu"] is NSNull)
        let gatt = try CLI.run(["gatt", capture])
        #expect(gatt.stdout.contains("no discovery in the capture's plaintext"), "\(gatt.stdout)")
        #expect(gatt.stdout.contains("connection 1: encrypted from packet 7 on, and the sniffer did not decrypt it"))
    }
}
