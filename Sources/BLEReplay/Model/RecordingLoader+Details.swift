#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif
import BLECore
import BLETimeline

extension RecordingLoader {
    /// At most this many connections are read in one parallel pass, so the copies in flight stay
    /// small on a capture of tens of thousands of links.
    static let detailsChunk = 8_192

    /// Reads every connection's ATT PDUs, pairing and encryption, and parameter updates
    /// (`loadDetails(_:_:clock:)`), in connection order.
    ///
    /// The connections are independent, so on a timeline file each of `WorkerPool`'s threads reads
    /// its share through a read-only connection of its own, while the caller's connection holds the
    /// read transaction that keeps the file as it was (issue 12: reading the PDUs was a third of a
    /// dense session's replay, on one core of two). A timeline in WAL mode (a live recording) is
    /// read on the caller's connection alone: there a new connection could see a later state of
    /// the file than the caller's transaction does. The result is the same either way.
    static func loadDetails(_ connections: inout [RecordedConnection], _ q: Statements, clock: RecordingClock,
                            jobs: Int) throws {
        let path = q.db.path
        guard jobs > 1, connections.count > 1, (try? q.db.separateReadersSeeOneState()) == true else {
            for i in connections.indices { try loadDetails(&connections[i], q, clock: clock) }
            return
        }
        var start = connections.startIndex
        while start < connections.endIndex {
            let end = min(connections.endIndex, start + detailsChunk)
            let chunk = Array(connections[start..<end])
            let pduSource = q.pduSource
            let loaded = WorkerPool.map(count: chunk.count, jobs: jobs, state: { DetailsReader(path: path, pduSource: pduSource) }) { reader, i in
                reader.load(chunk[i], clock: clock)
            }
            for (offset, result) in loaded.enumerated() { connections[start + offset] = try result.get() }
            start = end
        }
    }

    /// One worker's read-only connection to the timeline, with its prepared statements, inside
    /// one read transaction for its whole life: outside one, SQLite takes and drops its lock and
    /// looks for a hot journal around every statement (`load(_:)`, issue 17).
    final class DetailsReader {
        let statements: Result<Statements, any Error>

        /// - Parameter pduSource: where the long PDUs it reads are spilled to (`PDUBytes`), as the
        ///   caller's statements spill them.
        init(path: String, pduSource: PDUSource?) {
            do {
                let db = try SQLiteDatabase(path: path, readOnly: true)
                try db.execute("BEGIN")
                let statements = Statements(db)
                statements.pduSource = pduSource
                self.statements = .success(statements)
            } catch {
                statements = .failure(error)
            }
        }

        deinit {
            if case .success(let q) = statements { try? q.db.execute("COMMIT") }
        }

        func load(_ connection: RecordedConnection, clock: RecordingClock) -> Result<RecordedConnection, any Error> {
            do {
                var c = connection
                try RecordingLoader.loadDetails(&c, try statements.get(), clock: clock)
                return .success(c)
            } catch {
                return .failure(error)
            }
        }
    }
}
