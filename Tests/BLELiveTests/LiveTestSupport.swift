import Foundation
import Testing
import BLECore
import BLECapture
import BLETimeline
@testable import BLELive

/// Shared helpers: real captures from ../shared/captures, their records and raw record bytes,
/// temporary directories, and timeline comparisons.
enum Live {
    /// The package root (three levels above this file).
    static let packageRoot = URL(fileURLWithPath: #filePath).deletingLastPathComponent()
        .deletingLastPathComponent().deletingLastPathComponent()

    /// `../shared/captures/NAME` beside the project.
    static func capture(_ name: String) -> String {
        packageRoot.deletingLastPathComponent().appendingPathComponent("shared/captures/\(name)").path
    }

    /// Every btsnoop capture the recorder must handle (H4 from Android, Linux monitor from btmon).
    static let btsnoopCaptures = ["android-pongbot.btsnoop", "android-lock-pairing.btsnoop", "android-yeelock.btsnoop",
                                  "android-classic-spp.btsnoop", "android-lock-long-session.btsnoop", "btmon-monitor.btsnoop"]

    /// Records as BLECapture's reader returns them.
    static func records(_ path: String) throws -> [CaptureRecord] {
        var reader = try CaptureFile.open(path)
        var out: [CaptureRecord] = []
        while let r = try reader.next() { out.append(r) }
        return out
    }

    /// A btsnoop file split into its 16-byte header and each record's bytes (header + packet).
    static func btsnoopChunks(_ path: String) throws -> (header: [UInt8], records: [[UInt8]]) {
        let bytes = [UInt8](try Data(contentsOf: URL(fileURLWithPath: path)))
        var records: [[UInt8]] = []
        var i = 16
        while i + 24 <= bytes.count {
            let included = bytes[(i + 4)..<(i + 8)].reduce(0) { $0 << 8 | Int($1) }
            guard i + 24 + included <= bytes.count else { break }
            records.append(Array(bytes[i..<(i + 24 + included)]))
            i += 24 + included
        }
        return (Array(bytes[0..<16]), records)
    }

    /// Raw H4 (type byte + packet, no btsnoop framing) of an H4 btsnoop capture.
    static func rawH4(_ path: String) throws -> [UInt8] {
        try btsnoopChunks(path).records.flatMap { $0.dropFirst(24) }
    }

    /// A fresh temporary directory.
    static func temporaryDirectory() -> String {
        let url = FileManager.default.temporaryDirectory.appendingPathComponent("blelive-test-\(UUID().uuidString)")
        try? FileManager.default.createDirectory(at: url, withIntermediateDirectories: true)
        return url.path
    }

    /// The fields a record is compared by (CaptureRecord is not Equatable).
    struct RecordKey: Equatable, CustomStringConvertible {
        var frame: Int, timestamp: Int64, direction: Direction, kind: PacketKind, payload: [UInt8]
        var offset: Int, originalLength: Int, index: UInt16, drops: UInt32, rawType: UInt16
        init(_ r: CaptureRecord, timestamp: Bool = true) {
            frame = r.frameNumber
            self.timestamp = timestamp ? r.timestamp : 0
            direction = r.direction
            kind = r.kind
            payload = r.payload
            offset = r.fileOffset
            originalLength = r.originalLength
            index = r.controllerIndex
            drops = r.cumulativeDrops
            rawType = r.rawType
        }
        var description: String { "#\(frame) \(kind) \(direction) @\(offset) len \(originalLength) type \(rawType) \(payload.prefix(8))" }
    }

    /// Runs a recording in this process until the source ends or is idle.
    static func record(_ source: any LiveSource, _ options: RecordingOptions, untilIdleMilliseconds: Int? = 1500,
                       notices: NoticeLog = NoticeLog()) throws -> RecordingSummary {
        let sink = try RecordingSink(options: options, sourceName: source.name, observeTraffic: true)
        return LiveRecorder.run(source: source, sink: sink, stop: StopFlag(), untilIdleMilliseconds: untilIdleMilliseconds) {
            notices.append($0)
        }
    }

    /// Notices a recording printed.
    final class NoticeLog {
        private(set) var lines: [String] = []
        func append(_ line: String) { lines.append(line) }
    }

    /// The rows of `sql` in a timeline.
    static func rows(_ path: String, _ sql: String) throws -> [[SQLiteValue]] {
        try SQLiteDatabase(path: path, readOnly: true).rows(sql)
    }

    /// The queries on which a recording's timeline must equal the import of its btsnoop file:
    /// the user-facing views, plus the packet columns the views leave out.
    static let comparedQueries = [
        "SELECT frame, ts_us, direction, kind, length, layer, summary, connection_id, file_offset, controller_index, raw_type, malformed, raw FROM packet ORDER BY frame",
        "SELECT * FROM packets ORDER BY id",
        "SELECT * FROM adv_reports ORDER BY packet_id, address",
        "SELECT * FROM connections ORDER BY id",
        "SELECT * FROM att_pdus ORDER BY packet_id, opcode",
        "SELECT * FROM att_transactions ORDER BY request_packet_id",
        "SELECT * FROM gatt_services ORDER BY connection_id, start_handle",
        "SELECT * FROM gatt_characteristics ORDER BY connection_id, declaration_handle",
        "SELECT * FROM errors ORDER BY packet_id, layer, code",
        "SELECT * FROM smp_events ORDER BY packet_id",
        "SELECT * FROM findings ORDER BY connection_id, code, title",
        "SELECT records, first_ts_us, last_ts_us, malformed_packets, dropped_packets, link_type FROM capture",
    ]

    /// Imports `capture` into a new timeline (with the analysis, as `blereplay import` does).
    static func importTimeline(_ capture: String, into db: String) throws {
        let results = try Importer.importCaptures([capture], into: db) { store in
            try BLEAnalysisBridge.analyze(store)
        }
        #expect(results.first?.status == .imported)
    }
}

import BLEAnalysis

/// The analysis the recorder runs at the end, run the same way after an import.
enum BLEAnalysisBridge {
    static func analyze(_ store: TimelineStore) throws { try Analyzer.analyze(store) }
}
