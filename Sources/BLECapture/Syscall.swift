#if canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#elseif canImport(Darwin)
import Darwin
#endif

/// A POSIX `errno` value with its `strerror` text (swift-system `Errno`).
package struct Errno: Error, Sendable, Hashable, CustomStringConvertible {
    package var code: Int32
    package init(code: Int32) { self.code = code }
    /// The calling thread's `errno`.
    package static var current: Errno { Errno(code: errno) }
    package var description: String {
        guard let text = strerror(code) else { return "errno \(code)" }
        return String(cString: text)
    }
}

/// The package's POSIX calls on files and descriptors, each behind one small wrapper
/// (swift-system `Internals/Syscalls.swift` style): EINTR retried, failures returned as `Errno`.
/// BLELive adds the calls only live sources make (`poll`, `lseek`, clocks) in an extension.
package enum Syscall {
    /// `open(2)` for reading, close-on-exec.
    package static func openForReading(_ path: String) throws(Errno) -> Int32 {
        while true {
            let fd = open(path, O_RDONLY | O_CLOEXEC)
            if fd >= 0 { return fd }
            if errno != EINTR { throw Errno.current }
        }
    }

    /// `open(2)` creating or truncating a file for writing, mode 0644.
    package static func createForWriting(_ path: String) throws(Errno) -> Int32 {
        while true {
            let fd = open(path, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0o644)
            if fd >= 0 { return fd }
            if errno != EINTR { throw Errno.current }
        }
    }

    /// `read(2)` into `buffer`; 0 means end of input.
    package static func readBytes(_ fd: Int32, into buffer: UnsafeMutableRawBufferPointer) throws(Errno) -> Int {
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

    /// `pwrite(2)` of every byte of `bytes` at `offset`.
    static func pwriteAllBytes(_ fd: Int32, _ bytes: [UInt8], offset: Int) throws(Errno) {
        var written = 0
        while written < bytes.count {
            let n = bytes.withUnsafeBytes { buf -> Int in
                guard let base = buf.baseAddress else { return 0 }
                return pwrite(fd, base + written, bytes.count - written, off_t(offset + written))
            }
            if n < 0 {
                if errno == EINTR { continue }
                throw Errno.current
            }
            if n == 0 { throw Errno(code: EIO) }
            written += n
        }
    }

    /// `write(2)` until every byte is written.
    package static func writeAllBytes(_ fd: Int32, _ bytes: UnsafeRawBufferPointer) throws(Errno) {
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

    /// `read(2)` into the start of `array` (typed throws kept out of the stdlib closure).
    package static func readBytes(_ fd: Int32, into array: inout [UInt8]) throws(Errno) -> Int {
        let result = array.withUnsafeMutableBytes { bytes in
            Result { () throws(Errno) -> Int in try readBytes(fd, into: bytes) }
        }
        return try result.get()
    }

    /// `write(2)` of every byte of `array`.
    package static func writeAllBytes(_ fd: Int32, _ array: [UInt8]) throws(Errno) {
        let result = array.withUnsafeBytes { bytes in
            Result { () throws(Errno) in try writeAllBytes(fd, bytes) }
        }
        try result.get()
    }

    /// `close(2)`; an interrupted close has closed the descriptor all the same (Linux).
    package static func closeDescriptor(_ fd: Int32) throws(Errno) {
        if close(fd) != 0 && errno != EINTR { throw Errno.current }
    }

    /// `fstat(2)`: file type and size in bytes, or nil when fstat fails.
    static func status(_ fd: Int32) -> (isDirectory: Bool, isRegularFile: Bool, size: Int)? {
        var st = stat()
        guard fstat(fd, &st) == 0 else { return nil }
        return ((st.st_mode & S_IFMT) == S_IFDIR, (st.st_mode & S_IFMT) == S_IFREG, Int(st.st_size))
    }
}
