#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif
import Synchronization

/// A file that is only worth keeping while the process writing it runs: a timeline being
/// imported (`DB.tmp-…`, renamed over the target when complete), an export or a report being
/// written, a scratch timeline under `$TMPDIR` for a command given a capture.
///
/// Every writer uses this one mechanism, so a writer that was killed (SIGKILL, a crash, power
/// loss) leaves nothing that a later run cannot find and remove:
/// - the name carries the owner's `ProcessIdentity` token (boot id, pid, start time):
///   `TARGET.tmp-BOOT.PID.START.RANDOM` beside a target, `$TMPDIR/PREFIX-RANDOM.tmp-BOOT.PID.START`
///   for scratch files, so a reused pid or another boot does not pass for the owner;
/// - the owner holds an exclusive `flock(2)` on the file as long as it lives. The kernel drops
///   it when the process ends however it ends, so a lock that can be taken means no process
///   (in any pid namespace sharing the directory) still writes the file.
///
/// A leftover is stale when its owner is not running and its lock is free (or the file itself
/// is gone and only SQLite's `-journal`/`-wal`/`-shm` beside it remain). `beside(_:)` removes
/// the stale leftovers of the same target first; `inTemporaryDirectory(prefix:)` those of
/// every blereplay scratch file in `$TMPDIR`.
public final class TemporaryFile {
    public struct Failure: Error, CustomStringConvertible {
        public var path: String
        public var message: String
        public var description: String { "\(path): \(message)" }
    }

    /// Where the data is written until it is moved into place.
    public let path: String
    /// Open for reading and writing; holds the flock.
    public let descriptor: Int32
    private var finished = false

    /// The marker between a stem and the owner token.
    static let marker = ".tmp-"
    /// What SQLite creates beside a database file.
    static let sqliteSuffixes = ["-journal", "-wal", "-shm"]

    /// The paths of this process's files not yet moved into place or discarded, for
    /// `discardAllOfThisProcess()`.
    private static let live = Mutex<Set<String>>([])

    private init(path: String, descriptor: Int32) {
        self.path = path
        self.descriptor = descriptor
        _ = Self.live.withLock { $0.insert(path) }
    }

    /// Removes every file this process still holds (and SQLite's files beside them), for a
    /// process about to `exit(3)` from deep inside a command (its reader went away): no
    /// deinit runs then, and the files would wait for the next run to clean them. The process
    /// must not use them afterwards.
    public static func discardAllOfThisProcess() {
        let paths = live.withLock { held in
            defer { held.removeAll() }
            return held
        }
        for path in paths.sorted() { unlinkWithSideFiles(path) }
    }

    deinit { discard() }

    /// A new temporary file beside `target` (same directory, so `moveIntoPlace` is a rename),
    /// after removing the stale leftovers of earlier writers of `target`.
    public static func beside(_ target: String) throws(Failure) -> TemporaryFile {
        let (directory, base) = split(target)
        removeStale(in: directory, where: { $0.hasPrefix(base + marker) && $0.count > base.count + marker.count })
        // The owner token, then six random characters: one process may write several at once.
        let stem = "\(target)\(marker)\(ProcessIdentity.current().token)."
        var attempts = 0
        while true {
            let path = stem + randomName()
            let fd = open(path, O_RDWR | O_CREAT | O_EXCL | O_CLOEXEC, 0o644)
            if fd >= 0 { return try locked(path: path, descriptor: fd) }
            attempts += 1
            guard errno == EEXIST, attempts < 100 else {
                throw Failure(path: target, message: "cannot create \(path): \(String(cString: strerror(errno)))")
            }
        }
    }

    /// Six characters from [a-z0-9], for unique names (nothing depends on their value).
    static func randomName() -> String {
        let alphabet = Array("abcdefghijklmnopqrstuvwxyz0123456789")
        return String((0..<6).map { _ in alphabet[Int.random(in: 0..<alphabet.count)] })
    }

    /// A new, uniquely named file `$TMPDIR/PREFIX-XXXXXX.tmp-TOKEN` (or /tmp), after removing
    /// the stale leftovers of earlier runs that used the same prefix.
    public static func inTemporaryDirectory(prefix: String = "blereplay") throws(Failure) -> TemporaryFile {
        let directory = temporaryDirectory()
        removeStale(in: directory, where: { $0.hasPrefix(prefix + "-") && $0.contains(marker) })
        let tail = "\(marker)\(ProcessIdentity.current().token)"
        var template = Array("\(directory)/\(prefix)-XXXXXX\(tail)".utf8CString)
        let fd = template.withUnsafeMutableBufferPointer { mkstemps($0.baseAddress!, Int32(tail.utf8.count)) }
        guard fd >= 0 else {
            throw Failure(path: directory, message: "cannot create a temporary file: \(String(cString: strerror(errno)))")
        }
        let path = template.withUnsafeBufferPointer { String(cString: $0.baseAddress!) }
        return try locked(path: path, descriptor: fd)
    }

    private static func locked(path: String, descriptor fd: Int32) throws(Failure) -> TemporaryFile {
        // Nobody else knows the name yet: the lock is free.
        guard flock(fd, LOCK_EX | LOCK_NB) == 0 else {
            let reason = String(cString: strerror(errno))
            close(fd)
            unlink(path)
            throw Failure(path: path, message: "cannot lock: \(reason)")
        }
        return TemporaryFile(path: path, descriptor: fd)
    }

    /// `$TMPDIR`, or /tmp.
    public static func temporaryDirectory() -> String {
        guard let value = getenv("TMPDIR").map({ String(cString: $0) }), !value.isEmpty else { return "/tmp" }
        return value.count > 1 && value.hasSuffix("/") ? String(value.dropLast()) : value
    }

    /// Renames the file over `target` (atomically). With `replacing: false` an existing
    /// `target` is left alone and the move fails with `EEXIST`: the caller decides.
    public func moveIntoPlace(_ target: String, replacing: Bool = true) throws(Failure) {
        precondition(!finished, "TemporaryFile moved twice")
        if replacing {
            guard rename(path, target) == 0 else {
                throw Failure(path: target, message: "cannot move \(path) into place: \(String(cString: strerror(errno)))")
            }
        } else {
            // link(2) fails when the target exists, where rename(2) would replace it.
            if link(path, target) == 0 {
                unlink(path)
            } else if errno == EEXIST {
                throw Failure(path: target, message: "appeared while it was being written; nothing was replaced")
            } else if errno == EPERM || errno == ENOTSUP || errno == EOPNOTSUPP || errno == EMLINK {
                // A file system without hard links: fall back to rename after a last check.
                guard access(target, F_OK) != 0 else {
                    throw Failure(path: target, message: "appeared while it was being written; nothing was replaced")
                }
                guard rename(path, target) == 0 else {
                    throw Failure(path: target, message: "cannot move \(path) into place: \(String(cString: strerror(errno)))")
                }
            } else {
                throw Failure(path: target, message: "cannot move \(path) into place: \(String(cString: strerror(errno)))")
            }
        }
        finished = true
        _ = Self.live.withLock { $0.remove(path) }
        Self.unlinkSideFiles(path)
        close(descriptor)
    }

    /// Removes the file (and SQLite's files beside it) and releases the lock. Idempotent.
    public func discard() {
        guard !finished else { return }
        finished = true
        _ = Self.live.withLock { $0.remove(path) }
        // Emptied first: a descriptor still open elsewhere in this process would otherwise keep
        // its blocks in use until the process ends.
        _ = ftruncate(descriptor, 0)
        Self.unlinkWithSideFiles(path)
        close(descriptor)
    }

    // MARK: Finding and removing leftovers

    /// Removes the entries of `directory` that `matches` selects and that are stale.
    /// Returns the paths removed.
    @discardableResult
    public static func removeStale(in directory: String, where matches: (String) -> Bool) -> [String] {
        let names = entries(of: directory).filter(matches)
        var removed: [String] = []
        // Group a file with SQLite's files beside it: they share the main name.
        var mains = Set<String>()
        for name in names {
            var main = name
            for s in sqliteSuffixes where main.hasSuffix(s) { main = String(main.dropLast(s.count)) }
            mains.insert(main)
        }
        for main in mains.sorted() {
            let path = "\(directory)/\(main)"
            guard isStale(path) else { continue }
            if isDirectory(path) {
                if removeDirectory(path) { removed.append(path) }
                continue
            }
            for p in [path] + sqliteSuffixes.map({ path + $0 }) where unlink(p) == 0 { removed.append(p) }
        }
        return removed
    }

    /// True when the temporary file at `path` (named `….tmp-TOKEN`) has no living owner.
    public static func isStale(_ path: String) -> Bool {
        guard let token = ownerToken(path) else { return false }
        let ownerRunning: Bool
        // `BOOT.PID.START`, then (beside a target) `.RANDOM`.
        if let owner = ProcessIdentity(token: token.split(separator: ".", omittingEmptySubsequences: false).prefix(3).joined(separator: ".")) {
            ownerRunning = owner.isRunning
        } else if let pid = Int32(token) {
            // The form before owner tokens (`DB.tmp-PID`): a pid that exists may be the owner.
            ownerRunning = ProcessIdentity.pidExists(pid)
        } else {
            return false
        }
        guard !ownerRunning else { return false }
        let fd = open(path, O_RDONLY | O_CLOEXEC | O_NOFOLLOW)
        if fd < 0 { return errno == ENOENT }
        defer { close(fd) }
        // A lock that can be taken has no holder: the owner (perhaps in another pid namespace) is gone.
        return flock(fd, LOCK_EX | LOCK_NB) == 0
    }

    /// What follows the last `.tmp-` of the path's last component (nil when nothing does).
    static func ownerToken(_ path: String) -> Substring? {
        let (_, name) = split(path)
        guard let range = name.ranges(of: marker).last, range.upperBound < name.endIndex else { return nil }
        return name[range.upperBound...]
    }

    static func isDirectory(_ path: String) -> Bool {
        var st = stat()
        return lstat(path, &st) == 0 && (st.st_mode & S_IFMT) == S_IFDIR
    }

    /// Removes a scratch directory: its files (one level: scratch directories hold no others), then itself.
    @discardableResult
    static func removeDirectory(_ path: String) -> Bool {
        for name in entries(of: path) {
            let file = "\(path)/\(name)"
            truncate(file, 0)
            unlink(file)
        }
        return rmdir(path) == 0
    }

    /// The names in a directory, without "." and ".." (empty when it cannot be read).
    static func entries(of directory: String) -> [String] {
        DirectoryEntry.names(of: directory).map { String(decoding: $0, as: UTF8.self) }
    }

    static func unlinkSideFiles(_ path: String) {
        for s in sqliteSuffixes { unlink(path + s) }
    }

    static func unlinkWithSideFiles(_ path: String) {
        unlink(path)
        unlinkSideFiles(path)
    }

    /// (directory, last component) of a path; the directory is "." for a bare name.
    static func split(_ path: String) -> (String, String) {
        guard let slash = path.lastIndex(of: "/") else { return (".", path) }
        let directory = path[..<slash]
        return (directory.isEmpty ? "/" : String(directory), String(path[path.index(after: slash)...]))
    }
}
