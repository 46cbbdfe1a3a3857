import BLECore

/// Streams btsnoop v1 records (datalinks 1001 H1, 1002 H4, 2001 Linux monitor).
///
/// Layout (REFERENCE.md "btsnoop"; FTE "BT Snoop File Format"): a 16-byte file header
/// (`btsnoop\0`, version u32 = 1, datalink u32), then records of a 24-byte big-endian header
/// (original length, included length, flags, cumulative drops, timestamp i64 in µs since
/// 0000-01-01) and `included length` bytes of packet. Reads 1 MiB chunks through an
/// `InputWindow` (the record loop is `RecordWindow`); memory stays flat whatever the file size.
///
/// Per datalink: H4 records lose their type byte to `kind`/`rawType`; H1 records take
/// command/event/ACL from flags bit 1 and get the H4 type as `rawType`; monitor records carry
/// the opcode as `rawType` and the controller index from the flags (see `setBtsnoopPacket`).
///
/// A file labelled 1001 whose records in fact start with an H4 type byte (`MislabelledH4Check`,
/// decided over its first records) is read as H4: `recordDatalink` and `info.linkType` say 1002,
/// `datalink` keeps what the header says, and `notes` tells the user.
public struct BtsnoopReader: CaptureReader {
    package static let magic: [UInt8] = Array("btsnoop\0".utf8)
    /// `btsnoop\0`, version u32 = 1, datalink u32 (big-endian).
    package static let fileHeaderLength = 16
    static let recordHeaderLength = BtsnoopPacket.headerLength

    public let info: CaptureInfo
    public let path: String
    public var warnings: [CaptureWarning] { records.warnings }
    public private(set) var notes: [CaptureWarning] = []
    public var bytesRead: Int { records.input.offset }
    /// The datalink the file header says.
    public let datalink: BtsnoopDatalink
    /// The datalink the records are read as: `datalink`, or 1002 (H4) for a file labelled 1001
    /// whose records start with an H4 type byte.
    public let recordDatalink: BtsnoopDatalink

    private var records: RecordWindow
    private var frameNumber = 0

    /// Reads the file header from `source`; the reader then streams the records.
    public init(source: any ByteSource, path: String? = nil) throws(CaptureError) {
        try self.init(input: InputWindow(source: source), path: path ?? source.name)
    }

    init(input: InputWindow, path: String) throws(CaptureError) {
        records = RecordWindow(input: input, path: path)
        self.path = path
        let header = Self.fileHeaderLength
        guard try records.input.fill(atLeast: header) else {
            let have = records.input.available
            if have == 0 { throw CaptureError(path: path, offset: 0, kind: .empty, message: "file is empty") }
            if !Self.magic.starts(with: Array(records.input.bytes.prefix(8))) {
                throw CaptureError(path: path, offset: 0, kind: .unknownFormat, message: "not a btsnoop file")
            }
            throw CaptureError(path: path, offset: 0, kind: .corrupt,
                               message: "truncated btsnoop file header (file ends after \(have) of \(header) bytes)")
        }
        datalink = try Self.datalink(fileHeader: records.input.bytes, path: path)
        records.consume(header)
        var description = "btsnoop v1, \(datalink) datalink \(datalink.rawValue)"
        if datalink == .h1, case let check = try Self.checkH1Records(&records.input), check.recordsStartWithH4Type {
            recordDatalink = .h4
            description += " in the header, records read as \(BtsnoopDatalink.h4) datalink 1002"
            notes.append(CaptureWarning(offset: header, message: check.explanation))
        } else {
            recordDatalink = datalink
        }
        info = CaptureInfo(format: .btsnoop, linkType: recordDatalink.rawValue, formatDescription: description)
    }

    /// Looks at the first records of a datalink-1001 file without consuming them (see
    /// `MislabelledH4Check.judging`), reading on until the check has what it needs or the file ends.
    /// Damage among those records (a gzip member that stops inflating, a read error) ends the
    /// look: the check judges the records before it, and the reader meets the damage where it is,
    /// after reading them, as in any other file; the open failing there lost them all.
    private static func checkH1Records(_ input: inout InputWindow) throws(CaptureError) -> MislabelledH4Check {
        while true {
            if let check = MislabelledH4Check.judging(records: input.bytes, inputEnded: input.sourceEnded) { return check }
            do {
                _ = try input.fill(atLeast: input.available + 1)
            } catch {
                return MislabelledH4Check.judging(records: input.bytes, inputEnded: true) ?? MislabelledH4Check()
            }
        }
    }

    /// The datalink a btsnoop file header announces (its first `fileHeaderLength` bytes).
    /// Throws `.unknownFormat` without the magic, `.unsupported` for another version or a
    /// datalink BLECapture does not read, with the offset of the field.
    package static func datalink(fileHeader: some Collection<UInt8>, path: String) throws(CaptureError) -> BtsnoopDatalink {
        let header = Array(fileHeader.prefix(fileHeaderLength))
        guard header.count == fileHeaderLength, header.starts(with: magic) else {
            throw CaptureError(path: path, offset: 0, kind: .unknownFormat, message: "no btsnoop magic")
        }
        let version = header[8..<12].reduce(UInt32(0)) { $0 << 8 | UInt32($1) }
        let link = BtsnoopDatalink(rawValue: header[12..<16].reduce(UInt32(0)) { $0 << 8 | UInt32($1) })
        guard version == 1 else {
            throw CaptureError(path: path, offset: 8, kind: .unsupported,
                               message: "btsnoop version \(version) is not supported (only version 1 exists)")
        }
        guard BtsnoopDatalink.supported.contains(link) else {
            throw CaptureError(path: path, offset: 12, kind: .unsupported,
                               message: "btsnoop datalink \(link.rawValue) (\(link)) is not supported; blereplay reads "
                                   + "btsnoop datalinks 1001 (H1), 1002 (H4) and 2001 (Linux monitor)")
        }
        return link
    }

    public mutating func next() throws(CaptureError) -> CaptureRecord? {
        let headerLength = Self.recordHeaderLength
        guard let header = try records.nextHeader(length: headerLength) else { return nil }
        let originalLength = header.bigEndianUInt32(at: 0)
        let includedLength = header.bigEndianUInt32(at: 4)
        if let why = BtsnoopPacket.lengthProblem(originalLength: originalLength, includedLength: includedLength) {
            try records.fail("record \(frameNumber + 1): \(why)")
        }
        let included = Int(includedLength)
        let total = headerLength + included
        guard let p = try records.wholeRecord(length: total) else { return nil }
        let flags = p.bigEndianUInt32(at: 8)
        let drops = p.bigEndianUInt32(at: 12)
        let timestamp = Int64(bitPattern: p.bigEndianUInt64(at: 16)) &- Timestamp.btsnoopEpochOffset
        frameNumber += 1
        var record = CaptureRecord(frameNumber: frameNumber, timestamp: timestamp, direction: .unknown,
                                   kind: .other, payload: [], fileOffset: records.input.offset,
                                   originalLength: Int(originalLength), cumulativeDrops: drops)
        record.setBtsnoopPacket(flags: flags, datalink: recordDatalink,
                                body: UnsafeRawBufferPointer(start: p + headerLength, count: included))
        records.consume(total)
        return record
    }
}
