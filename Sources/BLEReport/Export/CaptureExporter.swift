#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif
import BLECore
import BLECapture
import BLETimeline

/// Writes a timeline's packets back out as a capture from the raw bytes kept at import:
/// btsnoop v1 datalink 1002 (H4) or pcap LINKTYPE 201 (H4 with a direction header), or pcap
/// LINKTYPE 187 (H4 without direction) for a capture whose data packets have no direction.
///
/// Direction: a capture read from pcap LINKTYPE 187 or recorded from raw H4 knows the direction
/// of commands (sent) and events (received) only; its ACL, SCO and ISO packets are unknown
/// (`?`). When no data packet has a known direction, pcap goes out as LINKTYPE 187, which says
/// exactly that. Otherwise (btsnoop, which has no "unknown" flag; a capture mixing known and
/// unknown data directions; the monitor forms) an unknown-direction data packet is written as
/// sent, and `ExportSummary.unknownWrittenAsSent` counts them so the command can say so.
///
/// Records keep their timestamp, direction, kind and original length; notes and `other`
/// records are left out (H4 has no type byte for them), and `ExportSummary.leftOut` counts
/// them per kind so the command can say so. Importing the export gives the same packets, ATT
/// PDUs and errors; exporting that again gives the same bytes.
///
/// A capture whose packets come from more than one controller (a `btmon -w` file of a machine
/// with two adapters) cannot be H4: H4 has no controller index, and the controllers' handles
/// would collide. It is written in the Linux monitor form instead, btsnoop datalink 2001 or pcap
/// LINKTYPE 254 (REFERENCE.md: index in the flags' upper half / a 2-byte adapter id), which
/// keeps the index and the monitor notes.
public enum CaptureExporter {
    public enum Format: String, Sendable, CaseIterable {
        case btsnoop, pcap
    }

    public struct Failure: Error, CustomStringConvertible {
        /// True when the cause is the command line (choose a capture), not the data.
        public var isUsage: Bool
        public var message: String
        public var description: String { message }
    }

    /// The captures of a timeline, for `--capture` and its error message.
    public static func captureList(_ store: TimelineStore) throws -> [(id: Int64, name: String, rawKept: Bool)] {
        try store.database.rows("SELECT id, file_name, raw_kept FROM capture ORDER BY id").compactMap { row in
            guard let id = row[0].int64 else { return nil }
            return (id, row[1].string ?? "", row[2].int == 1)
        }
    }

    /// The capture to export: `requested`, or the only one.
    public static func choose(_ store: TimelineStore, requested: Int64?) throws -> Int64 {
        let list = try captureList(store)
        if let requested {
            guard list.contains(where: { $0.id == requested }) else {
                throw Failure(isUsage: true, message: "\(store.path): no capture \(requested); the timeline holds " + describe(list))
            }
            return requested
        }
        guard list.count == 1, let only = list.first else {
            throw Failure(isUsage: list.count > 1, message: list.isEmpty ? "\(store.path): the timeline holds no capture"
                          : "\(store.path): the timeline holds \(list.count) captures; choose one with --capture ID: " + describe(list))
        }
        return only.id
    }

    static func describe(_ list: [(id: Int64, name: String, rawKept: Bool)]) -> String {
        list.map { "\($0.id) \($0.name)" }.joined(separator: ", ")
    }

    /// What an export wrote and what it could not.
    public struct ExportSummary: Sendable, Equatable {
        /// Records written.
        public var written: Int
        /// True when written in the Linux monitor form (several controllers), not H4.
        public var monitor: Bool
        /// Records of the capture the output cannot carry, per kind, in `PacketKind` order.
        public var leftOut: [LeftOut]
        /// Records written at the nearest time the output holds, not their own (pcap: before 1970 or after 2106).
        public var timesClamped = 0
        /// True when written as pcap LINKTYPE 187 (H4 without direction).
        public var withoutDirection = false
        /// ACL, SCO and ISO records of unknown direction written as sent (the output has no
        /// "unknown" direction for them), per kind, in `PacketKind` order.
        public var unknownWrittenAsSent: [LeftOut] = []

        public struct LeftOut: Sendable, Equatable {
            public var kind: PacketKind
            public var count: Int
        }

        /// All records left out.
        public var leftOutTotal: Int { leftOut.reduce(0) { $0 + $1.count } }
    }

    /// Exports one capture; says how many records were written and which were left out.
    @discardableResult
    public static func export(_ store: TimelineStore, captureID: Int64, format: Format, to path: String) throws -> ExportSummary {
        let db = store.database
        guard try db.scalarInt("SELECT raw_kept FROM capture WHERE id = ?1", [.integer(captureID)]) == 1 else {
            throw Failure(isUsage: false, message:
                "\(store.path): capture \(captureID) was imported with --no-raw: its packets' bytes were not kept, so it cannot be exported (import the capture again without --no-raw)")
        }
        // Air captures (sniffers: LINKTYPE 251, 256, 272) hold radio frames, stored as `other`:
        // there is no HCI record to write, and an empty capture would look like a success.
        let hci = try db.scalarInt("SELECT count(*) FROM packet WHERE \(PacketKey.inCapture("?1")) AND kind NOT IN ('note', 'other')",
                                   [.integer(captureID)]) ?? 0
        if hci == 0 {
            let format = try db.rows("SELECT format_description FROM capture WHERE id = ?1", [.integer(captureID)]).first?[0].string ?? "?"
            throw Failure(isUsage: false, message:
                "\(store.path): capture \(captureID) (\(format)) has no HCI packets to write (an air capture holds link-layer frames, which have no H4 form); --format trace exports it")
        }
        let monitor = try db.scalarInt(
            "SELECT count(DISTINCT controller_index) FROM packet WHERE \(PacketKey.inCapture("?1")) AND kind NOT IN ('note', 'other')",
            [.integer(captureID)]) ?? 0 > 1
        // Data packets (not commands, events, notes) by whether their direction is known.
        var unknownData: [PacketKind: Int] = [:]
        var knownData = 0
        for row in try db.rows("""
            SELECT kind, direction = '?', count(*) FROM packet
            WHERE \(PacketKey.inCapture("?1")) AND kind NOT IN ('cmd', 'evt', 'note', 'other') GROUP BY 1, 2
            """, [.integer(captureID)]) {
            let count = row[2].int ?? 0
            if row[1].int == 1 {
                unknownData[PacketKind(rawValue: row[0].string ?? "") ?? .other, default: 0] += count
            } else {
                knownData += count
            }
        }
        let withoutDirection = format == .pcap && !monitor && !unknownData.isEmpty && knownData == 0
        // Written beside the target and renamed into place (a killed export leaves a leftover
        // the next export to the same path removes).
        let temporary: TemporaryFile
        do {
            temporary = try TemporaryFile.beside(path)
        } catch {
            throw Failure(isUsage: false, message: error.description)
        }
        do {
            var leftOut: [PacketKind: Int] = [:]
            let count: Int
            var clamped = 0
            switch format {
            case .btsnoop:
                let writer = try BtsnoopWriter(path: temporary.path, datalink: monitor ? 2001 : 1002)
                try forEachRecord(db, captureID: captureID, keepNotes: monitor, leftOut: &leftOut) { r throws(CaptureError) in
                    let before = writer.recordsWritten
                    try writer.write(r)
                    return writer.recordsWritten > before
                }
                try writer.close()
                count = writer.recordsWritten
            case .pcap:
                let writer = try PcapWriter(path: temporary.path, linkType: monitor ? 254 : (withoutDirection ? 187 : 201))
                try forEachRecord(db, captureID: captureID, keepNotes: monitor, leftOut: &leftOut) { r throws(CaptureError) in
                    let before = writer.recordsWritten
                    try writer.write(r)
                    return writer.recordsWritten > before
                }
                try writer.close()
                count = writer.recordsWritten
                clamped = writer.timestampsClamped
            }
            do {
                try temporary.moveIntoPlace(path)
            } catch {
                throw Failure(isUsage: false, message: error.description)
            }
            return ExportSummary(written: count, monitor: monitor,
                                 leftOut: PacketKind.allCases.compactMap { kind in
                                     leftOut[kind].map { ExportSummary.LeftOut(kind: kind, count: $0) }
                                 }, timesClamped: clamped, withoutDirection: withoutDirection,
                                 unknownWrittenAsSent: withoutDirection ? [] : PacketKind.allCases.compactMap { kind in
                                     unknownData[kind].map { ExportSummary.LeftOut(kind: kind, count: $0) }
                                 })
        } catch {
            temporary.discard()
            throw error
        }
    }

    /// The stored packets of a capture as capture records, in frame order. `body` says whether
    /// it wrote the record; `leftOut` counts, per kind, the records skipped here or by `body`.
    static func forEachRecord(_ db: SQLiteDatabase, captureID: Int64, keepNotes: Bool = false, leftOut: inout [PacketKind: Int],
                              _ body: (CaptureRecord) throws(CaptureError) -> Bool) throws {
        let s = try db.prepare("""
            SELECT frame, ts_us, direction, kind, raw, length, controller_index, raw_type
            FROM packet WHERE \(PacketKey.inCapture("?1")) ORDER BY rowid
            """)
        try s.bind([.integer(captureID)])
        while try s.step() {
            let frame = s.int(0)
            let kind = PacketKind(rawValue: s.text(3) ?? "") ?? .other
            guard keepNotes || (kind != .note && kind != .other) else {
                leftOut[kind, default: 0] += 1
                continue
            }
            guard let payload = s.blob(4) else {
                throw Failure(isUsage: false, message: "\(db.path): packet \(frame) has no stored bytes; it cannot be exported")
            }
            let direction = Direction(rawValue: s.text(2) ?? "") ?? .unknown
            let written = try body(CaptureRecord(frameNumber: frame, timestamp: s.int64(1), direction: direction, kind: kind,
                                                 payload: payload, fileOffset: 0, originalLength: s.int(5),
                                                 controllerIndex: UInt16(truncatingIfNeeded: s.int(6)), rawType: UInt16(truncatingIfNeeded: s.int(7))))
            if !written { leftOut[kind, default: 0] += 1 }
        }
    }
}
