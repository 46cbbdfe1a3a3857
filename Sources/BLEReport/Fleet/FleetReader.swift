#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif
import BLECore
import BLEAnalysis
import BLETimeline
import Synchronization

/// Reads many inputs for the fleet report: captures are imported in parallel, each into a
/// timeline of its own in a private temporary directory, analysed, reduced to `CaptureFacts`
/// and deleted; timeline files are opened in place (and analysed when their analysis is stale).
public enum FleetReader {
    public struct Options: Sendable {
        /// Inputs read at the same time.
        public var jobs: Int
        /// Progress lines on stderr (shown only when stderr is a terminal).
        public var progress: Bool
        /// Also load each capture's transactions and findings (`CaptureDetails`).
        public var details: Bool
        public init(jobs: Int = WorkerPool.processorCount, progress: Bool = false, details: Bool = false) {
            self.jobs = jobs
            self.progress = progress
            self.details = details
        }
    }

    /// Everything read: one outcome per input (given order), the captures counted.
    public struct Result: Sendable {
        public var outcomes: [InputOutcome]
        public var captures: [CaptureFacts]
    }

    public struct Failure: Error, CustomStringConvertible {
        public var message: String
        public var description: String { message }
    }

    /// Reads `arguments` (files and directories).
    public static func read(_ arguments: [String], options: Options = .init()) throws(Failure) -> Result {
        let expansion = ReportInputs.expand(arguments)
        let files = expansion.files
        let scratch = try temporaryDirectory()
        let directory = scratch.path
        defer { scratch.remove() }
        let progress = ProgressLine(enabled: options.progress && StandardStreams.isTerminal(2), total: files.count)
        let timelines = ScratchTimelines()
        let results = WorkerPool.map(count: files.count, jobs: options.jobs) { index in
            let path = files[index]
            let result = readOne(path, scratch: "\(directory)/\(index).db", timelines: timelines, details: options.details)
            progress.step(path)
            return result
        }
        progress.finish()
        var outcomes = expansion.problems
        var captures: [CaptureFacts] = []
        var seen: [String: (label: String, index: Int)] = [:]
        // In path order, not argument order: which copy of a capture is counted, and whose phone
        // identity wins a conflict, must not depend on how the inputs were listed.
        let ordered = results.sorted { Array($0.0.path.utf8).lexicographicallyPrecedes(Array($1.0.path.utf8)) }
        for (outcome, facts) in ordered {
            var outcome = outcome
            var counted = 0
            for f in facts {
                if let first = seen[f.sha256] {
                    var note = InputOutcome.sameCaptureNote(f.label, countedFrom: first.label)
                    if let phone = f.phone {
                        let kept = captures[first.index].phone ?? PhoneIdentity()
                        switch kept.merging(phone) {
                        case .unchanged: break
                        case .added(let merged):
                            captures[first.index].phone = merged
                            note += "; phone identity added from \(f.input)"
                        case .conflict:
                            note += "; its phone \(phone.summary) differs from \(kept.summary), kept that"
                        }
                    }
                    outcome.warnings.append(note)
                    continue
                }
                seen[f.sha256] = (f.label, captures.count)
                captures.append(f)
                counted += 1
            }
            outcome.captures = counted
            if counted == 0 && !facts.isEmpty {
                outcome.status = .duplicate
                outcome.reason = InputOutcome.duplicateReason(countedFrom: seen[facts[0].sha256]?.label ?? "another input")
            }
            outcomes.append(outcome)
        }
        dropShorterCopies(&captures, outcomes: &outcomes)
        outcomes.sort { Array($0.path.utf8).lexicographicallyPrecedes(Array($1.path.utf8)) }
        return Result(outcomes: outcomes, captures: captures)
    }

    /// Leaves out each capture whose bytes begin another one read with it (`ShorterCopies`: a log
    /// copied while written, and again later), as the same capture given twice is: its input
    /// says so, and is `duplicate` when nothing else of it is counted.
    static func dropShorterCopies(_ captures: inout [CaptureFacts], outcomes: inout [InputOutcome]) {
        let extendedBy = ShorterCopies.find(captures)
        guard !extendedBy.isEmpty else { return }
        for (i, j) in extendedBy.sorted(by: { $0.key < $1.key }) {
            let shorter = captures[i], longer = captures[j].label
            if let phone = shorter.phone, case .added(let merged) = (captures[j].phone ?? PhoneIdentity()).merging(phone) {
                captures[j].phone = merged
            }
            guard let k = outcomes.firstIndex(where: { $0.path == shorter.input }) else { continue }
            outcomes[k].captures -= 1
            outcomes[k].warnings.append(InputOutcome.shorterCopyNote(shorter.label, longer: longer))
            if outcomes[k].captures == 0 {
                outcomes[k].status = .duplicate
                outcomes[k].reason = InputOutcome.duplicateReason(countedFrom: longer)
            }
        }
        captures = captures.indices.filter { extendedBy[$0] == nil }.map { captures[$0] }
    }

    /// Reads one file: a timeline in place, or a capture through a scratch timeline.
    ///
    /// `scratch` is a file name the capture may be imported into (it is deleted afterwards), and
    /// `timelines` the in-memory scratch timelines of the caller's jobs; the warehouse's ingest
    /// reads its inputs one by one through here, as the report does.
    public static func readOne(_ path: String, scratch: String, timelines: ScratchTimelines,
                               details: Bool = false) -> (InputOutcome, [CaptureFacts]) {
        guard access(path, R_OK) == 0 else {
            return (.failed(path, reason: "\(path): \(String(cString: strerror(errno)))"), [])
        }
        if TimelineSource.isTimelineFile(path) {
            return readTimeline(path, details: details)
        }
        return readCapture(path, scratch: scratch, timelines: timelines, details: details)
    }

    static func readTimeline(_ path: String, details: Bool) -> (InputOutcome, [CaptureFacts]) {
        var outcome = InputOutcome(path: path, kind: "timeline", status: .read, reason: nil, warnings: [],
                                   formatDescription: "blereplay timeline", captures: 0)
        do {
            let store = try TimelineStore(path: path)
            try Analyzer.analyze(store)
            let facts = try CaptureFactsLoader.load(store, input: path, details: details)
            release(store)
            if facts.isEmpty {
                return (.failed(path, reason: "\(path): the timeline holds no capture"), [])
            }
            for f in facts where f.status != "complete" {
                outcome.status = .partial
                outcome.warnings.append("\(f.captureName): \(f.status)")
            }
            return (outcome, facts)
        } catch {
            outcome.status = .failed
            outcome.reason = "\(error)"
            return (outcome, [])
        }
    }

    /// Captures up to this size are read through a scratch timeline in memory, larger ones through
    /// a scratch file, so memory stays bounded however large the inputs (a 4 MiB btsnoop is about
    /// 80k records, some 20 MB of rows without raw bytes).
    static let inMemoryLimit = 4 << 20

    static func readCapture(_ path: String, scratch: String, timelines: ScratchTimelines, details: Bool) -> (InputOutcome, [CaptureFacts]) {
        var outcome = InputOutcome(path: path, kind: "capture", status: .read, reason: nil, warnings: [],
                                   formatDescription: nil, captures: 0)
        var st = stat()
        let inMemory = stat(path, &st) == 0 && Int(st.st_size) <= inMemoryLimit
        var facts: [CaptureFacts] = []
        let results: [CaptureImportResult]
        do {
            // The scratch timeline is this process's alone: no lock, no file moved into place.
            // Without details the report reads no findings and, of the packet rows, only the few
            // `TimelineWriter+ReferencedPackets` keeps: neither is made (the ingest asks for details).
            let analyse: (TimelineStore) throws -> Void = { store in
                try Analyzer.analyze(store, findings: details)
                facts = try CaptureFactsLoader.load(store, input: path, details: details)
            }
            var options = ImportOptions(keepRaw: false)
            options.referencedPacketRowsOnly = !details
            if inMemory, let store = timelines.take() {
                // Emptied and given back whatever happened, for the next capture: its schema and
                // prepared statements are made once per job, not once per capture.
                defer { timelines.giveBack(store) }
                results = try Importer.importCaptures([path], intoScratchStore: store, name: path,
                                                      options: options, postProcess: analyse)
            } else {
                unlink(scratch)
                defer {
                    // Emptied before it is unlinked: a descriptor left open (see `release`) would
                    // otherwise keep its blocks in use until the process ends.
                    truncate(scratch, 0)
                    unlink(scratch)
                }
                results = try Importer.importCaptures([path], intoScratch: scratch, options: options) { store in
                    try analyse(store)
                    release(store)
                }
            }
        } catch {
            return (.failed(path, reason: error.description), [])
        }
        guard let first = results.first else { return (.failed(path, reason: "\(path): not read"), []) }
        // A bugreport zip gives one result per log in it: the input is as good as its worst capture.
        outcome.formatDescription = first.formatDescription
        outcome.warnings = results.flatMap(\.warnings)
        if results.contains(where: { $0.path != path }) { outcome.kind = "bugreport" }
        let reasons = results.compactMap(\.error)
        if results.allSatisfy({ $0.status == .failed }) {
            outcome.status = .failed
            outcome.reason = reasons.isEmpty ? "\(path): cannot be read" : reasons.joined(separator: "; ")
            return (outcome, [])
        }
        if results.contains(where: { $0.status == .partial || $0.status == .failed }) {
            outcome.status = .partial
            outcome.reason = reasons.joined(separator: "; ")
        } else if outcome.warnings.count > results.reduce(0, { $0 + $1.notes }) {
            // A reader's note on how it read a file (`notes`) loses nothing: the input was read.
            outcome.status = .partial
        }
        return (outcome, facts)
    }

    /// Gives back the memory SQLite holds for a timeline that is no longer needed.
    ///
    /// A `TimelineStore` is not freed when the last reference goes (its `SQLiteDatabase` and
    /// cached statements refer to each other), so its page cache would stay allocated for the
    /// rest of the run; over hundreds of captures that adds up.
    static func release(_ store: TimelineStore) {
        try? store.database.execute("PRAGMA cache_size = 0; PRAGMA shrink_memory;")
    }

    /// Raises the soft limit on open files to the hard limit.
    ///
    /// Until BLETimeline's `SQLiteDatabase` breaks the reference cycle between a connection and
    /// its cached statements, every imported timeline keeps its SQLite file open until the
    /// process ends, so a report over more captures than the soft limit (often 1024) would run
    /// out of descriptors. Returns the limit in force afterwards.
    @discardableResult
    public static func raiseOpenFileLimit() -> Int {
        var limit = rlimit()
        guard getrlimit(Int32(RLIMIT_NOFILE.rawValue), &limit) == 0 else { return 0 }
        if limit.rlim_cur < limit.rlim_max {
            limit.rlim_cur = limit.rlim_max
            _ = setrlimit(Int32(RLIMIT_NOFILE.rawValue), &limit)
            _ = getrlimit(Int32(RLIMIT_NOFILE.rawValue), &limit)
        }
        return Int(clamping: limit.rlim_cur)
    }

    /// A private directory for the scratch timelines under `$TMPDIR` or /tmp (`TemporaryDirectory`:
    /// the directory of a report that was killed is removed by the next one).
    public static func temporaryDirectory() throws(Failure) -> TemporaryDirectory {
        do {
            return try TemporaryDirectory(prefix: "blereplay-report")
        } catch {
            throw Failure(message: "cannot create a temporary directory: \(error)")
        }
    }
}

/// `[12/200] path` on stderr while inputs are read; only on a terminal.
final class ProgressLine: Sendable {
    let enabled: Bool
    let total: Int
    let done = Mutex(0)

    init(enabled: Bool, total: Int) {
        self.enabled = enabled
        self.total = total
    }

    func step(_ path: String) {
        guard enabled else { return }
        let n = done.withLock { count in
            count += 1
            return count
        }
        StandardStreams.write("\r\u{1B}[K[\(n)/\(total)] \(TextFormat.printable(path))", to: 2)
    }

    func finish() {
        guard enabled else { return }
        StandardStreams.write("\r\u{1B}[K", to: 2)
    }
}

/// In-memory scratch timelines for small captures, one per job at most, each used for capture
/// after capture: emptied (`TimelineStore.removeAllRows`) between two, so each capture is read
/// as into a new timeline, without creating the schema and preparing the statements again.
public final class ScratchTimelines: Sendable {
    public init() {}

    /// A store moves between jobs only through `idle`, used by one job at a time.
    private struct Entry: @unchecked Sendable { let store: TimelineStore }
    private let idle = Mutex<[Entry]>([])

    /// An idle store, or a new one; nil when none can be made (the caller uses a file instead).
    func take() -> TimelineStore? {
        if let entry = idle.withLock({ $0.popLast() }) { return entry.store }
        return try? TimelineStore(path: ":memory:")
    }

    /// Empties `store` for the next capture; one that cannot be emptied is dropped.
    func giveBack(_ store: TimelineStore) {
        guard (try? store.removeAllRows()) != nil else { return }
        let entry = Entry(store: store)
        idle.withLock { $0.append(entry) }
    }
}
