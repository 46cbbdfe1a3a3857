import BLECore
import BLECapture

/// What `SegmentedOutput` needs of a capture writer: `BtsnoopWriter` and `PcapWriter`.
protocol SegmentWriter: AnyObject {
    var bytesWritten: Int { get }
    var recordsWritten: Int { get }
    func flush() throws(CaptureError)
    func close() throws(CaptureError)
}

extension BtsnoopWriter: SegmentWriter {}
extension PcapWriter: SegmentWriter {}

/// The recording's capture file (`-o`): one writer per numbered segment with `--rotate`
/// (`RotationPolicy`).
///
/// The recorder flushes it every interval (one `write(2)`, no fsync: a killed recorder loses
/// at most the unflushed interval) and keeps each record's offset in its segment, as an import
/// would. A segment's file header is written when the segment starts, so every file on disk is
/// a complete capture; a record never spans two segments.
final class SegmentedOutput<Writer: SegmentWriter> {
    let basePath: String
    let rotation: RotationPolicy?
    /// Every file written, in order.
    private(set) var paths: [String] = []
    private(set) var recordsWritten = 0
    private var writer: Writer
    private var segmentStartedAt: Int64
    /// Opens a writer on a new file (its header buffered).
    private let open: (String) throws(CaptureError) -> Writer

    init(path: String, rotation: RotationPolicy?, now: Int64,
         open: @escaping (String) throws(CaptureError) -> Writer) throws(LiveError) {
        basePath = path
        self.rotation = rotation
        self.open = open
        let first = rotation == nil ? path : RotationPolicy.segmentPath(path, number: 1)
        writer = try Self.startSegment(first, open)
        paths = [first]
        segmentStartedAt = now
    }

    /// Writes a record of `length` bytes with `put` (to disk with the next `flush`), in a new
    /// segment first when the rotation policy says so; returns the record's offset in its file.
    func write(length: Int, now: Int64, _ put: (Writer) throws(CaptureError) -> Void) throws(LiveError) -> Int {
        if writer.recordsWritten > 0, let rotation {
            let due = switch rotation {
            case .size(let bytes): writer.bytesWritten + length > bytes
            case .duration(let ms): now - segmentStartedAt >= Int64(ms)
            }
            if due {
                try close()
                let path = RotationPolicy.segmentPath(basePath, number: paths.count + 1)
                writer = try Self.startSegment(path, open)
                paths.append(path)
                segmentStartedAt = now
            }
        }
        let offset = writer.bytesWritten
        do {
            try put(writer)
        } catch {
            throw LiveError(output: error)
        }
        recordsWritten += 1
        return offset
    }

    /// Writes what is buffered with one `write(2)`.
    func flush() throws(LiveError) {
        do {
            try writer.flush()
        } catch {
            throw LiveError(output: error)
        }
    }

    /// Flushes and closes the current segment. Closing twice is harmless.
    func close() throws(LiveError) {
        do {
            try writer.close()
        } catch {
            throw LiveError(output: error)
        }
    }

    /// A new file with its header on disk.
    private static func startSegment(_ path: String, _ open: (String) throws(CaptureError) -> Writer) throws(LiveError) -> Writer {
        do {
            let writer = try open(path)
            try writer.flush()
            return writer
        } catch {
            throw LiveError(output: error)
        }
    }
}

extension LiveError {
    /// A failure of the recording's output, in its writer's words.
    init(output error: CaptureError) {
        self.init(source: error.path, offset: error.offset, kind: .io, message: error.message)
    }
}
