#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif
import BLECore

extension TimelineStore {
    /// Opens the timeline at `path` for a writer that appends to it while it runs (`record
    /// --db`), creating it first when it does not exist.
    ///
    /// The creation follows the import's rules: under the target's `FileLock`, decided after
    /// the lock is taken, written aside (`TemporaryFile`) and moved into place without
    /// replacing anything. Readers never see a half-made file, and an import or another
    /// recorder creating the same timeline at the same moment ends up writing into one file.
    /// `setUp` runs on the opened store while the lock is still held, so a writer that changes
    /// the journal mode or registers itself is not starved by imports taking turns on the file.
    public static func openCreating(_ path: String, journal: String = "WAL",
                                    setUp: (TimelineStore) throws -> Void = { _ in }) throws -> TimelineStore {
        if let kind = FileKind.nonRegular(path) { throw OpenError(path: path, message: notATimeline(kind)) }
        let lock: FileLock?
        do {
            lock = try FileLock.acquire(for: path)
        } catch {
            guard access(path, F_OK) == 0 else { throw OpenError(path: path, message: "cannot create the timeline: \(error.message)") }
            lock = nil
        }
        defer { lock?.release() }
        if access(path, F_OK) != 0 {
            let temporary: TemporaryFile
            do {
                temporary = try TemporaryFile.beside(path)
            } catch {
                throw OpenError(path: path, message: "cannot create the timeline: \(error.message)")
            }
            do {
                let fresh = try TimelineStore(path: temporary.path)
                try fresh.database.execute("PRAGMA journal_mode = \(journal)")
                try fresh.createIndexes()
            } catch let e as OpenError {
                temporary.discard()
                throw OpenError(path: path, message: e.message)
            } catch {
                temporary.discard()
                throw OpenError(path: path, message: "cannot create the timeline: \(error)")
            }
            do {
                try temporary.moveIntoPlace(path, replacing: false)
            } catch {
                // Someone who does not take the lock made it meanwhile: use theirs.
                temporary.discard()
                guard access(path, F_OK) == 0 else {
                    throw OpenError(path: path, message: "cannot create the timeline: \(error.message)")
                }
            }
        }
        let store = try TimelineStore(path: path)
        try setUp(store)
        return store
    }
}
