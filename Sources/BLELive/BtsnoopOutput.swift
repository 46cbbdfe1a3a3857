import BLECore
import BLECapture

/// The recording's btsnoop file (`-o`): a `BtsnoopWriter`, one per numbered segment with
/// `--rotate` (`RotationPolicy`).
///
/// The recorder flushes it every interval (one `write(2)`, no fsync: a killed recorder loses
/// at most the unflushed interval) and keeps each record's offset in its segment, as an import
/// would. A segment's file header is written when the segment starts, so every file on disk
/// is a btsnoop file; a record never spans two segments.
final class BtsnoopOutput {
    let basePath: String
    let datalink: BtsnoopDatalink
    let rotation: RotationPolicy?
    /// Every file written, in order.
    private(set) var paths: [String] = []
    private(set) var recordsWritten = 0
    private var writer: BtsnoopWriter
    private var segmentStartedAt: Int64

    init(path: String, datalink: BtsnoopDatalink, rotation: RotationPolicy?, now: Int64) throws(LiveError) {
        basePath = path
        self.datalink = datalink
        self.rotation = rotation
        let first = rotation == nil ? path : RotationPolicy.segmentPath(path, number: 1)
        writer = try Self.startSegment(first, datalink: datalink)
        paths = [first]
        segmentStartedAt = now
    }

    var currentPath: String { writer.path }

    /// Writes `packet` (to disk with the next `flush`), in a new segment first when the
    /// rotation policy says so; returns the record's offset in its file.
    func write(_ packet: BtsnoopPacket, now: Int64) throws(LiveError) -> Int {
        if writer.recordsWritten > 0, let rotation {
            let due = switch rotation {
            case .size(let bytes): writer.bytesWritten + packet.recordLength > bytes
            case .duration(let ms): now - segmentStartedAt >= Int64(ms)
            }
            if due {
                try close()
                let path = RotationPolicy.segmentPath(basePath, number: paths.count + 1)
                writer = try Self.startSegment(path, datalink: datalink)
                paths.append(path)
                segmentStartedAt = now
            }
        }
        let offset = writer.bytesWritten
        do {
            try writer.write(packet)
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
    private static func startSegment(_ path: String, datalink: BtsnoopDatalink) throws(LiveError) -> BtsnoopWriter {
        do {
            let writer = try BtsnoopWriter(path: path, datalink: datalink.rawValue)
            try writer.flush()
            return writer
        } catch {
            throw LiveError(output: error)
        }
    }
}

extension LiveError {
    /// A failure of the btsnoop output, in BtsnoopWriter's words.
    init(output error: CaptureError) {
        self.init(source: error.path, offset: error.offset, kind: .io, message: error.message)
    }
}
