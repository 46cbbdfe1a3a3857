import BLECore
import BLECapture

/// Decodes a btsnoop v1 byte stream as it arrives (a growing file, a pipe, Android's
/// btsnoop_net socket): a state machine in the swift-nio decoder style whose step answers
/// "need more bytes" (nil) or "here is a record".
///
/// Layout (REFERENCE.md "btsnoop"): a 16-byte file header (`btsnoop\0`, version u32 = 1,
/// datalink u32, big-endian), then records of a 24-byte big-endian header (original length,
/// included length, flags, cumulative drops, timestamp i64 in µs since 0000-01-01) and
/// `included length` bytes. A record cut short is not an error here: its bytes stay in the
/// buffer until the rest arrives. Records mean what `BtsnoopReader` makes of them
/// (`BtsnoopPacket.record`).
struct BtsnoopStreamDecoder {
    static let magic = BtsnoopReader.magic
    static let fileHeaderLength = BtsnoopReader.fileHeaderLength
    static let recordHeaderLength = BtsnoopPacket.headerLength

    /// Known once the file header has been read.
    private(set) var datalink: BtsnoopDatalink?
    /// Offset in the stream of the next byte to decode.
    private(set) var offset = 0
    /// Records decoded so far (the frame number of the last one).
    private(set) var frames = 0

    init() {}

    /// Records without a file header (a stream joined in the middle of a file), the first
    /// one at `offset` in the stream.
    init(headerless datalink: BtsnoopDatalink, offset: Int) {
        self.datalink = datalink
        self.offset = offset
    }

    /// The next record, or nil when the buffer holds only part of one (or of the header).
    mutating func next(_ buffer: inout StreamBuffer, source: String) throws(LiveError) -> LiveRecord? {
        guard let datalink else {
            try readFileHeader(&buffer, source: source)
            guard datalink != nil else { return nil }
            return try next(&buffer, source: source)
        }
        let header = Self.recordHeaderLength
        guard buffer.count >= header else { return nil }
        let originalLength = buffer.uint32BE(at: 0)
        let includedLength = buffer.uint32BE(at: 4)
        if let why = BtsnoopPacket.lengthProblem(originalLength: originalLength, includedLength: includedLength) {
            throw LiveError(source: source, offset: offset, kind: .malformed, message: "record \(frames + 1): \(why)")
        }
        let total = header + Int(includedLength)
        guard buffer.count >= total else { return nil }
        let stamp = Int64(bitPattern: buffer.uint64BE(at: 16)) &- Timestamp.btsnoopEpochOffset
        let packet = BtsnoopPacket(flags: buffer.uint32BE(at: 8), originalLength: originalLength,
                                   cumulativeDrops: buffer.uint32BE(at: 12), timestamp: stamp,
                                   body: Array(buffer.bytes.dropFirst(header).prefix(Int(includedLength))))
        frames += 1
        let record = packet.record(datalink: datalink, frameNumber: frames, fileOffset: offset)
        buffer.consume(total)
        offset += total
        return LiveRecord(record, original: packet, datalink: datalink)
    }

    private mutating func readFileHeader(_ buffer: inout StreamBuffer, source: String) throws(LiveError) {
        let seen = min(buffer.count, Self.magic.count)
        guard buffer.bytes.prefix(seen).elementsEqual(Self.magic.prefix(seen)) else {
            throw LiveError(source: source, offset: 0, kind: .malformed, message: "no btsnoop magic (btsnoop\\0)")
        }
        guard buffer.count >= Self.fileHeaderLength else { return }
        let link: BtsnoopDatalink
        do {
            link = try BtsnoopReader.datalink(fileHeader: buffer.bytes, path: source)
        } catch {
            throw LiveError(source: source, offset: error.offset, kind: .malformed, message: error.message)
        }
        buffer.consume(Self.fileHeaderLength)
        offset = Self.fileHeaderLength
        datalink = link
    }
}
