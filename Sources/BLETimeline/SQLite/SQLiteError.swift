#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif
import CSQLite

/// An error from SQLite, with the statement or file it concerns and the plain cause.
///
/// `code` is the extended result code (sqlite.org/rescode.html), read with the message and the
/// operating-system errno (`sqlite3_system_errno`) right after the call that failed: reading
/// `sqlite3_errmsg` after a later call (a reset, a bind) gave "not an error".
public struct SQLiteError: Error, Sendable, CustomStringConvertible {
    /// The extended result code; `primaryCode` is its low byte.
    public var code: Int32
    public var message: String
    /// errno of the system call behind an I/O or open error (0 when none).
    public var systemErrno: Int32

    public init(code: Int32, message: String, systemErrno: Int32 = 0) {
        self.code = code
        self.message = message
        self.systemErrno = systemErrno
    }

    /// SQLITE_FULL, SQLITE_IOERR, …: the extended code's low byte.
    public var primaryCode: Int32 { code & 0xFF }

    /// What went wrong, in the user's terms: "the disk is full", "permission denied", …
    /// (nil for an error in the SQL itself, whose message says it).
    public var cause: String? {
        switch primaryCode {
        case SQLITE_FULL: return Self.systemCause(systemErrno) ?? "the disk is full"
        case SQLITE_IOERR: return Self.systemCause(systemErrno) ?? "input/output error"
        case SQLITE_CANTOPEN:
            return Self.systemCause(systemErrno) ?? "cannot open the file"
        case SQLITE_PERM: return "permission denied"
        case SQLITE_READONLY:
            return "the timeline is read-only (no write permission on the file or its directory, or a read-only file system)"
        case SQLITE_NOTADB: return "not a SQLite database"
        case SQLITE_CORRUPT: return "the file is damaged (its SQLite structure is inconsistent)"
        case SQLITE_BUSY, SQLITE_LOCKED: return "another process holds the timeline's write lock (still busy after waiting)"
        case SQLITE_NOMEM: return "out of memory"
        case SQLITE_TOOBIG: return "a value is larger than SQLite stores"
        default: return nil
        }
    }

    /// The plain cause of an errno behind an I/O error; nil for one without a better name.
    static func systemCause(_ errnoValue: Int32) -> String? {
        switch errnoValue {
        case 0: return nil
        case ENOSPC: return "the disk is full (no space left on device)"
        case EDQUOT: return "the disk quota is exceeded"
        case EFBIG: return "the file size limit was reached (file too large; see ulimit -f)"
        case EACCES, EPERM: return "permission denied"
        case EROFS: return "read-only file system"
        case ENOENT: return "no such file or directory"
        case EISDIR: return "is a directory"
        default: return String(cString: strerror(errnoValue))
        }
    }

    public var description: String {
        let name = String(cString: sqlite3_errstr(code))
        let detail = message.isEmpty || message == name ? "SQLite error \(code): \(name)" : "SQLite error \(code): \(message)"
        guard let cause else { return detail }
        return "\(cause) (\(detail))"
    }
}
