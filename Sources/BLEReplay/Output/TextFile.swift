#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// Writes and reads whole small files (reports, scripts) with POSIX calls.
public enum TextFile {
    public struct Failure: Error, CustomStringConvertible {
        public var path: String
        public var message: String
        public var description: String { "\(path): \(message)" }
    }

    public static func write(_ text: String, to path: String) throws(Failure) {
        let fd = open(path, O_WRONLY | O_CREAT | O_TRUNC, 0o644)
        guard fd >= 0 else { throw Failure(path: path, message: String(cString: strerror(errno))) }
        defer { close(fd) }
        var text = text
        let ok = text.withUTF8 { buf -> Bool in
            var offset = 0
            while offset < buf.count {
                let n = Glibc.write(fd, buf.baseAddress! + offset, buf.count - offset)
                if n < 0 {
                    if errno == EINTR { continue }
                    return false
                }
                offset += n
            }
            return true
        }
        if !ok { throw Failure(path: path, message: "write failed: \(String(cString: strerror(errno)))") }
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
