import Foundation
import Testing
import TestSupport
@testable import BLEReport

/// `report` counts a log copied while it was written once, from its longest copy
/// (`ShorterCopies`). Copies are looked for among captures that share their first 4 KiB, and a
/// copy shorter than that among those that share their first 64 bytes: a fleet's distinct logs
/// often begin alike for 64 bytes (same header, records a few ms apart), and reading every
/// capture again for them made `report` over 1,200 captures 1.4x slower.
@Suite("shorter copies of one log")
struct ShorterCopiesTests {
    /// One link with `reads` Read Request/Response pairs, `value` in every response: about 40
    /// bytes a record, so 400 reads make a capture of about 33 KB.
    static func log(reads: Int, value: UInt8) -> [UInt8] {
        var c = SpecCapture()
        c.connectionComplete(0, handle: 0x40, role: 0, peer: [0xC0, 0x11, 0x22, 0x33, 0x44, 0x55])
        for i in 0..<reads {
            c.att(Int64(100 + 20 * i), handle: 0x40, [0x0A, 0x03, 0x00], received: false)
            c.att(Int64(110 + 20 * i), handle: 0x40, [0x0B] + Array(repeating: value, count: 20), received: true)
        }
        c.disconnectionComplete(Int64(100 + 20 * reads), handle: 0x40, reason: 0x13)
        return c.bytes
    }

    @Test func copiesLongAndShortAreCountedOnceAndLookalikesTwice() throws {
        let dir = Support.scratch()
        defer { Support.remove(dir) }
        let full = Self.log(reads: 400, value: 0x41)
        // Same first 64 bytes (header, Connection Complete, first request), other values after.
        let lookalike = Self.log(reads: 400, value: 0x42)
        #expect(full.prefix(64) == lookalike.prefix(64) && full.prefix(4096) != lookalike.prefix(4096))
        let files: [(String, [UInt8])] = [("full.log", full), ("copy-6000.log", Array(full.prefix(6000))),
                                          ("copy-3000.log", Array(full.prefix(3000))), ("lookalike.log", lookalike)]
        for (name, bytes) in files { try Data(bytes).write(to: URL(fileURLWithPath: dir + "/" + name)) }
        let read = try FleetReader.read([dir], options: .init(jobs: 2))
        #expect(read.captures.map(\.input).map { ($0 as NSString).lastPathComponent }.sorted() == ["full.log", "lookalike.log"])
        let duplicates = read.outcomes.filter { $0.status == .duplicate }.map { ($0.path as NSString).lastPathComponent }.sorted()
        #expect(duplicates == ["copy-3000.log", "copy-6000.log"])
    }
}
