#if canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#elseif canImport(Darwin)
import Darwin
#endif

/// A POSIX `errno` value with its `strerror` text.
struct Errno: Error, Sendable, Hashable, CustomStringConvertible {
    var code: Int32
    static var current: Errno { Errno(code: errno) }
    var description: String {
        guard let text = strerror(code) else { return "errno \(code)" }
        return String(cString: text)
    }
}

/// Every POSIX call BLECapture makes, each behind one small wrapper (swift-system
/// `Internals/Syscalls.swift` style): EINTR retried, failures returned as `Errno`.
enum Syscall {
    /// `open(2)` for reading, close-on-exec.
    static func openForReading(_ path: String) throws(Errno) -> Int32 {
        while true {
            let fd = open(path, O_RDONLY | O_CLOEXEC)
            if fd >= 0 { return fd }
            if errno != EINTR { throw Errno.current }
        }
    }

    /// `open(2)` creating or truncating a file for writing, mode 0644.
    static func createForWriting(_ path: String) throws(Errno) -> Int32 {
        while true {
            let fd = open(path, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0o644)
            if fd >= 0 { return fd }
            if errno != EINTR { throw Errno.current }
        }
    }

    /// `read(2)` into `buffer`; 0 means end of input.
    static func readBytes(_ fd: Int32, into buffer: UnsafeMutableRawBufferPointer) throws(Errno) -> Int {
        guard let base = buffer.baseAddress, buffer.count > 0 else { return 0 }
        while true {
            let n = read(fd, base, buffer.count)
            if n >= 0 { return n }
            if errno != EINTR { throw Errno.current }
        }
    }

    /// `pread(2)` of up to `count` bytes at `offset`; fewer at the end of the file.
    static func preadBytes(_ fd: Int32, offset: Int, count: Int) throws(Errno) -> [UInt8] {
        guard count > 0, offset >= 0 else { return [] }
        var result = [UInt8](repeating: 0, count: count)
        var filled = 0
        while filled < count {
            let n = result.withUnsafeMutableBytes { buf -> Int in
                guard let base = buf.baseAddress else { return 0 }
                return pread(fd, base + filled, count - filled, off_t(offset + filled))
            }
            if n == 0 { break }
            if n < 0 {
                if errno == EINTR { continue }
                throw Errno.current
            }
            filled += n
        }
        result.removeLast(count - filled)
        return result
    }

    /// `write(2)` until every byte is written.
    static func writeAllBytes(_ fd: Int32, _ bytes: UnsafeRawBufferPointer) throws(Errno) {
        guard var next = bytes.baseAddress else { return }
        var left = bytes.count
        while left > 0 {
            let n = write(fd, next, left)
            if n < 0 {
                if errno == EINTR { continue }
                throw Errno.current
            }
            next += n
            left -= n
        }
    }

    static func closeDescriptor(_ fd: Int32) throws(Errno) {
        if close(fd) != 0 && errno != EINTR { throw Errno.current }
    }

    /// `fstat(2)`: file type and size in bytes, or nil when fstat fails.
    static func status(_ fd: Int32) -> (isDirectory: Bool, isRegularFile: Bool, size: Int)? {
        var st = stat()
        guard fstat(fd, &st) == 0 else { return nil }
        return ((st.st_mode & S_IFMT) == S_IFDIR, (st.st_mode & S_IFMT) == S_IFREG, Int(st.st_size))
    }
}
