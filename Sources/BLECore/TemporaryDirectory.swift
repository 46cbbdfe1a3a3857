#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// A private scratch directory under `$TMPDIR` (`report` keeps one scratch timeline per input
/// there), named and locked like a `TemporaryFile` (`PREFIX-XXXXXX.tmp-TOKEN`, an exclusive
/// `flock(2)` on the directory held while the process lives), so the directory of a run that
/// was killed is found and removed, with its files, by the next run.
public final class TemporaryDirectory {
    public let path: String
    private var descriptor: Int32

    /// Creates the directory after removing the stale ones of earlier runs with this prefix.
    public init(prefix: String) throws(TemporaryFile.Failure) {
        let base = TemporaryFile.temporaryDirectory()
        TemporaryFile.removeStale(in: base, where: { $0.hasPrefix(prefix + "-") && $0.contains(TemporaryFile.marker) })
        let token = ProcessIdentity.current().token
        var made: String?
        for _ in 0..<100 {
            let candidate = "\(base)/\(prefix)-\(TemporaryFile.randomName())\(TemporaryFile.marker)\(token)"
            if mkdir(candidate, 0o700) == 0 {
                made = candidate
                break
            }
            guard errno == EEXIST else { break }
        }
        guard let made else {
            throw TemporaryFile.Failure(path: base, message: "cannot create a temporary directory: \(String(cString: strerror(errno)))")
        }
        let fd = open(made, O_RDONLY | O_DIRECTORY | O_CLOEXEC)
        guard fd >= 0, flock(fd, LOCK_EX | LOCK_NB) == 0 else {
            let reason = String(cString: strerror(errno))
            if fd >= 0 { close(fd) }
            rmdir(made)
            throw TemporaryFile.Failure(path: made, message: "cannot lock: \(reason)")
        }
        path = made
        descriptor = fd
    }

    deinit { remove() }

    /// Removes the directory and what is left in it. Idempotent.
    public func remove() {
        guard descriptor >= 0 else { return }
        TemporaryFile.removeDirectory(path)
        close(descriptor)
        descriptor = -1
    }
}
