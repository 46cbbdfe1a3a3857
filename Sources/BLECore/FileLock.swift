#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// An advisory lock beside a file that several processes may create or replace at once:
/// `TARGET.lock`, held with an exclusive `flock(2)` while a writer decides whether the target
/// exists and then creates it (a new timeline is written aside and renamed into place).
///
/// Without it two imports into a timeline that does not exist yet each wrote their own file
/// and the second rename silently replaced the first. With it the second waits, finds the
/// target there when it gets the lock, and imports into it.
///
/// The kernel releases the lock when its holder dies, so a killed holder blocks nobody. The
/// holder removes the lock file when it releases it; a waiter that was given the lock on a
/// file removed meanwhile (its inode no longer the path's) starts again on the new one, so two
/// holders can never lock different files of the same name.
public final class FileLock {
    public struct Failure: Error, CustomStringConvertible {
        public var path: String
        public var message: String
        public var description: String { "\(path): \(message)" }
    }

    public let path: String
    private var descriptor: Int32

    private init(path: String, descriptor: Int32) {
        self.path = path
        self.descriptor = descriptor
    }

    deinit { release() }

    /// The lock for `target` (`target.lock`), waiting for another holder to release it.
    /// - Parameter waiting: called once, before waiting, when another process holds the lock.
    public static func acquire(for target: String, waiting: () -> Void = {}) throws(Failure) -> FileLock {
        let path = target + ".lock"
        var told = false
        while true {
            let fd = open(path, O_RDWR | O_CREAT | O_CLOEXEC, 0o644)
            guard fd >= 0 else {
                throw Failure(path: path, message: "cannot create the lock file: \(String(cString: strerror(errno)))")
            }
            if flock(fd, LOCK_EX | LOCK_NB) != 0 {
                guard errno == EWOULDBLOCK else {
                    let reason = String(cString: strerror(errno))
                    close(fd)
                    throw Failure(path: path, message: "cannot lock: \(reason)")
                }
                if !told {
                    told = true
                    waiting()
                }
                while flock(fd, LOCK_EX) != 0 {
                    guard errno == EINTR else {
                        let reason = String(cString: strerror(errno))
                        close(fd)
                        throw Failure(path: path, message: "cannot lock: \(reason)")
                    }
                }
            }
            var held = stat(), named = stat()
            if fstat(fd, &held) == 0, stat(path, &named) == 0, held.st_dev == named.st_dev, held.st_ino == named.st_ino {
                return FileLock(path: path, descriptor: fd)
            }
            // The previous holder removed the file while we waited: lock the current one.
            close(fd)
        }
    }

    /// Removes the lock file and releases the lock. Idempotent.
    public func release() {
        guard descriptor >= 0 else { return }
        unlink(path)
        close(descriptor)
        descriptor = -1
    }
}
