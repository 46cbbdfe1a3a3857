#if canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#endif

/// A POSIX `errno` value with its `strerror` text.
struct LiveErrno: Error, Sendable, Hashable, CustomStringConvertible {
    var code: Int32
    static var current: LiveErrno { LiveErrno(code: errno) }
    var description: String {
        guard let text = strerror(code) else { return "errno \(code)" }
        return String(cString: text)
    }
}

/// The POSIX calls BLELive makes that are not socket-specific, each behind one small wrapper
/// (swift-system `Internals/Syscalls.swift` style): EINTR retried, failures as `LiveErrno`.
enum LiveSyscall {
    /// `poll(2)` for input on one descriptor: true when it is readable (or hung up / in error,
    /// so the next read reports what happened), false on timeout.
    static func waitReadable(_ fd: Int32, timeoutMilliseconds: Int) throws(LiveErrno) -> Bool {
        var entry = pollfd(fd: fd, events: Int16(POLLIN), revents: 0)
        while true {
            let n = poll(&entry, 1, Int32(clamping: timeoutMilliseconds))
            if n >= 0 { return n > 0 }
            if errno != EINTR { throw LiveErrno.current }
        }
    }

    /// `read(2)` into `buffer`; 0 means end of input.
    static func read(_ fd: Int32, into buffer: UnsafeMutableRawBufferPointer) throws(LiveErrno) -> Int {
        guard let base = buffer.baseAddress, buffer.count > 0 else { return 0 }
        while true {
            let n = Glibc.read(fd, base, buffer.count)
            if n >= 0 { return n }
            if errno != EINTR { throw LiveErrno.current }
        }
    }

    /// `open(2)` for reading, close-on-exec.
    static func openForReading(_ path: String) throws(LiveErrno) -> Int32 {
        while true {
            let fd = open(path, O_RDONLY | O_CLOEXEC)
            if fd >= 0 { return fd }
            if errno != EINTR { throw LiveErrno.current }
        }
    }

    /// `open(2)` creating or truncating a file for writing, mode 0644.
    static func createForWriting(_ path: String) throws(LiveErrno) -> Int32 {
        while true {
            let fd = open(path, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0o644)
            if fd >= 0 { return fd }
            if errno != EINTR { throw LiveErrno.current }
        }
    }

    /// `write(2)` until every byte is written.
    static func writeAll(_ fd: Int32, _ bytes: UnsafeRawBufferPointer) throws(LiveErrno) {
        guard var next = bytes.baseAddress else { return }
        var left = bytes.count
        while left > 0 {
            let n = write(fd, next, left)
            if n < 0 {
                if errno == EINTR { continue }
                throw LiveErrno.current
            }
            next += n
            left -= n
        }
    }

    /// `read(2)` into the start of `array` (typed throws kept out of the stdlib closure).
    static func read(_ fd: Int32, into array: inout [UInt8]) throws(LiveErrno) -> Int {
        let result = array.withUnsafeMutableBytes { bytes in
            Result { () throws(LiveErrno) -> Int in try read(fd, into: bytes) }
        }
        return try result.get()
    }

    /// `write(2)` of every byte of `array`.
    static func writeAll(_ fd: Int32, _ array: [UInt8]) throws(LiveErrno) {
        let result = array.withUnsafeBytes { bytes in
            Result { () throws(LiveErrno) in try writeAll(fd, bytes) }
        }
        try result.get()
    }

    static func close(_ fd: Int32) {
        _ = Glibc.close(fd)
    }

    /// `lseek(2)` to an absolute offset.
    static func seek(_ fd: Int32, to offset: Int) throws(LiveErrno) {
        if lseek(fd, off_t(offset), SEEK_SET) < 0 { throw LiveErrno.current }
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
