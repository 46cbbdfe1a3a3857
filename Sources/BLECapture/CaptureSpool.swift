import BLECore
#if canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#elseif canImport(Darwin)
import Darwin
#endif

/// A capture that can be read only once — a FIFO, a process substitution
/// (`blereplay import <(adb exec-out cat …)`, a `/dev/fd/N` pipe), a character device — copied
/// into a scratch file under `$TMPDIR` and imported from there under its own name.
///
/// An import reads a capture more than once (format detection, the decode, the SHA-256 beside
/// it), and `timeline`/`diagnose`/`report` first look for a SQLite header: on a FIFO the first
/// read consumed the bytes the next one needed ("unknown capture format" on a valid btsnoop
/// stream), or the next open waited forever for a writer. The scratch file is a
/// `TemporaryFile`: removed when this value goes, or by the next run when the process was killed.
///
/// The first bytes are judged before anything is copied: bytes no reader recognises (`/dev/zero`,
/// a zip, which must be given as a file) are refused at once instead of filling the disk; a
/// gzip-compressed capture is copied as it is (compressed).
public final class CaptureSpool {
    /// How messages and the timeline name the capture: the path given.
    public let name: String
    private let file: TemporaryFile
    /// Bytes copied.
    public private(set) var size = 0

    /// The regular file holding the capture's bytes.
    public var path: String { file.path }

    /// True when `path` exists and is neither a regular file nor a directory (a FIFO, a
    /// character device, a socket): reading it consumes it.
    public static func isReadOnce(_ path: String) -> Bool {
        var st = stat()
        guard stat(path, &st) == 0 else { return false }
        let type = st.st_mode & S_IFMT
        return type != S_IFREG && type != S_IFDIR
    }

    /// Reads `path` to its end into a scratch file.
    public init(path: String) throws(CaptureError) {
        name = path
        let source = try FileDescriptorSource(path: path)
        let prefix = try CaptureFile.readPrefix(source)
        if prefix.count >= 8, CaptureFile.detect(prefix: prefix) == nil, !GzipSource.hasMagic(prefix),
           !CaptureFile.looksLikeText(prefix) {
            throw CaptureError(path: path, offset: 0, kind: .unknownFormat, message: CaptureFile.unknownMessage(prefix))
        }
        do {
            file = try TemporaryFile.inTemporaryDirectory(prefix: "blereplay-spool")
        } catch {
            throw CaptureError(path: path, kind: .unwritable, message: "cannot copy it to a scratch file: \(error.message)")
        }
        let copied = try file.copy(first: prefix, from: source, name: path, what: "copy it to")
        size = copied.size
        if let failure = copied.readFailure { throw failure }
    }

    /// Removes the scratch file now (it is removed on deinit anyway).
    public func discard() { file.discard() }
}
