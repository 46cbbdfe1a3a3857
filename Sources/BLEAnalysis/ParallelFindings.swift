import BLECore
import Synchronization
import BLETimeline

/// Makes the connections' findings on `jobs` threads, each reading the timeline through a
/// read-only connection of its own, and hands them back in connection order (issue 12).
///
/// The findings of a connection are reads of what the import and the transaction matcher
/// stored, a few dozen queries each: on an import's timeline they were a third of the analysis,
/// on one core of two while the other idled. They depend on the connections before (only through
/// `EarlierConnections`, which each thread rebuilds from the facts) and on the capture's link
/// losses (`LinkLossOnsets`, made once before), so any thread can make any connection's.
///
/// Only for a timeline this process alone writes and reads (an import's new or scratch file,
/// `TimelineStore.analysisJobs`): the other threads see only what the caller committed, so the
/// caller commits before (`Analyzer.storeFindings`) and writes each chunk's findings in a
/// transaction of its own (`writing`), where the analysis is otherwise one transaction. The
/// findings, their order and the rows are the same as on one thread (`ParallelFindingsTests`).
struct ParallelFindings {
    /// The timeline file (`SQLiteDatabase.separateReadersSeeOneState`).
    let path: String
    let jobs: Int
    /// Runs the caller's writes of one chunk's findings (a transaction).
    let writing: (() throws -> Void) throws -> Void
    /// Connections made in one parallel pass: bounds the findings held before they are written
    /// (a few KB a connection; 2,048 at once were 8 MB more at the peak of a 3M-record import).
    var chunkSize = 256

    /// The readers for `store` when it qualifies: more than one job allowed (a private file), a
    /// file other connections see as the caller does.
    static func forStore(_ store: TimelineStore) -> ParallelFindings? {
        let db = store.database
        guard store.analysisJobs > 1, (try? db.separateReadersSeeOneState()) == true else { return nil }
        return ParallelFindings(path: db.path, jobs: store.analysisJobs, writing: { try db.transaction($0) })
    }

    /// Makes every connection's findings (`FindingsEngine.connectionFindings`) and hands
    /// `chunkDone` each chunk's, one list per connection, in id order.
    func run(_ connections: CaptureConnections, engine: FindingsEngine, losses: LinkLossOnsets,
             platform: CapturePlatform.Inference, _ chunkDone: ([[Finding]]) throws -> Void) throws {
        var earlier = EarlierConnections()
        // A reader a job, kept across the chunks (its connection, prepared statements, engine).
        let readers = Readers((0..<jobs).map { _ in
            Reader(path: path, captureID: engine.captureID, captureEnd: engine.captureEnd, attOverlaps: engine.attOverlaps)
        })
        try connections.forEachChunk(of: chunkSize) { chunk in
            readers.begin(after: earlier)
            let results = WorkerPool.map(count: chunk.count, jobs: jobs, state: { readers.take() }) { reader, i in
                reader.findings(chunk, at: i, losses: losses, platform: platform)
            }
            // The readers' transactions end before the caller writes (its commit needs the file).
            readers.end()
            try chunkDone(try results.map { try $0.get() })
            for c in chunk { earlier.add(c) }
        }
    }

    /// The readers of one run: each chunk, every reader opens a read transaction and starts from
    /// the connections before the chunk, and `WorkerPool`'s threads take one each.
    final class Readers: Sendable {
        private let all: [Reader]
        private let free = Mutex<[Reader]>([])

        init(_ readers: [Reader]) { all = readers }

        func begin(after earlier: EarlierConnections) {
            for reader in all { reader.begin(after: earlier) }
            free.withLock { $0 = all }
        }

        func take() -> Reader { free.withLock { $0.removeLast() } }

        func end() {
            for reader in all { reader.end() }
        }
    }

    /// One thread's engine on its own read-only connection, and the connections before the one it
    /// was last given. One thread uses it at a time: a `WorkerPool` thread during a chunk, the
    /// caller's between chunks, so it is handed across threads unchecked.
    final class Reader: @unchecked Sendable {
        private let engine: Result<FindingsEngine, any Error>
        private var earlier = EarlierConnections()
        /// The chunk index `earlier` has counted up to.
        private var counted = 0

        init(path: String, captureID: Int64, captureEnd: Int64, attOverlaps: [Int64: ATTRequestOverlaps]) {
            engine = Result {
                let db = try SQLiteDatabase(path: path, readOnly: true)
                var engine = try FindingsEngine(db: db, captureID: captureID, captureEnd: captureEnd)
                engine.attOverlaps = attOverlaps
                return engine
            }
        }

        /// A chunk's read transaction (outside one, SQLite takes and drops its lock around every
        /// statement), starting from the connections before the chunk.
        func begin(after earlier: EarlierConnections) {
            self.earlier = earlier
            counted = 0
            if case .success(let engine) = engine { try? engine.db.execute("BEGIN") }
        }

        func end() {
            if case .success(let engine) = engine { try? engine.db.execute("COMMIT") }
        }

        /// The findings of `chunk[i]`; a thread is given increasing indexes.
        func findings(_ chunk: [ConnectionFacts], at i: Int, losses: LinkLossOnsets,
                      platform: CapturePlatform.Inference) -> Result<[Finding], any Error> {
            while counted < i {
                earlier.add(chunk[counted])
                counted += 1
            }
            return Result { try engine.get().connectionFindings(chunk[i], earlier: earlier, losses: losses, platform: platform) }
        }
    }
}
