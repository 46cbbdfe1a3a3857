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
///
/// A stream whose header says datalink 1001 (H1) may hold H4 records, as a file may: it is
/// judged as `BtsnoopReader` judges a file (`MislabelledH4Check.judging`, over the first 16
/// records), so no record comes out before the verdict. The verdict is taken once 16 records
/// (or 256 KiB of them) have arrived, at an impossible record, at the end of the input, or when
/// the input pauses (`inputPaused`: nothing more arrived within one wait) with at least
/// `MislabelledH4Check.minimumRecords` records whole: those records are judged as a file holding
/// only them would be. Records found to be H4 are read as datalink 1002, with `note` saying so.
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
    /// The datalink the records are read as: `datalink`, or 1002 (H4) for a 1001 stream whose
    /// records start with an H4 type byte; nil until the verdict.
    private(set) var recordDatalink: BtsnoopDatalink?
    /// Why a 1001 stream is read as H4 (`MislabelledH4Check.explanation`), with the offset of its
    /// first record; nil otherwise.
    private(set) var note: (offset: Int, message: String)?
    /// The input paused or ended: a verdict still waiting for records is taken on those there.
    private var paused = false
    private var ended = false

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
        guard let recordDatalink = recordDatalink ?? judge(buffer, datalink: datalink) else { return nil }
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
        let record = packet.record(datalink: recordDatalink, frameNumber: frames, fileOffset: offset)
        buffer.consume(total)
        offset += total
        return LiveRecord(record, original: packet, datalink: recordDatalink)
    }

    /// Nothing more arrived for now (`ended`: nor will): see the type's note on the verdict.
    mutating func inputPaused(ended: Bool) {
        paused = true
        self.ended = self.ended || ended
    }

    /// The datalink the records are read as, once it can be told (see the type's note); nil
    /// while a 1001 stream's verdict waits for more records.
    private mutating func judge(_ buffer: StreamBuffer, datalink: BtsnoopDatalink) -> BtsnoopDatalink? {
        guard datalink == .h1 else {
            recordDatalink = datalink
            return datalink
        }
        let check = buffer.bytes.withUnsafeBytes { bytes -> MislabelledH4Check? in
            if let check = MislabelledH4Check.judging(records: bytes, inputEnded: ended) { return check }
            guard paused, let whole = MislabelledH4Check.judging(records: bytes, inputEnded: true),
                  whole.judged >= MislabelledH4Check.minimumRecords else { return nil }
            return whole
        }
        paused = false
        guard let check else { return nil }
        let link: BtsnoopDatalink = check.recordsStartWithH4Type ? .h4 : .h1
        if link == .h4 { note = (offset, check.explanation) }
        recordDatalink = link
        return link
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
