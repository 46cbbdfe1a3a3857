import BLECore

/// Streams Apple PacketLogger (`.pklg`) records.
///
/// No file header. Each record (captures/MANIFEST.md "PacketLogger record layout", checked
/// against iPhone files; Wireshark `wiretap/packetlogger.c`): u32 length (covering the 8
/// timestamp bytes, the type byte and the payload), u32 seconds, u32 microseconds, u8 type,
/// payload. The header byte order depends on the writer (iPhones little-endian, older Macs
/// big-endian) and is detected per file by validating the first records in each order.
public struct PacketLoggerReader: CaptureReader {
    static let headerLength = 12
    /// Smallest length field: the 8 timestamp bytes (Wireshark's `packetlogger_read_packet` reads
    /// a record of length 8, with no type byte, as an empty packet; so does this reader).
    static let minLength: UInt32 = 8
    /// Largest length field: timestamp, type byte and an ACL packet of 4 + 65535 bytes.
    static let maxLength: UInt32 = 8 + 1 + 65_540
    /// Records the detection heuristic validates.
    static let recordsToCheck = 8
    /// Bytes examined for detection; any valid record fits.
    static let probeLength = 128 * 1024

    public let info: CaptureInfo
    public let path: String
    public var warnings: [CaptureWarning] { records.warnings }
    public var bytesRead: Int { records.input.offset }
    /// True when the record headers are big-endian (older Mac files).
    public let isBigEndian: Bool

    private var records: RecordWindow
    private var frameNumber = 0

    public init(source: any ByteSource, path: String? = nil) throws(CaptureError) {
        try self.init(input: InputWindow(source: source), path: path ?? source.name)
    }

    init(input: InputWindow, path: String) throws(CaptureError) {
        records = RecordWindow(input: input, path: path)
        self.path = path
        _ = try records.input.fill(atLeast: Self.probeLength)
        if records.input.available == 0 {
            throw CaptureError(path: path, offset: 0, kind: .empty, message: "file is empty")
        }
        guard let bigEndian = Self.detectByteOrder(records.input.bytes) else {
            throw CaptureError(path: path, offset: 0, kind: .unknownFormat,
                               message: "not a PacketLogger file (no run of valid records at the start)")
        }
        isBigEndian = bigEndian
        info = CaptureInfo(format: .packetLogger, linkType: 0, formatDescription:
            "PacketLogger, \(bigEndian ? "big" : "little")-endian record headers")
    }

    /// The header byte order (true = big-endian) in which `bytes` starts with valid records,
    /// or nil when neither order does.
    ///
    /// Little-endian is tried first (Wireshark's "low 16 bits of the length are zero" swap rule
    /// falls out of it: such a length is too large and the big-endian walk takes over). Valid
    /// means: length 8...65549, microseconds < 1,000,000, a known type (when the record has one).
    /// Accepted: a run of at
    /// least 3 valid records (damage after them is the reader's to report), or 1-2 valid records
    /// that reach the end of `bytes` (a record cut by the end counts as reaching it).
    static func detectByteOrder(_ bytes: UnsafeRawBufferPointer) -> Bool? {
        for bigEndian in [false, true] where recordsLookValid(bytes, bigEndian: bigEndian) {
            return bigEndian
        }
        return nil
    }

    private static func recordsLookValid(_ bytes: UnsafeRawBufferPointer, bigEndian: Bool) -> Bool {
        var offset = 0
        var valid = 0
        while valid < recordsToCheck, offset + headerLength <= bytes.count {
            guard let length = bytes.uint32(at: offset, bigEndian: bigEndian),
                  let micros = bytes.uint32(at: offset + 8, bigEndian: bigEndian),
                  length >= minLength, length <= maxLength, micros < 1_000_000
            else { return valid >= 3 }
            if length > minLength {
                // A record cut before its type byte reaches the end.
                guard offset + headerLength < bytes.count else { break }
                guard PacketLoggerType(rawValue: bytes[offset + headerLength]).isKnown else { return valid >= 3 }
            }
            let end = offset + 4 + Int(length)
            if end > bytes.count { break }
            valid += 1
            offset = end
        }
        return valid > 0
    }

    public mutating func next() throws(CaptureError) -> CaptureRecord? {
        let headerLength = Self.headerLength
        guard let header = try records.nextHeader(length: headerLength) else { return nil }
        let length = header.uint32(at: 0, bigEndian: isBigEndian)
        guard length >= Self.minLength, length <= Self.maxLength else {
            try records.fail(
                "record \(frameNumber + 1): length \(length) is impossible (must be \(Self.minLength)...\(Self.maxLength))")
        }
        let total = 4 + Int(length)
        guard let p = try records.wholeRecord(length: total) else { return nil }
        let seconds = p.uint32(at: 4, bigEndian: isBigEndian)
        let micros = p.uint32(at: 8, bigEndian: isBigEndian)
        frameNumber += 1
        let timestamp = Int64(seconds) * 1_000_000 + Int64(micros)
        let record: CaptureRecord
        if total == headerLength {
            // Length 8: a timestamp and no type byte.
            record = CaptureRecord(frameNumber: frameNumber, timestamp: timestamp, direction: .unknown, kind: .other,
                                   payload: [], fileOffset: records.input.offset, originalLength: 0,
                                   rawType: PacketLoggerType.noTypeByte)
        } else {
            let type = PacketLoggerType(rawValue: p.load(fromByteOffset: headerLength, as: UInt8.self))
            let (kind, direction) = type.classification
            record = CaptureRecord(
                frameNumber: frameNumber, timestamp: timestamp, direction: direction, kind: kind,
                payload: copyBytes(p + headerLength + 1, count: total - headerLength - 1),
                fileOffset: records.input.offset, originalLength: total - headerLength, rawType: UInt16(type.rawValue))
        }
        records.consume(total)
        return record
    }
}
