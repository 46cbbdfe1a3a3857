#if canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#endif
import BLECapture

/// The POSIX calls only live sources make, beside the file calls BLECapture's `Syscall`
/// wraps (open, read, write, close): EINTR retried, failures as `Errno`.
extension Syscall {
    /// `poll(2)` for input on one descriptor: true when it is readable (or hung up / in error,
    /// so the next read reports what happened), false on timeout.
    static func waitReadable(_ fd: Int32, timeoutMilliseconds: Int) throws(Errno) -> Bool {
        var entry = pollfd(fd: fd, events: Int16(POLLIN), revents: 0)
        while true {
            let n = poll(&entry, 1, Int32(clamping: timeoutMilliseconds))
            if n >= 0 { return n > 0 }
            if errno != EINTR { throw Errno.current }
        }
    }

    /// `lseek(2)` to an absolute offset.
    static func seek(_ fd: Int32, to offset: Int) throws(Errno) {
        if lseek(fd, off_t(offset), SEEK_SET) < 0 { throw Errno.current }
    }

    /// `pread(2)` of up to `count` bytes at `offset`, without moving the file position; nil on error.
    static func readAt(_ fd: Int32, offset: Int, count: Int) -> [UInt8]? {
        var bytes = [UInt8](repeating: 0, count: count)
        let n = bytes.withUnsafeMutableBytes { pread(fd, $0.baseAddress, count, off_t(offset)) }
        guard n >= 0 else { return nil }
        return Array(bytes.prefix(n))
    }

    /// Device, inode and size of an open file (`fstat(2)`), or nil.
    static func identity(_ fd: Int32) -> FileIdentity? {
        var st = stat()
        guard fstat(fd, &st) == 0 else { return nil }
        return FileIdentity(device: UInt64(st.st_dev), inode: UInt64(st.st_ino), size: Int(st.st_size))
    }

    /// Device, inode and size of the file at `path` (`stat(2)`), or nil when there is none.
    static func identity(_ path: String) -> FileIdentity? {
        var st = stat()
        guard stat(path, &st) == 0 else { return nil }
        return FileIdentity(device: UInt64(st.st_dev), inode: UInt64(st.st_ino), size: Int(st.st_size))
    }

    /// Microseconds since the Unix epoch (`CLOCK_REALTIME`): arrival stamps for raw H4.
    static func wallClockMicroseconds() -> Int64 {
        var ts = timespec()
        clock_gettime(CLOCK_REALTIME, &ts)
        return Int64(ts.tv_sec) * 1_000_000 + Int64(ts.tv_nsec) / 1000
    }

    /// Milliseconds of `CLOCK_MONOTONIC`: deadlines, flush and commit intervals, backoff.
    static func monotonicMilliseconds() -> Int64 {
        var ts = timespec()
        clock_gettime(CLOCK_MONOTONIC, &ts)
        return Int64(ts.tv_sec) * 1000 + Int64(ts.tv_nsec) / 1_000_000
    }

    /// Sleeps for `milliseconds` (the follow source's poll interval, the TCP backoff).
    static func sleep(milliseconds: Int) {
        guard milliseconds > 0 else { return }
        var request = timespec(tv_sec: milliseconds / 1000, tv_nsec: (milliseconds % 1000) * 1_000_000)
        var remaining = timespec()
        while nanosleep(&request, &remaining) != 0 && errno == EINTR { request = remaining }
    }
}

/// Which file a path or descriptor refers to, and how long it is.
struct FileIdentity: Hashable, Sendable {
    var device: UInt64
    var inode: UInt64
    var size: Int

    func isSameFile(as other: FileIdentity) -> Bool { device == other.device && inode == other.inode }
}
