#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif
import BLECore

/// A command's CAPTURE|DB argument, resolved to an open timeline.
///
/// A timeline file is opened in place; a capture is imported on the fly into a temporary
/// timeline under `$TMPDIR` that is removed when this value is closed. It is a `TemporaryFile`,
/// so the leftover of a command that was killed or crashed is removed by the next one.
public final class TimelineSource {
    public let store: TimelineStore
    /// Import results when the input was a capture (empty for a timeline file).
    public let importResults: [CaptureImportResult]
    private let scratch: TemporaryFile?

    public struct Failure: Error, CustomStringConvertible {
        public var message: String
        public var description: String { message }
    }

    /// True when the file is a regular file that starts with the SQLite 3 header. Anything else
    /// (a FIFO, a pipe, a device) is not opened: reading it would consume what the capture
    /// reader needs (SQLite cannot open such a file anyway).
    public static func isTimelineFile(_ path: String) -> Bool {
        var st = stat()
        guard stat(path, &st) == 0, (st.st_mode & S_IFMT) == S_IFREG else { return false }
        guard let f = fopen(path, "rb") else { return false }
        defer { fclose(f) }
        var header = [UInt8](repeating: 0, count: 16)
        let n = header.withUnsafeMutableBytes { fread($0.baseAddress, 1, 16, f) }
        return n == 16 && header == Array("SQLite format 3\0".utf8)
    }

    public init(path: String, options: ImportOptions = .init()) throws(Failure) {
        guard access(path, R_OK) == 0 else {
            throw Failure(message: "\(path): \(String(cString: strerror(errno)))")
        }
        if Self.isTimelineFile(path) {
            do {
                store = try TimelineStore(path: path)
            } catch {
                throw Failure(message: error.description)
            }
            importResults = []
            scratch = nil
            return
        }
        let temporary: TemporaryFile
        do {
            temporary = try TemporaryFile.inTemporaryDirectory()
        } catch {
            throw Failure(message: "cannot create a temporary timeline: \(error)")
        }
        let results: [CaptureImportResult]
        do {
            var options = options
            options.analysisJobs = WorkerPool.processorCount
            results = try Importer.importCaptures([path], intoScratch: temporary.path, options: options)
        } catch {
            throw Failure(message: error.description)
        }
        if let failed = results.first(where: { $0.status == .failed }) {
            throw Failure(message: failed.error ?? "\(path): cannot be read")
        }
        do {
            store = try TimelineStore(path: temporary.path)
        } catch {
            throw Failure(message: error.description)
        }
        importResults = results
        scratch = temporary
    }

    /// True when a capture given on the command line was damaged (exit 65 after output).
    public var inputWasDamaged: Bool { importResults.contains { $0.status == .partial } }
}
