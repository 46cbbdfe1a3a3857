import BLECore
import BLECapture

/// The recording's btsnoop file (`-o`), written as records arrive and flushed on demand.
///
/// The same bytes `BtsnoopWriter` writes (REFERENCE.md "btsnoop"), but the recorder needs
/// what that writer does not offer: a flush the recorder can call every second (one `write(2)`
/// of what is buffered, no fsync: a killed recorder loses at most the unflushed second), the
/// file offset each record lands at (kept in the timeline, as an import would), and rotation
/// into numbered segments (`RotationPolicy`).
final class BtsnoopOutput {
    let basePath: String
    let datalink: BtsnoopDatalink
    let rotation: RotationPolicy?
    /// Every file written, in order.
    private(set) var paths: [String] = []
    /// Bytes in the current segment, header and buffered bytes included (the next record's offset).
    private(set) var segmentLength = 0
    private(set) var recordsWritten = 0
    private var segmentRecords = 0
    private var segmentStartedAt: Int64 = 0
    private var fileDescriptor: Int32?
    private var buffer: [UInt8] = []

    init(path: String, datalink: BtsnoopDatalink, rotation: RotationPolicy?, now: Int64) throws(LiveError) {
        basePath = path
        self.datalink = datalink
        self.rotation = rotation
        try openSegment(now: now)
    }

    deinit {
        if let fileDescriptor { try? Syscall.closeDescriptor(fileDescriptor) }
    }

    var currentPath: String { paths.last ?? basePath }

    /// Starts a new segment first when the rotation policy says so; returns the offset at which
    /// a record of `length` bytes (header included) will be written.
    func offsetForNextRecord(length: Int, now: Int64) throws(LiveError) -> Int {
        if segmentRecords > 0, let rotation {
            let due = switch rotation {
            case .size(let bytes): segmentLength + length > bytes
            case .duration(let ms): now - segmentStartedAt >= Int64(ms)
            }
            if due {
                try closeSegment()
                try openSegment(now: now)
            }
        }
        return segmentLength
    }

    /// Appends one record's bytes (header and packet) to the buffer.
    func append(_ bytes: [UInt8]) throws(LiveError) {
        buffer += bytes
        segmentLength += bytes.count
        segmentRecords += 1
        recordsWritten += 1
        if buffer.count >= 1 << 20 { try flush() }
    }

    /// Writes what is buffered with one `write(2)`.
    func flush() throws(LiveError) {
        guard let fd = fileDescriptor, !buffer.isEmpty else { return }
        do {
            try Syscall.writeAllBytes(fd, buffer)
        } catch {
            throw LiveError(source: currentPath, kind: .io, message: "write failed: \(error)")
        }
        buffer.removeAll(keepingCapacity: true)
    }

    /// Flushes and closes the current segment. Closing twice is harmless.
    func close() throws(LiveError) {
        try closeSegment()
    }

    private func closeSegment() throws(LiveError) {
        guard let fd = fileDescriptor else { return }
        defer {
            try? Syscall.closeDescriptor(fd)
            fileDescriptor = nil
        }
        try flush()
    }

    private func openSegment(now: Int64) throws(LiveError) {
        let path = rotation == nil ? basePath : RotationPolicy.segmentPath(basePath, number: paths.count + 1)
        do {
            fileDescriptor = try Syscall.createForWriting(path)
        } catch {
            throw LiveError(source: path, kind: .io, message: "cannot create: \(error)")
        }
        paths.append(path)
        buffer = RecordCoding.fileHeader(datalink: datalink)
        segmentLength = buffer.count
        segmentRecords = 0
        segmentStartedAt = now
        try flush()
    }
}
