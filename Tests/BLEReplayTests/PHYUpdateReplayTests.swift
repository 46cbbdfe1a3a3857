import BLEAnalysis
import BLECore
import BLETimeline
import Foundation
import TestSupport
import Testing
@testable import BLEReplay

/// LE PHY Update Complete (Core v5.4 Vol 4 Part E 7.7.65.12) in a written capture: `import` makes
/// a `link_event` of each, and `diagnose` says the link's PHY from the last successful one.
/// Before, the replay left them out of `--write-capture` (as it did refused connection updates):
/// a re-import of the written capture said nothing of the PHY.
@Suite struct PHYUpdateReplayTests {
    static let peer: [UInt8] = [0xE1, 0x22, 0x33, 0x44, 0x55, 0x8A]

    /// One link (handle 0x0040, local central), records in ms:
    ///
    ///     100  LE Connection Complete
    ///     150  Read Request 0x0003 / 170 Read Response 41
    ///     800  LE PHY Update Complete, refused: 3E 06 | 0C (subevent) | 1A (Unsupported Remote
    ///          Feature) | 40 00 (handle) | 01 (TX_PHY LE 1M) | 01 (RX_PHY LE 1M)
    ///     1200 LE PHY Update Complete: 0C | 00 | 40 00 | 02 (LE 2M) | 02 (LE 2M)
    ///     1500 LE PHY Update Complete: 0C | 00 | 40 00 | 03 (LE Coded) | 02 (LE 2M)
    ///     2000 Read Request 0x0003 / 2020 Read Response 42
    ///     3000 Disconnection Complete 0x13
    static func capture() -> SpecCapture {
        var c = SpecCapture()
        let h: UInt16 = 0x40
        c.connectionComplete(100, handle: h, role: 0, peer: peer)
        c.att(150, handle: h, [0x0A, 0x03, 0x00], received: false)
        c.att(170, handle: h, [0x0B, 0x41], received: true)
        c.evt(800, 0x3E, [0x0C, 0x1A] + c.le16(h) + [0x01, 0x01])
        c.evt(1_200, 0x3E, [0x0C, 0x00] + c.le16(h) + [0x02, 0x02])
        c.evt(1_500, 0x3E, [0x0C, 0x00] + c.le16(h) + [0x03, 0x02])
        c.att(2_000, handle: h, [0x0A, 0x03, 0x00], received: false)
        c.att(2_020, handle: h, [0x0B, 0x42], received: true)
        c.disconnectionComplete(3_000, handle: h, reason: 0x13)
        return c
    }

    /// Each PHY link event (time from the link's start, status, detail) and what `diagnose` says.
    static func facts(_ path: String) throws -> [String] {
        let source = try TimelineSource(path: path)
        var out: [String] = []
        for r in try source.store.database.rows("""
            SELECT e.ts_us - c.connected_ts_us, e.status, e.detail FROM link_event e JOIN connection c ON c.id = e.connection_id
            WHERE e.name = 'LE PHY Update Complete' ORDER BY e.packet_id
            """) {
            out.append("+\(r[0].int64 ?? -1) us status \(r[1].int ?? -1) \(r[2].string ?? "")")
        }
        for capture in try DiagnosisLoader.load(source.store) {
            for c in capture.connections { out.append("conn \(c.handle): phy \(c.phy ?? "-"), \(c.phyUpdates) update(s)") }
        }
        return out
    }

    @Test func theWrittenCaptureImportsTheSamePHYs() throws {
        try TestCaptures.writtenRoundTrip(Self.capture(), name: "phy-update") { original, written, session, result in
            #expect(session.connections.first?.phyUpdates.map { [$0.status.rawValue, $0.tx, $0.rx] } == [[0x1A, 1, 1], [0, 2, 2], [0, 3, 2]])
            #expect(result.allReproduced)
            let before = try Self.facts(original)
            #expect(before.count == 4 && before.last == "conn 64: phy tx_phy=Coded rx_phy=2M, 2 update(s)")
            let after = try Self.facts(written)
            #expect(after == before)
        }
    }

    @Test func theDetailGivesThePHYs() {
        #expect(PHYUpdate.phys(fromDetail: "tx_phy=2M rx_phy=Coded")! == (2, 3))
        #expect(PHYUpdate.phys(fromDetail: "tx_phy=0x05 rx_phy=1M")! == (5, 1))
        #expect(PHYUpdate.phys(fromDetail: "tx_phy=2M") == nil)
    }
}
