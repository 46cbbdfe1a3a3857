import TestSupport
import Foundation
import Testing
@testable import BLEReport
import BLEAnalysis

/// One counting rule for connection attempts in `report` (issue 16): an LE Connection Complete
/// with status 0 whose link then ended with 0x3E Connection Failed to be Established never came
/// up (Core v5.4 Vol 6 Part B 4.5.2); a cancelled attempt (LE Create Connection Cancel, then
/// status 0x02) is a cancel, not a failure, everywhere, and counts under the peer its LE Create
/// Connection (Vol 4 Part E 7.8.12) named.
@Suite struct AttemptCountingTests {
    static let sensor: [UInt8] = [0xC4, 0x7A, 0x3B, 0x12, 0x9E, 0x51]
    static let lock: [UInt8] = [0xE8, 0x3C, 0x51, 0x07, 0xD4, 0x2F]

    @Test func notEstablishedAndCancelledAttemptsAreCountedApart() throws {
        var c = SpecCapture()
        // 1: established, then 0x3E; 2: cancelled attempt to the lock; 3: a real connection.
        c.connectionComplete(100, handle: 0x40, role: 0, peer: Self.sensor)
        c.disconnectionComplete(400, handle: 0x40, reason: 0x3E)
        c.cmd(1000, 0x200D, [0x60, 0x00, 0x30, 0x00, 0x00, 0x00] + Self.lock.reversed() + [0x00] +
              c.le16(24) + c.le16(40) + c.le16(0) + c.le16(400) + c.le16(0) + c.le16(0))
        c.commandStatus(1001, 0x200D)
        c.cmd(1500, 0x200E, [])
        c.evt(1502, 0x3E, [0x01, 0x02, 0x00, 0x00, 0x00, 0x00] + [UInt8](repeating: 0, count: 13))
        c.connectionComplete(2000, handle: 0x41, role: 0, peer: Self.sensor)
        c.disconnectionComplete(5000, handle: 0x41, reason: 0x13)
        let dir = Support.scratch()
        defer { Support.remove(dir) }
        let file = dir + "/attempts.btsnoop"
        try c.write(to: file)
        let s = try Support.statistics([file], jobs: 1)
        #expect(s.attempts == 3)
        #expect(s.established == 1)
        let headline = ReportSummary.headlines(s)[0]
        #expect(headline.contains("3 LE connection attempt(s), 1 established"))
        let table = ReportTables.wide(s, .device)
        let failures = try #require(table.columns.firstIndex { $0.csv == "attempt_failures" })
        let cancels = try #require(table.columns.firstIndex { $0.csv == "attempt_cancels" })
        let lockRow = try #require(table.rows.first { $0.first?.display == "E8:3C:51:07:D4:2F" })
        #expect(lockRow[failures].display == "0" && lockRow[cancels].display == "1")
        #expect(!table.rows.contains { $0.first?.display == "(unknown address)" })
    }
}
