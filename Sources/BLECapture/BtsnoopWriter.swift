import BLECore

/// Writes btsnoop v1 files (REFERENCE.md "btsnoop") that Wireshark, btmon and our reader open.
///
/// Datalink 1002 (H4, the default) writes the type byte from `kind` (command 0x01, ACL 0x02,
/// SCO 0x03, event 0x04, ISO 0x05) and flags bit 0 = received, bit 1 = command/event; notes
/// and `.other` records are skipped (H4 has no type for them). 1001 (H1) writes commands,
/// events and ACL without a type byte. 2001 (Linux monitor) writes opcodes
/// (`RecordEncoding.monitorPacket`) with the controller index in the flags' upper half
/// (`BtsnoopPacket` has the encoding). Output is buffered (1 MiB) and written with `write(2)`;
/// `flush` writes what is buffered without closing, so a file being recorded can be read.
public final class BtsnoopWriter {
    public let path: String
    public let datalink: BtsnoopDatalink
    /// Records written so far (skipped ones not counted).
    public private(set) var recordsWritten = 0
    /// Bytes written so far, buffered ones included: the file header and every record, which is
    /// the offset the next record will have in the file.
    public private(set) var bytesWritten = 0

    private var fileDescriptor: Int32?
    private var buffer: [UInt8] = []
    private static let flushThreshold = 1 << 20

    /// Creates (or truncates) `path` and writes the file header (into the buffer: `flush` puts
    /// it on disk).
    public init(path: String, datalink: UInt32 = 1002) throws(CaptureError) {
        self.path = path
        self.datalink = BtsnoopDatalink(rawValue: datalink)
        guard BtsnoopDatalink.supported.contains(self.datalink) else {
            throw CaptureError(path: path, kind: .unsupported, message:
                "cannot write btsnoop datalink \(datalink); BtsnoopWriter writes 1001 (H1), 1002 (H4) and 2001 (Linux monitor)")
        }
        do {
            fileDescriptor = try Syscall.createForWriting(path)
        } catch {
            throw CaptureError(path: path, kind: .unwritable, message: "cannot create: \(error)")
        }
        buffer.reserveCapacity(Self.flushThreshold + 70_000)
        buffer += BtsnoopReader.magic
        buffer.appendBigEndian(UInt32(1))
        buffer.appendBigEndian(datalink)
        bytesWritten = buffer.count
    }

    deinit {
        try? close()
    }

    /// Appends a record; records the datalink cannot carry are skipped silently.
    public func write(_ record: CaptureRecord) throws(CaptureError) {
        let packet: BtsnoopPacket?
        do {
            packet = try BtsnoopPacket(encoding: record, datalink: datalink)
        } catch {
            throw CaptureError(path: path, kind: .unsupported, message: "record \(record.frameNumber): \(error)")
        }
        if let packet { try write(packet) }
    }

    /// Appends a packet already encoded for this file's datalink, bytes as they are.
    package func write(_ packet: BtsnoopPacket) throws(CaptureError) {
        guard fileDescriptor != nil else {
            throw CaptureError(path: path, kind: .unwritable, message: "writer is closed")
        }
        guard packet.body.count <= BtsnoopPacket.maxIncludedLength else {
            throw CaptureError(path: path, kind: .unsupported, message:
                "record \(recordsWritten + 1): \(packet.body.count)-byte packet is larger than btsnoop allows")
        }
        packet.append(to: &buffer)
        bytesWritten += packet.recordLength
        recordsWritten += 1
        if buffer.count >= Self.flushThreshold { try flush() }
    }

    /// Writes what is buffered with one `write(2)` and keeps the file open (no fsync: the
    /// bytes reach the kernel, which is what a reader of the growing file sees).
    public func flush() throws(CaptureError) {
        guard let fd = fileDescriptor, !buffer.isEmpty else { return }
        do {
            try Syscall.writeAllBytes(fd, buffer)
        } catch {
            throw CaptureError(path: path, kind: .unwritable, message: "write failed: \(error)")
        }
        buffer.removeAll(keepingCapacity: true)
    }

    /// Writes what is buffered and closes the file. Closing twice is harmless.
    public func close() throws(CaptureError) {
        guard let fd = fileDescriptor else { return }
        defer { fileDescriptor = nil }
        do {
            try flush()
        } catch {
            try? Syscall.closeDescriptor(fd)
            throw error
        }
        do {
            try Syscall.closeDescriptor(fd)
        } catch {
            throw CaptureError(path: path, kind: .unwritable, message: "close failed: \(error)")
        }
    }
}

extension Array where Element == UInt8 {
    /// Appends four bytes, most significant first.
    mutating func appendBigEndian(_ value: UInt32) {
        append(UInt8(truncatingIfNeeded: value >> 24))
        append(UInt8(truncatingIfNeeded: value >> 16))
        append(UInt8(truncatingIfNeeded: value >> 8))
        append(UInt8(truncatingIfNeeded: value))
    }

    /// Appends two bytes, most significant first.
    mutating func appendBigEndian(_ value: UInt16) {
        append(UInt8(truncatingIfNeeded: value >> 8))
        append(UInt8(truncatingIfNeeded: value))
    }
}
