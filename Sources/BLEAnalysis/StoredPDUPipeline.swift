import Dispatch
import BLECore
import BLETimeline

/// A capture's stored ATT PDUs, read ahead connection by connection on another thread through a
/// read-only connection of its own, while the caller matches them and writes the transactions and
/// GATT databases (issue 12: reading them back was half the analysis's first pass, on one core of two).
///
/// Only for an import's own timeline (`ParallelFindings.forStore`): the reader holds its read
/// transaction for the whole pass, so the caller's connection cannot spill pages into the file
/// meanwhile (a spill needs the file to itself), and must not commit until `finish()` has let the
/// reader go. So the caller's cache does not spill during the pass (`PRAGMA cache_spill = OFF`,
/// back on in `finish()`): when its pages outgrew the cache, SQLite waited for the reader's lock,
/// the busy timeout (30 s) at every page, while the reader waited for the caller to take its
/// next batch. SQLite applies that pragma to a connection only outside a transaction, so the
/// caller's transaction is committed and begun again around the pass, as the findings' is
/// (`Analyzer.storeFindings`): the file is the import's own, and the analysis is marked done
/// only at its end (`analysis_state`). That cache grows with what the pass writes, so
/// the pipeline is used only up to `pduLimit` stored PDUs (a few MB of transactions), and the
/// PDUs in flight are bounded (`batchPDUs`, `batchBytes`, the channel's slots). The PDUs, their
/// order and so everything the pass stores are the same as `StoredATTPDU.forEach` gives
/// (`ParallelFindingsTests`).
final class StoredPDUPipeline {
    enum Message: Sendable {
        case pdus(connection: Int64, [StoredATTPDU])
        case connectionEnd(Int64)
        case failed(String)
        case end
    }

    /// Captures with more stored ATT PDUs are read on the caller's thread: the transactions the
    /// pass writes meanwhile stay in SQLite's cache.
    static let pduLimit: Int64 = 400_000
    static let batchPDUs = 256
    static let batchBytes = 256 << 10
    private let channel = BoundedChannel<Message>(capacity: 8)
    private let cancelled = Flag()
    private var ended = false

    /// A pipeline over `captureID`'s connections when `readers` allows reading on other threads
    /// and the capture's stored PDUs are within `pduLimit`; nil otherwise.
    static func start(captureID: Int64, readers: ParallelFindings?, db: SQLiteDatabase) throws -> StoredPDUPipeline? {
        guard let readers else { return nil }
        // All the timeline's stored PDUs (rowids from 1), the capture's at most: no pass over them.
        let stored = try db.scalarInt("SELECT coalesce(max(rowid), 0) FROM att_pdu") ?? 0
        guard stored > 0, stored <= pduLimit else { return nil }
        try Self.settingCacheSpill(false, on: db)
        return StoredPDUPipeline(path: readers.path, captureID: captureID, writer: db)
    }

    /// The caller's connection, whose cache spills again once the reader is gone.
    private let writer: SQLiteDatabase
    private var spillRestored = false

    private init(path: String, captureID: Int64, writer: SQLiteDatabase) {
        self.writer = writer
        let channel = self.channel
        let cancelled = self.cancelled
        DispatchQueue.global(qos: .userInitiated).async {
            if let failure = Self.read(path: path, captureID: captureID, channel: channel, cancelled: cancelled) {
                channel.send(.failed(failure))
            }
            // The reader's connection is closed by now: the caller may commit.
            channel.send(.end)
        }
    }

    /// Reads every connection's PDUs in id order into `channel`; the failure's text, if any.
    private static func read(path: String, captureID: Int64, channel: BoundedChannel<Message>, cancelled: Flag) -> String? {
        do {
            let db = try SQLiteDatabase(path: path, readOnly: true)
            try db.execute("BEGIN")
            defer { try? db.execute("COMMIT") }
            let ids = try db.rows("SELECT id FROM connection WHERE capture_id = ?1 ORDER BY id", [.integer(captureID)])
                .compactMap { $0[0].int64 }
            for id in ids {
                if cancelled.isSet { return nil }
                var batch: [StoredATTPDU] = []
                var bytes = 0
                try StoredATTPDU.forEach(connection: id, in: db) { pdu in
                    batch.append(pdu)
                    bytes += pdu.bytes.count
                    if batch.count == batchPDUs || bytes >= batchBytes {
                        channel.send(.pdus(connection: id, batch))
                        batch.removeAll(keepingCapacity: true)
                        bytes = 0
                    }
                }
                if !batch.isEmpty { channel.send(.pdus(connection: id, batch)) }
                channel.send(.connectionEnd(id))
            }
            return nil
        } catch {
            return "\(error)"
        }
    }

    /// Calls `body` with connection `id`'s PDUs in packet order, as `StoredATTPDU.forEach` does;
    /// the connections must be asked for in id order, each once.
    func forEach(connection id: Int64, _ body: (StoredATTPDU) throws -> Void) throws {
        while true {
            switch channel.receive() {
            case .pdus(let connection, let list):
                guard connection == id else { throw Failure(message: "ATT PDUs of connection \(connection) read ahead of \(id)") }
                for pdu in list { try body(pdu) }
            case .connectionEnd(let connection):
                guard connection == id else { throw Failure(message: "ATT PDUs of connection \(connection) read ahead of \(id)") }
                return
            case .failed(let message):
                throw Failure(message: "reading the ATT PDUs back: \(message)")
            case .end:
                ended = true
                throw Failure(message: "reading the ATT PDUs back: no PDUs for connection \(id)")
            }
        }
    }

    /// Stops the reader and waits until its connection is closed, then lets the caller's cache
    /// spill again; idempotent. In a transaction, what the pass wrote is committed, or with
    /// `keeping` false (the pass failed) rolled back, and a new transaction begun.
    func finish(keeping: Bool = true) throws {
        cancelled.set()
        while !ended {
            if case .end = channel.receive() { ended = true }
        }
        guard !spillRestored else { return }
        spillRestored = true
        try Self.settingCacheSpill(true, on: writer, keeping: keeping)
    }

    /// `PRAGMA cache_spill`, which SQLite applies to a connection only outside a transaction: an
    /// open one is ended (committed, or rolled back unless `keeping`) and a new one begun.
    private static func settingCacheSpill(_ on: Bool, on db: SQLiteDatabase, keeping: Bool = true) throws {
        let pragma = "PRAGMA cache_spill = \(on ? "ON" : "OFF");"
        try db.execute(db.inTransaction ? "\(keeping ? "COMMIT" : "ROLLBACK"); \(pragma) BEGIN IMMEDIATE" : pragma)
    }

    struct Failure: Error, CustomStringConvertible {
        var message: String
        var description: String { message }
    }
}
