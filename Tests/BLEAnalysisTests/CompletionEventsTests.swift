import Foundation
import Testing
import TestSupport
import BLETimeline
@testable import BLEAnalysis

/// `AcknowledgedPackets` reads the credits from `CompletionEvents` (one read of the capture's
/// Number Of Completed Packets, Core v5.4 Vol 4 Part E 7.7.19) and the host's packets through the
/// link's own rows; its answers must be those of the scan of every packet row between the link's
/// first packet and its end, which it falls back to past `CompletionEvents.capacity`.
@Suite("completed packets read once per capture")
struct CompletionEventsTests {
    /// Every link of each capture, at its last packet: the two ways agree field by field.
    @Test func theCachedCreditsGiveTheScansAnswers() throws {
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent("completion-events-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: directory) }
        // The generator's link endings (credits missing, every packet returned, a peer that
        // stopped acknowledging), two controllers' links on one handle, a lost gateway's links.
        try BlegenSessions.run("linkloss", [directory.path])
        let sameHandle = directory.appendingPathComponent("same-handle.btsnoop").path
        try BlegenSessions.run("adversarial", ["--same-handle", sameHandle, "--link-loss"])
        let lost = directory.appendingPathComponent("lost-at-end.btsnoop").path
        try BlegenSessions.script("make_bench_capture.py", [lost, "--profile", "att-heavy", "--records", "20000", "--lost-at-end"])
        var captures = try FileManager.default.contentsOfDirectory(atPath: directory.path)
            .filter { $0.hasSuffix(".btsnoop") }.sorted().map { directory.appendingPathComponent($0).path }
        captures += ["android-lock-pairing.btsnoop", "android-pongbot.btsnoop", "btmon-monitor.btsnoop",
                     "smartwatch-h4-phdr.pcapng"].map(Self.shared)

        var links = 0, withCredits = 0, lostLinks = 0
        for capture in captures {
            let db = directory.appendingPathComponent(URL(fileURLWithPath: capture).lastPathComponent + ".db").path
            _ = try Importer.importCaptures([capture], into: db)
            let store = try TimelineStore(path: db)
            let cache = CompletionEvents(db: store.database, captureID: 1)
            let none = CompletionEvents(db: store.database, captureID: 1, capacity: 0)
            // Asked backwards (the last link first), so the cache grows at both ends.
            var facts: [ConnectionFacts] = []
            try CaptureConnections(captureID: 1, db: store.database).forEach { facts.append($0) }
            for c in facts.reversed() {
                let end = c.lastPacketID + 1
                let read = try AcknowledgedPackets(c, before: end, db: store.database, captureID: 1, completions: cache)
                let scanned = try AcknowledgedPackets(c, before: end, db: store.database, captureID: 1, completions: none)
                #expect(Self.fields(read) == Self.fields(scanned), "\(capture) connection \(c.id)")
                links += 1
                if scanned.credits > 0 { withCredits += 1 }
                if c.disconnectReason == 0x08 { lostLinks += 1 }
            }
        }
        // The comparison saw links with credits and links lost to a supervision timeout.
        #expect(withCredits >= 20)
        #expect(lostLinks >= 10)
        #expect(links >= 40)
    }

    /// The entries of a range are the same however the cache came to hold it.
    @Test func aRangeReadsTheSameAskedInAnyOrder() throws {
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent("completion-ranges-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: directory) }
        let capture = directory.appendingPathComponent("lost-at-end.btsnoop").path
        try BlegenSessions.script("make_bench_capture.py", [capture, "--profile", "att-heavy", "--records", "5000", "--lost-at-end"])
        let db = directory.appendingPathComponent("t.db").path
        _ = try Importer.importCaptures([capture], into: db)
        let store = try TimelineStore(path: db)
        let handles = try store.database.rows("SELECT DISTINCT handle FROM connection").compactMap { $0[0].int }
        let grown = CompletionEvents(db: store.database, captureID: 1)
        for range in [2000..<3000, 100..<500, 4000..<5100, 1..<5100] {
            for handle in handles {
                let fresh = try CompletionEvents(db: store.database, captureID: 1)
                    .entries(controller: 0, handle: handle, frames: range)?.map(Self.fields)
                let cached = try grown.entries(controller: 0, handle: handle, frames: range)?.map(Self.fields)
                #expect(fresh != nil && fresh == cached, "handle \(handle) frames \(range)")
            }
        }
        let all = try grown.entries(controller: 0, handle: handles.first ?? 0, frames: 1..<5100) ?? []
        #expect(!all.isEmpty)
        #expect(all.map(\.frame) == all.map(\.frame).sorted())
        // Past its capacity the cache answers nil: the caller scans.
        #expect(try CompletionEvents(db: store.database, captureID: 1, capacity: 3)
            .entries(controller: 0, handle: handles.first ?? 0, frames: 1..<5100) == nil)
    }

    /// `../shared/captures/NAME` beside the project.
    static func shared(_ name: String) -> String {
        URL(fileURLWithPath: #filePath).deletingLastPathComponent()
            .appendingPathComponent("../../../shared/captures/\(name)").standardized.path
    }

    static func fields(_ a: AcknowledgedPackets) -> String {
        "\(a.lastAcknowledged.map { "\($0.frame) \($0.ts) \($0.summary)" } ?? "-") "
            + "\(a.lastCredit.map { "\($0.frame) \($0.ts)" } ?? "-") \(a.outstanding.map(\.frame)) \(a.credits) \(a.unmatchedCredits)"
    }

    static func fields(_ e: CompletionEvents.Entry) -> String { "\(e.frame) \(e.ts) \(e.controller) \(e.handle) \(e.count)" }
}
