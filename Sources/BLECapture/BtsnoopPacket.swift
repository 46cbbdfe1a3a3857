import BLECore

/// One btsnoop record as the file carries it: flags, original length, cumulative drops,
/// timestamp and packet bytes (REFERENCE.md "btsnoop"; FTE "BT Snoop File Format").
///
/// The one encoding `BtsnoopWriter` writes and `BtsnoopReader` reads. Per datalink:
/// H4 (1002) flags bit 0 = received, bit 1 = command/event, the body starts with the H4 type
/// byte; H1 (1001) the same flags and no type byte (commands, events and ACL only); Linux
/// monitor (2001) flags `controller index << 16 | opcode` (`RecordEncoding.monitorPacket`).
/// BLELive's recorder writes packets as they arrive and stores `record(…)` of each, so its
/// timeline holds what importing the file reads back.
package struct BtsnoopPacket: Sendable, Hashable {
    /// Record header: original length, included length, flags, cumulative drops (u32 each) and
    /// timestamp (i64), all big-endian.
    package static let headerLength = 24
    /// Largest included length: an H4 type byte plus an ACL packet of 4 + 65535 bytes.
    package static let maxIncludedLength = 65_540

    package var flags: UInt32
    package var originalLength: UInt32
    package var cumulativeDrops: UInt32
    /// Microseconds since the Unix epoch (the file counts them from 0000-01-01).
    package var timestamp: Int64
    package var body: [UInt8]

    package init(flags: UInt32, originalLength: UInt32, cumulativeDrops: UInt32, timestamp: Int64, body: [UInt8]) {
        self.flags = flags
        self.originalLength = originalLength
        self.cumulativeDrops = cumulativeDrops
        self.timestamp = timestamp
        self.body = body
    }

    /// Bytes the record takes in the file: header and body.
    package var recordLength: Int { Self.headerLength + body.count }

    /// Why a record header's lengths are impossible, or nil when they are not: the included
    /// length may exceed neither `maxIncludedLength` nor the original length.
    package static func lengthProblem(originalLength: UInt32, includedLength: UInt32) -> String? {
        if includedLength > UInt32(maxIncludedLength) {
            return "included length \(includedLength) exceeds the largest HCI packet (\(maxIncludedLength))"
        }
        if includedLength > originalLength {
            return "included length \(includedLength) exceeds original length \(originalLength)"
        }
        return nil
    }

    /// Why a record has no btsnoop form at all (its packet is larger than a record holds).
    package struct EncodingError: Error, Sendable, Hashable, CustomStringConvertible {
        package var description: String
    }

    /// How `record` is written in a file of `datalink`, or nil when that datalink has no form
    /// for it (writers skip it): notes and `.other` in H4; anything but commands, events and
    /// ACL in H1; in monitor, `.other` records whose type is no monitor opcode. Throws when the
    /// packet is longer than `maxIncludedLength` or its original length exceeds 32 bits.
    package init?(encoding record: CaptureRecord, datalink: BtsnoopDatalink) throws(EncodingError) {
        let received = RecordEncoding.isReceived(record)
        let original: Int
        switch datalink {
        case .h4:
            guard let h4 = RecordEncoding.h4Packet(record) else { return nil }
            body = h4
            original = RecordEncoding.h4OriginalLength(record)
            flags = (received ? 1 : 0) | (record.kind == .command || record.kind == .event ? 2 : 0)
        case .h1:
            guard [.command, .event, .acl].contains(record.kind) else { return nil }
            body = record.payload
            original = RecordEncoding.unframedOriginalLength(record)
            flags = (received ? 1 : 0) | (record.kind == .acl ? 0 : 2)
        default:
            guard let monitor = RecordEncoding.monitorPacket(record) else { return nil }
            body = monitor.body
            original = monitor.originalLength
            flags = UInt32(record.controllerIndex) << 16 | UInt32(monitor.opcode.rawValue)
        }
        guard body.count <= Self.maxIncludedLength else {
            throw EncodingError(description: "\(body.count)-byte packet is larger than btsnoop allows")
        }
        guard let length = UInt32(exactly: original) else {
            throw EncodingError(description: "original length \(original) does not fit a btsnoop record")
        }
        originalLength = length
        cumulativeDrops = record.cumulativeDrops
        timestamp = record.timestamp
    }

    /// The record `BtsnoopReader` makes of this packet in a file of `datalink`.
    package func record(datalink: BtsnoopDatalink, frameNumber: Int, fileOffset: Int) -> CaptureRecord {
        var record = CaptureRecord(frameNumber: frameNumber, timestamp: timestamp, direction: .unknown,
                                   kind: .other, payload: [], fileOffset: fileOffset,
                                   originalLength: Int(originalLength), cumulativeDrops: cumulativeDrops)
        body.withUnsafeBytes { record.setBtsnoopPacket(flags: flags, datalink: datalink, body: $0) }
        return record
    }

    /// Appends the record as the file holds it: header, then body.
    package func append(to buffer: inout [UInt8]) {
        let stamp = UInt64(bitPattern: timestamp &+ Timestamp.btsnoopEpochOffset)
        buffer.appendBigEndian(originalLength)
        buffer.appendBigEndian(UInt32(body.count))
        buffer.appendBigEndian(flags)
        buffer.appendBigEndian(cumulativeDrops)
        buffer.appendBigEndian(UInt32(truncatingIfNeeded: stamp >> 32))
        buffer.appendBigEndian(UInt32(truncatingIfNeeded: stamp))
        buffer += body
    }
}
