import Foundation
import Testing
import TestSupport
import BLETimeline
@testable import BLEAnalysis

/// Link endings whose account depends on what the local host asked just before, and on what the
/// capture does not show. A new-user pass found each told wrongly: a supervision timeout dated
/// before the link existed while the LE Connection Update that explains it sat two packets
/// earlier; a host Disconnect followed by 0x08 told as a peer refusing data; a capture without
/// Number Of Completed Packets read as a peer that acknowledged nothing though it answered; a
/// 0x22 "no response within 40 s" on a 2.1 s link; a local peripheral's 0x28 blamed on the peer;
/// the stack's Disconnect (0x05) given the app's Android status 0.
///
/// The captures come from the generator (`blegen.linkloss`), with the spec's timing.
@Suite("endings explained by the host's own requests")
struct HostRequestEndingTests {
    struct Ending {
        var findings: [String: (title: String, detail: String, evidence: String, android: Int?)] = [:]
    }

    static let directory: URL = {
        let d = FileManager.default.temporaryDirectory.appendingPathComponent("linkloss-\(UUID().uuidString)")
        try? FileManager.default.createDirectory(at: d, withIntermediateDirectories: true)
        try? BlegenSessions.run("linkloss", [d.path])
        return d
    }()

    static func analyse(_ scenario: String) throws -> Ending {
        let capture = directory.appendingPathComponent("\(scenario).btsnoop").path
        let db = directory.appendingPathComponent("\(scenario)-\(UUID().uuidString).db").path
        _ = try Importer.importCaptures([capture], into: db)
        let store = try TimelineStore(path: db)
        _ = try Analyzer.analyze(store)
        var ending = Ending()
        for r in try store.database.rows("SELECT code, title, detail, evidence_packet_ids, android_status FROM finding") {
            ending.findings[r[0].string ?? ""] = (r[1].string ?? "", r[2].string ?? "", r[3].string ?? "", r[4].int)
        }
        return ending
    }

    /// Packets: 7 Connection Complete (4 s timeout), 11 LE Connection Update (1 s), 12 its Command
    /// Status, 13 the peer's notification at 1.000 s, 14 the 0x08 at 2.000 s, 1.9 s into the link.
    @Test func aTimeoutThatOnlyThePendingUpdateExplainsIsTold() throws {
        let f = try #require(try Self.analyse("pending-update").findings["supervision-timeout"])
        #expect(f.title.hasSuffix("lost at the parameter update of packet 11"))
        #expect(f.detail.contains("the host asked for new parameters at packet 11 (LE Connection Update: interval 100.00 ms, latency 0, supervision timeout 1000 ms), which the controller accepted (packet 12)"))
        #expect(f.detail.contains("a timeout of 4000 ms cannot have run out 1.000 s after the peer's last data, one of 1000 ms can"))
        // The silence began one new timeout before the report, at the notification: never before the link.
        #expect(f.detail.contains("came about 1000 ms before the disconnect, near 08:00:01.000"))
        #expect(!f.detail.contains("near 07:"))
        #expect(f.evidence.contains("11"))
    }

    /// Packets 8-16: three reads, each completed and answered; 17 Disconnect (0x13), 18 its
    /// Command Status, 19 the 0x08 4.06 s later (the timeout is 4 s).
    @Test func aDisconnectThePeerNeverAcknowledgedIsToldSo() throws {
        let f = try #require(try Self.analyse("disconnect-unacknowledged").findings["supervision-timeout"])
        #expect(f.title.hasSuffix("lost while disconnecting: the peer never acknowledged the termination (packet 17)"))
        #expect(f.detail.contains("the host asked to disconnect at packet 17 (reason 0x13 Remote User Terminated Connection), 4.060 s before the report, and the controller accepted it (packet 18)"))
        #expect(f.detail.contains("LL_TERMINATE_IND"))
        // The peer took every packet: no refusal, and the silence is not dated by the terminate timer.
        #expect(!f.detail.contains("refusing data"))
        #expect(!f.detail.contains("near 08:00:00"))
        #expect(f.android == 0)
    }

    @Test func withoutCompletionsThePeerIsNotSaidToRefuseData() throws {
        let f = try #require(try Self.analyse("no-completions").findings["supervision-timeout"])
        #expect(f.detail.contains("the capture has no Number Of Completed Packets for handle 0x0040"))
        #expect(!f.detail.contains("never acknowledged"))
        #expect(!f.detail.contains("refusing data"))
        #expect(!f.detail.contains("before packet 8 could be acknowledged"))
    }

    @Test func a22OnALinkYoungerThanTheProcedureTimeoutIsNoTimeout() throws {
        let f = try #require(try Self.analyse("short-ll-timeout").findings["ll-response-timeout"])
        #expect(f.detail.hasPrefix("The link lasted only 2.100 s, less than the 40 s"))
        #expect(!f.detail.contains("got no response within"))
        #expect(f.detail.contains("the host started LE Start Encryption (packet 8)"))
    }

    @Test func instantPassedAtALocalPeripheralIsTheCentralsLateUpdate() throws {
        let f = try #require(try Self.analyse("peripheral-instant-passed").findings["instant-passed"])
        #expect(f.detail.hasPrefix("The central's connection update, channel map update or PHY update reached the local device, the peripheral, after its instant"))
        #expect(!f.detail.contains("the peer missed"))
        // The central hears nothing more: its controller's supervision timeout, CBError 6.
        #expect(f.detail.contains("with CBError.connectionTimeout"))
    }

    @Test func theStacksDisconnectIsNotTheAppsOnAndroid() throws {
        let stack = try #require(try Self.analyse("stack-disconnect").findings["local-terminated"])
        #expect(stack.android == 22)
        let app = try #require(try Self.analyse("app-disconnect").findings["local-terminated"])
        #expect(app.android == 0)
    }

    /// The Disconnect that ended the link is the first the controller accepted (Vol 4 Part E
    /// 7.1.6, 7.7.15): a later one it refused (Command Disallowed) changes nothing. The app's
    /// 0x13 stays the app's (Android 0), and the finding cites the accepted command, not the
    /// refused one (the Android rule read the last Disconnect, the findings the first accepted).
    @Test func aRefusedSecondDisconnectDoesNotChangeWhoEndedTheLink() throws {
        let capture = Self.directory.appendingPathComponent("repeated-disconnect.btsnoop").path
        let ending = try Self.analyse("repeated-disconnect")
        let f = try #require(ending.findings["local-terminated"])
        #expect(f.android == 0)
        // The accepted Disconnect (0x13) is the command before the refused one.
        let db = Self.directory.appendingPathComponent("repeated-\(UUID().uuidString).db").path
        _ = try Importer.importCaptures([capture], into: db)
        let store = try TimelineStore(path: db)
        let commands = try store.database.rows("SELECT packet_id, status FROM command WHERE opcode = 1030 ORDER BY packet_id")
        #expect(commands.count == 2)
        let accepted = try #require(commands.first?[0].int)
        let refused = try #require(commands.last?[0].int)
        #expect(commands.last?[1].int == 0x0C)
        #expect(f.detail.contains("It sent HCI Disconnect at packet \(accepted)"))
        #expect(f.evidence.contains("\(accepted)"))
        #expect(!f.evidence.contains("\(refused)"))
    }

    /// Packets: 8 Read Request, 10 its Read Response 31 s later, 11 another Read Request, 13 its
    /// response, 14 the peer's 0x13. The first request timed out but was answered: not "unanswered".
    @Test func aLateResponseIsNotUnansweredAndTheNextRequestBrokeTheRule() throws {
        let ending = try Self.analyse("late-response")
        let timeout = try #require(ending.findings["att-timeout"])
        #expect(timeout.detail.contains("The response finally came at packet 10."))
        #expect(timeout.detail.contains("another request on the bearer after the timeout, Read Request at packet 11"))
        #expect(timeout.evidence == "[8,10,11]")
        let ended = try #require(ending.findings["peer-terminated"])
        #expect(!ended.detail.contains("left unanswered"))
    }

    /// The btsnoop drops counter rises at record 14, inside the link: the link-loss account says
    /// its evidence may miss what was dropped.
    @Test func recordsDroppedDuringTheLinkAreACaveatOfItsLoss() throws {
        let f = try #require(try Self.analyse("dropped-records").findings["supervision-timeout"])
        #expect(f.detail.contains("the capture writer dropped packets once while the link was up, the first time before packet 14 (capture-gap)"))
        #expect(f.evidence.contains("14"))
    }

    /// Packets 5 Connection Complete (the local device peripheral), 6 the central's Pairing
    /// Request, 7 the local Pairing Failed 0x05, 8 the central's 0x05 Authentication Failure 2 ms
    /// later: the declined pairing ended the link; it did not carry on unpaired.
    @Test func aDeclinedPairingThatEndedTheLinkIsNotToldAsCarryingOn() throws {
        let f = try #require(try Self.analyse("peripheral-pairing-declined").findings["pairing-declined"])
        #expect(!f.detail.contains("carried on unpaired"))
        #expect(f.detail.contains("The link then ended (0x05 Authentication Failure, packet 8) 2.00 ms later with nothing exchanged"), "\(f.detail)")
        // 0x05 is the central's host's reason (Vol 4 Part E 7.1.6), not a failure the local
        // controller reported: told as the peer's ending, the remote central's own host ending it.
        let ending = try Self.analyse("peripheral-pairing-declined")
        #expect(ending.findings["disconnected"] == nil)
        let ended = try #require(ending.findings["peer-terminated"])
        #expect(ended.detail.hasPrefix("The peer ended the connection with 0x05 Authentication Failure."))
        #expect(ended.detail.contains("its own host ended the link: a pairing or encryption it needed failed"))
        #expect(!ended.detail.contains("its controller reports the same failure"))
    }

    /// Packets 5 LE Create Connection, 6 its Command Status, 7 LE Create Connection Cancel 500 ms
    /// later, 8 its Command Complete (success), then no LE Connection Complete: the attempt is told
    /// (it had no connection row, so nothing was said at all).
    @Test func aCancelledAttemptWhoseCompletionIsMissingIsTold() throws {
        let f = try #require(try Self.analyse("cancel-unanswered").findings["connect-cancelled"])
        #expect(f.title == "Connection attempt to C4:7A:3B:12:9E:51 cancelled by the host after 500.20 ms")
        #expect(f.detail.contains("LE Create Connection (packet 5) to C4:7A:3B:12:9E:51, then LE Create Connection Cancel (packet 7) 500.20 ms later, which the controller accepted (packet 8); the capture ends without the LE Connection Complete"))
        #expect(f.evidence == "[5,7,8]")
    }
}
