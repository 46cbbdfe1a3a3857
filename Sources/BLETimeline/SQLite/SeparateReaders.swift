#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

extension SQLiteDatabase {
    /// Whether another connection to this file reads what this connection's own transaction
    /// reads: a file (not `:memory:`), not in WAL mode, where a writer may commit while this
    /// connection reads an older snapshot. The replay's loader and the import's findings read on
    /// several threads, each through a connection of its own, only then.
    public func separateReadersSeeOneState() throws -> Bool {
        guard !path.isEmpty, path != ":memory:", access(path, R_OK) == 0 else { return false }
        return try rows("PRAGMA journal_mode").first?.first?.string?.lowercased() != "wal"
    }
}
