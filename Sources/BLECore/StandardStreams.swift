#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// Writes to standard output and standard error through `write(2)`, with no shared buffers
/// (Swift 6 strict concurrency forbids touching C's global `FILE *` streams).
public enum StandardStreams {
    /// Writes all of `text` to `fd`; false when the reader went away (EPIPE) or another error occurred.
    @discardableResult
    public static func write(_ text: String, to fd: Int32) -> Bool {
        writeAll(text, to: fd) == 0
    }

    /// Writes all of `text` to `fd`: 0, or the `errno` of the write that failed (EPIPE: the
    /// reader went away; ENOSPC: the disk is full).
    public static func writeAll(_ text: String, to fd: Int32) -> Int32 {
        var text = text
        return text.withUTF8 { buf in
            var offset = 0
            while offset < buf.count {
                let n = Glibc.write(fd, buf.baseAddress! + offset, buf.count - offset)
                if n < 0 {
                    if errno == EINTR { continue }
                    return errno
                }
                offset += n
            }
            return 0
        }
    }

    public static func error(_ line: String) { write(line + "\n", to: 2) }

    /// True when `fd` is a terminal (progress is shown only then).
    public static func isTerminal(_ fd: Int32) -> Bool { isatty(fd) == 1 }
}
