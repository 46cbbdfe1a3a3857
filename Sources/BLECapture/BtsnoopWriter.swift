import BLECore

/// Writes btsnoop v1 files (REFERENCE.md "btsnoop") that Wireshark, btmon and our reader open.
///
/// Datalink 1002 (H4, the default) writes the type byte from `kind` (command 0x01, ACL 0x02,
/// SCO 0x03, event 0x04, ISO 0x05) and flags bit 0 = received, bit 1 = command/event; notes
/// and `.other` records are skipped (H4 has no type for them). 1001 (H1) writes commands,
/// events and ACL without a type byte. 2001 (Linux monitor) writes opcodes
/// (`RecordEncoding.monitorPacket`) with the controller index in the flags' upper half.
/// Output is buffered (1 MiB) and written with `write(2)`.
public final class BtsnoopWriter {
    public let path: String
    public let datalink: BtsnoopDatalink
    /// Records written so far (skipped ones not counted).
    public private(set) var recordsWritten = 0

    private var fileDescriptor: Int32?
    private var buffer: [UInt8] = []
    private static let flushThreshold = 1 << 20

    /// Creates (or truncates) `path` and writes the file header.
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
    }

    deinit {
        try? close()
    }

    /// Appends a record; records the datalink cannot carry are skipped silently.
    public func write(_ record: CaptureRecord) throws(CaptureError) {
        guard fileDescriptor != nil else {
            throw CaptureError(path: path, kind: .unwritable, message: "writer is closed")
        }
        let received = RecordEncoding.isReceived(record)
        let packet: [UInt8]
        let originalLength: Int
        let flags: UInt32
        switch datalink {
        case .h4:
            guard let h4 = RecordEncoding.h4Packet(record) else { return }
            packet = h4
            originalLength = RecordEncoding.h4OriginalLength(record)
            flags = (received ? 1 : 0) | (record.kind == .command || record.kind == .event ? 2 : 0)
        case .h1:
            guard [.command, .event, .acl].contains(record.kind) else { return }
            packet = record.payload
            originalLength = RecordEncoding.unframedOriginalLength(record)
            flags = (received ? 1 : 0) | (record.kind == .acl ? 0 : 2)
        default:
            guard let monitor = RecordEncoding.monitorPacket(record) else { return }
            packet = monitor.body
            originalLength = monitor.originalLength
            flags = UInt32(record.controllerIndex) << 16 | UInt32(monitor.opcode.rawValue)
        }
        guard packet.count <= Int(BtsnoopReader.maxIncludedLength), let original = UInt32(exactly: originalLength) else {
            throw CaptureError(path: path, kind: .unsupported, message:
                "record \(record.frameNumber): \(packet.count)-byte packet is larger than btsnoop allows")
        }
        let stamp = UInt64(bitPattern: record.timestamp &+ Timestamp.btsnoopEpochOffset)
        buffer.appendBigEndian(original)
        buffer.appendBigEndian(UInt32(packet.count))
        buffer.appendBigEndian(flags)
        buffer.appendBigEndian(record.cumulativeDrops)
        buffer.appendBigEndian(UInt32(truncatingIfNeeded: stamp >> 32))
        buffer.appendBigEndian(UInt32(truncatingIfNeeded: stamp))
        buffer += packet
        recordsWritten += 1
        if buffer.count >= Self.flushThreshold { try flush() }
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

    private func flush() throws(CaptureError) {
        guard let fd = fileDescriptor, !buffer.isEmpty else { return }
        let result = buffer.withUnsafeBytes { bytes in
            Result { () throws(Errno) in try Syscall.writeAllBytes(fd, bytes) }
        }
        if case .failure(let error) = result {
            throw CaptureError(path: path, kind: .unwritable, message: "write failed: \(error)")
        }
        buffer.removeAll(keepingCapacity: true)
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
