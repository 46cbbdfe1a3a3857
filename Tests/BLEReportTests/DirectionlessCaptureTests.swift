import Foundation
import Testing
import TestSupport
import BLEAnalysis
import BLECore
import BLEDecode
import BLETimeline
@testable import BLEReport

/// pcap LINKTYPE_BLUETOOTH_HCI_H4 (187) records no direction: commands are sent and events
/// received by their H4 type, ACL is '?'. GATT reconstruction takes a server's ATT PDU
/// (response, notification, indication; Core v5.4 Vol 3 Part F 3.3) as the peer's
/// (`GATTServerSide`); the link-loss and disconnect explanations and the report's "from peer"
/// counts must reason the same way, and say the direction was inferred, never state as known
/// that no data came from the peer.
///
/// Each capture is written twice from the same records (`SpecCapture`): btsnoop with direction,
/// and pcap 187 without.
@Suite("captures without direction")
struct DirectionlessCaptureTests {
    static func findings(_ capture: SpecCapture, directionless: Bool) throws -> [Finding] {
        let dir = Support.scratch()
        defer { Support.remove(dir) }
        let file = dir + (directionless ? "/c.pcap" : "/c.btsnoop")
        if directionless { try capture.writePcapH4(to: file) } else { try capture.write(to: file) }
        let store = try Support.timeline([file], at: dir + "/t.db")
        return try DiagnosisLoader.load(store).flatMap { $0.connections }.flatMap { $0.findings.map(\.finding) }
    }

    /// `SpecCapture.silentPeerLinkLoss`: the peer's last data is its 16th notification, then 0x08.
    @Test func aLostLinkInfersThePeersLastDataInsteadOfDenyingIt() throws {
        let capture = SpecCapture.silentPeerLinkLoss()
        let withDirection = try #require(try Self.findings(capture, directionless: false).first { $0.code == "supervision-timeout" })
        let without = try #require(try Self.findings(capture, directionless: true).first { $0.code == "supervision-timeout" })
        let known = try #require(withDirection.detail.range(of: "the peer's last data was [^;]*\\(packet [0-9]+\\)", options: .regularExpression))
        let lastData = String(withDirection.detail[known])
        #expect(!without.detail.contains("no data from the peer was captured"), "\(without.detail)")
        let inferred = try #require(without.detail.range(of: "Inferred:"))
        let stated = try #require(without.detail.range(of: lastData), "\(without.detail)")
        #expect(stated.lowerBound > inferred.lowerBound, "the peer's last data is an inference here: \(without.detail)")
        #expect(without.detail.contains("the capture does not record which way ACL data went"))
        // Number Of Completed Packets cannot be matched to the host's packets without direction:
        // said unknown, where the capture with direction counts the host's 7 packets.
        #expect(withDirection.detail.contains("which of the host's 7 packet(s) the peer acknowledged"), "\(withDirection.detail)")
        #expect(without.detail.contains("which of the host's packets the peer acknowledged is unknown"), "\(without.detail)")
        #expect(!without.detail.contains("host's 7 packet(s)"), "\(without.detail)")
        #expect(without.evidence == withDirection.evidence)
    }

    /// The local host disconnects after the peer's notification (Disconnect 0x0406, Vol 4 Part E
    /// 7.1.6; Disconnection Complete 0x16); the peer's last packet is named in both captures.
    @Test func aLocalDisconnectNamesThePeersLastPacket() throws {
        var c = SpecCapture()
        c.connectionComplete(100, handle: 0x40, role: 0, peer: SpecCapture.silentPeerAddress)
        var t: Int64 = 150
        c.exchange(&t, handle: 0x40, [0x0A, 0x03, 0x00], [0x0B] + Array("Pulse".utf8))   // Read 0x0003
        c.att(400, handle: 0x40, [0x1B, 0x0C, 0x00, 0x06, 0x48], received: true)        // Notification 0x000C
        c.cmd(500, 0x0406, [0x40, 0x00, 0x13])
        c.commandStatus(501, 0x0406)
        c.disconnectionComplete(560, handle: 0x40, reason: 0x16)
        let withDirection = try #require(try Self.findings(c, directionless: false).first { $0.code == "local-terminated" })
        let without = try #require(try Self.findings(c, directionless: true).first { $0.code == "local-terminated" })
        #expect(withDirection.detail.contains("after the peer's last packet, Handle Value Notification"), "\(withDirection.detail)")
        #expect(without.detail.contains("after the peer's last packet (by its ATT opcode: the capture does not record which way packets went), Handle Value Notification"),
                "\(without.detail)")
        #expect(without.evidence == withDirection.evidence)
    }

    /// The SQL the analysis and the report use infers what the Swift rule does, for every opcode
    /// and direction.
    @Test func theSQLInferenceIsTheSwiftRule() throws {
        let db = try SQLiteDatabase(path: ":memory:")
        for direction in [Direction.sent, .received, .unknown] {
            for op in 0...255 {
                let sql = GATTServerSide.sqlInferredDirection(direction: "?1", opcode: "?2")
                let got = try db.rows("SELECT \(sql)", [.text(direction.rawValue), .integer(Int64(op))]).first?[0].string
                let want = GATTServerSide.inferredDirection(direction, opcode: ATTOpcode(UInt8(op)))
                #expect(got == want.rawValue, "opcode \(op) \(direction)")
            }
        }
        #expect(GATTServerSide.inferredDirection(.unknown, opcode: ATTOpcode(0x1B)) == .received)   // notification
        #expect(GATTServerSide.inferredDirection(.unknown, opcode: ATTOpcode(0x0A)) == .sent)       // Read Request
    }

    /// Error Responses come from the server: in the report, the peer's in both captures.
    @Test func attErrorsFromThePeerAreCountedAsThePeers() throws {
        let dir = Support.scratch()
        defer { Support.remove(dir) }
        let capture = SpecCapture.silentPeerLinkLoss()
        try capture.write(to: dir + "/c.btsnoop")
        try capture.writePcapH4(to: dir + "/c.pcap")
        func senders(_ path: String) throws -> [String: Int] {
            let s = try Support.statistics([path])
            let parts = (s.counts[.att] ?? []).flatMap { $0.parts["sender"] ?? [] }
            return Dictionary(parts.map { ($0.id, $0.count) }, uniquingKeysWith: +)
        }
        let withDirection = try senders(dir + "/c.btsnoop")
        #expect(withDirection["peer", default: 0] > 0)
        #expect(try senders(dir + "/c.pcap") == withDirection)
    }
}
