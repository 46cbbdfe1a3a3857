#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// Writes and reads whole small files (reports, JUnit XML, scripts, traces) with POSIX calls.
public enum TextFile {
    public struct Failure: Error, CustomStringConvertible {
        public var path: String
        public var message: String
        public var description: String { "\(path): \(message)" }
    }

    /// Writes `text` to `path` through a `TemporaryFile` beside it, renamed into place when
    /// complete, so a reader never sees half a file, a failed write leaves the old file as it
    /// was, and a writer killed meanwhile leaves a leftover the next write removes.
    public static func write(_ text: String, to path: String) throws(Failure) {
        try write(to: path) { write in write(text) }
    }

    /// Writes what `produce` hands its writer, piece by piece as it is made, to `path` as
    /// `write(_:to:)` does (through a `TemporaryFile` renamed into place when complete): a large
    /// report is never held whole (issue 17). After a failed write the rest is not written.
    public static func write(to path: String, _ produce: ((String) -> Void) -> Void) throws(Failure) {
        let temporary: TemporaryFile
        do {
            temporary = try TemporaryFile.beside(path)
        } catch {
            throw Failure(path: path, message: "cannot create: \(error.message)")
        }
        var failure: String?
        produce { piece in
            guard failure == nil else { return }
            if !StandardStreams.write(piece, to: temporary.descriptor) { failure = String(cString: strerror(errno)) }
        }
        if let failure {
            temporary.discard()
            throw Failure(path: path, message: "write failed: \(failure)")
        }
        do {
            try temporary.moveIntoPlace(path)
        } catch {
            temporary.discard()
            throw Failure(path: path, message: "write failed: \(error.message)")
        }
    }

    public static func read(_ path: String) throws(Failure) -> [UInt8] {
        let fd = open(path, O_RDONLY)
        guard fd >= 0 else { throw Failure(path: path, message: String(cString: strerror(errno))) }
        defer { close(fd) }
        var out: [UInt8] = []
        var chunk = [UInt8](repeating: 0, count: 65_536)
        while true {
            let n = chunk.withUnsafeMutableBytes { Glibc.read(fd, $0.baseAddress, 65_536) }
            if n < 0 {
                if errno == EINTR { continue }
                throw Failure(path: path, message: String(cString: strerror(errno)))
            }
            if n == 0 { break }
            out += chunk[0..<n]
            if out.count > 16 << 20 { throw Failure(path: path, message: "larger than 16 MiB") }
        }
        return out
    }
}
