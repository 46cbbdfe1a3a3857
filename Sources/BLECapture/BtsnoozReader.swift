import BLECore

/// Reads the Android btsnooz log inside an `adb bugreport` (or `dumpsys bluetooth_manager`) text.
///
/// Layout (captures/MANIFEST.md "Android btsnooz"; AOSP `btif_debug_btsnoop.cc` writer and
/// `tools/scripts/btsnooz.py` reader): base64 lines between `--- BEGIN:BTSNOOP_LOG_SUMMARY`
/// and `--- END:BTSNOOP_LOG_SUMMARY`; decoded, a 9-byte preamble (u8 version 1 or 2, u64 last
/// timestamp) and a zlib stream of records, all little-endian: v1 {u16 length, u32 delta,
/// u8 type}, v2 {u16 length, u16 packet length, u32 delta, u8 type}, then `length - 1` bytes
/// (length counts the type byte; v2 keeps ACL payloads short and `packet length` says how long
/// they were). Types 0x10/0x11/0x12/0x17 incoming event/ACL/SCO/ISO, 0x20/0x21/0x22/0x2D
/// outgoing command/ACL/SCO/ISO; the type is kept as `rawType`, and `originalLength` is the
/// v2 packet length (v1: the included length), type byte included.
///
/// Time: despite their `_ms` names, AOSP stores microseconds (`timestamp_us` from the snoop
/// callback, Unix epoch) in both the preamble and the deltas, and btsnooz.py adds the btsnoop
/// epoch offset in microseconds to them. The preamble holds the last record's time; the first
/// record's time is that minus every delta, and each record adds its own delta.
///
/// The decoded stream is at most a few hundred KiB (Android keeps a 256 KiB ring buffer), so it
/// is held in memory (capped at 64 MiB); the surrounding bugreport text is streamed, never
/// loaded. `fileOffset` of a record is its offset in the decompressed record stream (it has no
/// position in the file); errors name the file offset of the base64 section.
public struct BtsnoozReader: CaptureReader {
    static let beginMarker = Array("--- BEGIN:BTSNOOP_LOG_SUMMARY".utf8)
    static let endMarker = Array("--- END:BTSNOOP_LOG_SUMMARY".utf8)
    static let maxDecodedLength = 48 << 20
    static let maxDecompressedLength = 64 << 20

    public let info: CaptureInfo
    public let path: String
    public private(set) var warnings: [CaptureWarning] = []
    public let bytesRead: Int
    public let version: UInt8

    private let stream: [UInt8]
    private let headerLength: Int
    /// End of the last complete record in `stream`.
    private let usableEnd: Int
    private var position = 0
    private var timestamp: Int64
    private var frameNumber = 0
    private var state = ReaderState.reading
    /// File offset of the base64 text.
    private let sectionOffset: Int
    /// What to report when the records run out: a truncation warning and/or damage.
    private var endWarnings: [CaptureWarning] = []
    private var endError: CaptureError?

    public init(source: any ByteSource, path: String? = nil) throws(CaptureError) {
        try self.init(input: InputWindow(source: source), path: path ?? source.name)
    }

    init(input: InputWindow, path: String) throws(CaptureError) {
        var input = input
        self.path = path
        let section = try Self.extractSection(&input, path: path)
        sectionOffset = section.offset
        bytesRead = input.offset
        endWarnings = section.warnings
        let decoded = section.bytes
        guard decoded.count >= 9 else {
            throw CaptureError(path: path, offset: sectionOffset, kind: .corrupt, message:
                "btsnooz section decodes to \(decoded.count) bytes, fewer than its 9-byte preamble")
        }
        version = decoded[0]
        guard version == 1 || version == 2 else {
            throw CaptureError(path: path, offset: sectionOffset, kind: .unsupported,
                               message: "btsnooz version \(version) is not supported (versions 1 and 2 are)")
        }
        var last: UInt64 = 0
        for k in (1...8).reversed() { last = last << 8 | UInt64(decoded[k]) }
        info = CaptureInfo(format: .btsnooz, linkType: 0,
                           formatDescription: "Android btsnooz v\(version) (bugreport BTSNOOP_LOG_SUMMARY)")
        headerLength = version == 1 ? 7 : 9

        let (stream, outcome) = Inflater.inflate(Array(decoded[9...]), limit: Self.maxDecompressedLength)
        self.stream = stream
        switch outcome {
        case .complete:
            break
        case .truncated:
            endWarnings.append(CaptureWarning(offset: sectionOffset, message:
                "btsnooz compressed stream ends early (after \(stream.count) decompressed bytes): the bugreport was cut; "
                    + "times are anchored on the last record present and are late by the lost records' deltas"))
        case .damaged(let why):
            endError = CaptureError(path: path, offset: sectionOffset, kind: .corrupt, message:
                "btsnooz compressed stream is damaged after \(stream.count) decompressed bytes: \(why)")
        case .tooLarge:
            endError = CaptureError(path: path, offset: sectionOffset, kind: .corrupt, message:
                "btsnooz stream decompresses to more than \(Self.maxDecompressedLength) bytes")
        }

        // First pass: find the complete records and add up their deltas.
        var offset = 0
        var deltas: UInt64 = 0
        let h = headerLength
        while offset < stream.count {
            guard offset + h <= stream.count else {
                endWarnings.append(CaptureWarning(offset: sectionOffset, message: "btsnooz stream: "
                    + truncationMessage(recordOffset: offset, have: stream.count - offset, need: h, header: true)))
                break
            }
            let length = Int(stream[offset]) | Int(stream[offset + 1]) << 8
            guard length >= 1 else {
                if endError == nil {
                    endError = CaptureError(path: path, offset: sectionOffset, kind: .corrupt, message:
                        "btsnooz stream byte \(offset): record length 0 (it must count the type byte)")
                }
                break
            }
            let end = offset + h + length - 1
            guard end <= stream.count else {
                endWarnings.append(CaptureWarning(offset: sectionOffset, message: "btsnooz stream: "
                    + truncationMessage(recordOffset: offset, have: stream.count - offset, need: end - offset)))
                break
            }
            deltas &+= UInt64(Self.delta(stream, at: offset, version: version))
            offset = end
        }
        usableEnd = offset
        timestamp = Int64(bitPattern: last) &- Int64(bitPattern: deltas)
    }

    private static func delta(_ stream: [UInt8], at offset: Int, version: UInt8) -> UInt32 {
        let d = offset + (version == 1 ? 2 : 4)
        return UInt32(stream[d]) | UInt32(stream[d + 1]) << 8 | UInt32(stream[d + 2]) << 16 | UInt32(stream[d + 3]) << 24
    }

    public mutating func next() throws(CaptureError) -> CaptureRecord? {
        guard case .reading = state else { return try state.stoppedResult() }
        guard position < usableEnd else {
            warnings += endWarnings
            if let endError {
                state = .failed(endError)
                throw endError
            }
            state = .finished
            return nil
        }
        let offset = position
        let length = Int(stream[offset]) | Int(stream[offset + 1]) << 8
        let packetLength = version == 1 ? length : Int(stream[offset + 2]) | Int(stream[offset + 3]) << 8
        let type = stream[offset + headerLength - 1]
        timestamp &+= Int64(Self.delta(stream, at: offset, version: version))
        let payloadStart = offset + headerLength
        position = payloadStart + length - 1
        frameNumber += 1
        let (kind, direction) = Self.classify(type)
        return CaptureRecord(frameNumber: frameNumber, timestamp: timestamp, direction: direction, kind: kind,
                             payload: Array(stream[payloadStart..<position]), fileOffset: offset,
                             originalLength: packetLength, rawType: UInt16(type))
    }

    /// Kind and direction of a btsnooz record type (AOSP `btsnooz.py` TYPE_* values).
    static func classify(_ type: UInt8) -> (PacketKind, Direction) {
        switch type {
        case 0x10: (.event, .received)
        case 0x11: (.acl, .received)
        case 0x12: (.sco, .received)
        case 0x17: (.iso, .received)
        case 0x20: (.command, .sent)
        case 0x21: (.acl, .sent)
        case 0x22: (.sco, .sent)
        case 0x2D: (.iso, .sent)
        default: (.other, .unknown)
        }
    }

    // MARK: finding the section in the text

    private struct Section {
        var bytes: [UInt8]
        var offset: Int
        var warnings: [CaptureWarning]
    }

    /// Streams through the text to the BEGIN marker, then decodes base64 up to the END marker.
    private static func extractSection(_ input: inout InputWindow, path: String) throws(CaptureError) -> Section {
        guard try input.fill(atLeast: 1) else {
            throw CaptureError(path: path, offset: 0, kind: .empty, message: "file is empty")
        }
        guard let markerOffset = try skip(through: beginMarker, in: &input) else {
            throw CaptureError(path: path, offset: 0, kind: .unknownFormat,
                               message: "no --- BEGIN:BTSNOOP_LOG_SUMMARY section (not an Android bugreport with a btsnooz log)")
        }
        // The rest of the marker line is "(N bytes in) ---".
        _ = try skip(through: [UInt8(ascii: "\n")], in: &input)
        let sectionOffset = input.offset
        var decoder = Base64Text(capacity: 256 * 1024)
        var warnings: [CaptureWarning] = []
        let keep = endMarker.count - 1
        while true {
            let full = try input.fill(atLeast: max(endMarker.count, min(input.available + 1, 64 * 1024)))
            let window = input.bytes
            let found = firstIndex(of: endMarker, in: window)
            let take = found ?? (full ? max(0, window.count - keep) : window.count)
            if let bad = decoder.feed(UnsafeRawBufferPointer(rebasing: window[0..<take])) {
                throw CaptureError(path: path, offset: input.offset + bad, kind: .corrupt, message:
                    "btsnooz section (from byte \(sectionOffset)): byte 0x\(String(window[bad], radix: 16)) is not base64")
            }
            input.consume(take)
            if decoder.count > maxDecodedLength {
                throw CaptureError(path: path, offset: sectionOffset, kind: .corrupt,
                                   message: "btsnooz section is larger than \(maxDecodedLength) bytes")
            }
            if found != nil { break }
            if !full && input.available == 0 {
                warnings.append(CaptureWarning(offset: markerOffset, message:
                    "btsnooz section starting at byte \(markerOffset) has no END marker: the file ends inside it"))
                break
            }
        }
        return Section(bytes: decoder.bytes, offset: sectionOffset, warnings: warnings)
    }

    /// Consumes input up to and including the first `needle`; returns the needle's offset, or
    /// nil (everything consumed) when the input ends without it.
    private static func skip(through needle: [UInt8], in input: inout InputWindow) throws(CaptureError) -> Int? {
        let keep = needle.count - 1
        while true {
            let full = try input.fill(atLeast: max(needle.count, min(input.available + 1, InputWindow.defaultCapacity)))
            if let index = firstIndex(of: needle, in: input.bytes) {
                let offset = input.offset + index
                input.consume(index + needle.count)
                return offset
            }
            if !full {
                input.consume(input.available)
                return nil
            }
            input.consume(max(0, input.available - keep))
        }
    }

    /// The index of the first occurrence of `needle` in `haystack`.
    static func firstIndex(of needle: [UInt8], in haystack: UnsafeRawBufferPointer) -> Int? {
        guard let first = needle.first, haystack.count >= needle.count else { return nil }
        let last = haystack.count - needle.count
        var i = 0
        while i <= last {
            if haystack[i] == first {
                var j = 1
                while j < needle.count && haystack[i + j] == needle[j] { j += 1 }
                if j == needle.count { return i }
            }
            i += 1
        }
        return nil
    }
}
