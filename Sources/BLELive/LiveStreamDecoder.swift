import BLECore
import BLECapture

/// What a live byte stream turned out to be.
public enum LiveStreamFormat: Sendable, Hashable, CustomStringConvertible {
    /// A btsnoop v1 stream (file header, then records) of this datalink.
    case btsnoop(BtsnoopDatalink)
    /// Raw HCI UART packets, no header, no timestamps.
    case h4

    /// The datalink a recording of this stream is written in: 2001 for Linux monitor input
    /// (its notes and controller indexes have no H4 form), 1002 (H4) for everything else.
    public var outputDatalink: BtsnoopDatalink {
        if case .btsnoop(let link) = self, link == .monitor { return .monitor }
        return .h4
    }

    public var description: String {
        switch self {
        case .btsnoop(let link): "btsnoop v1, \(link) datalink \(link.rawValue)"
        case .h4: "raw H4"
        }
    }
}

/// A btsnoop stream or raw H4, told apart by the first bytes (`btsnoop\0` magic, else an H4
/// type byte 0x01-0x05), decoded as the bytes arrive. Used by `--stdin`, `--tcp` and `--follow`.
struct LiveStreamDecoder {
    private enum State {
        case detecting
        case btsnoop(BtsnoopStreamDecoder)
        case h4(H4StreamDecoder)
        /// Stopped by malformed bytes: the error again on every call, nothing pending.
        case failed(LiveError, offset: Int)
    }

    let source: String
    private var buffer = StreamBuffer()
    private var state = State.detecting
    private var lineEndings = LineEndingCount()
    /// Things the recording should warn about once (a stream that started mid-file), taken by the source.
    private var remarks: [String] = []
    /// The btsnoop decoder's note was taken.
    private var noteTaken = false

    init(source: String) {
        self.source = source
    }

    /// Known once the first bytes (for btsnoop: the whole file header) have arrived.
    var format: LiveStreamFormat? {
        switch state {
        case .detecting: nil
        case .btsnoop(let d): d.datalink.map { .btsnoop($0) }
        case .h4: .h4
        case .failed: nil
        }
    }

    /// Bytes received and not yet part of a record (a partial record at the end of the stream).
    var pendingBytes: Int { buffer.count }

    /// Those bytes: the beginning of the record the stream was cut in.
    var pending: [UInt8] { Array(buffer.bytes) }

    /// Offset in the stream of the first byte not yet decoded.
    var offset: Int {
        switch state {
        case .detecting: 0
        case .btsnoop(let d): d.offset
        case .h4(let d): d.offset
        case .failed(_, let offset): offset
        }
    }

    /// The bytes of a record still incomplete when `event` happened, as a warning; nil when no
    /// bytes are pending. `SOURCE: byte OFFSET: EVENT in the middle of a record (N bytes FATE)`.
    func unfinishedRecordWarning(source: String, event: String, fate: String = "kept out of the recording") -> String? {
        guard pendingBytes > 0 else { return nil }
        return "\(source): byte \(offset): \(event) in the middle of a record (\(pendingBytes) bytes \(fate))"
    }

    /// A source's `warnings`: `collected`, then the record still incomplete if the recording
    /// stopped now.
    func warnings(_ collected: [String], source: String) -> [String] {
        guard let unfinished = unfinishedRecordWarning(source: source, event: "recording stopped", fate: "not recorded")
        else { return collected }
        return collected + [unfinished]
    }

    mutating func feed(_ bytes: UnsafeRawBufferPointer) {
        lineEndings.add(bytes)
        buffer.append(bytes)
    }

    mutating func feed(_ bytes: some Collection<UInt8>) {
        Array(bytes).withUnsafeBytes { feed($0) }
    }

    /// The input ended: bytes that never became recognisable are the same error as bytes
    /// recognised as neither btsnoop nor H4; a verdict waiting for more records is taken on
    /// those that came.
    mutating func inputEnded() throws(LiveError) {
        inputPaused(ended: true)
        guard case .detecting = state, let first = buffer.bytes.first else { return }
        let error = LiveError(source: source, offset: 0, kind: .malformed, message: Self.neither(first))
        state = .failed(error, offset: 0)
        buffer.removeAll()
        throw error
    }

    private static func neither(_ first: UInt8, brokenH4: Bool = false) -> String {
        let h4 = brokenH4 ? "raw H4 (it breaks within the first packets)"
            : "raw H4 (first byte 0x\(hex2(first)) is no H4 packet type 0x01-0x05)"
        return "neither a btsnoop stream (btsnoop\\0, or whole btsnoop records) nor \(h4)"
    }

    /// Notes found while decoding since the last call, nothing lost (a stream labelled 1001
    /// read as H4): `SOURCE: byte OFFSET: NOTE`.
    mutating func takeNotes() -> [String] {
        guard case .btsnoop(let d) = state, let note = d.note, !noteTaken else { return [] }
        noteTaken = true
        return ["\(source): byte \(note.offset): \(note.message)"]
    }

    /// Nothing more arrived within one wait (`ended`: nor will, as when a followed file was
    /// rotated): a verdict waiting for more records (a stream labelled 1001,
    /// `BtsnoopStreamDecoder`) is taken on those that came, once there are enough.
    mutating func inputPaused(ended: Bool = false) {
        guard case .btsnoop(var d) = state else { return }
        d.inputPaused(ended: ended)
        state = .btsnoop(d)
    }

    /// Warnings found while decoding since the last call (a stream that started mid-file).
    mutating func takeRemarks() -> [String] {
        defer { remarks.removeAll() }
        return remarks
    }

    /// The next complete record, or nil when more bytes are needed.
    /// - Parameter arrival: when the buffered bytes arrived, for raw H4 (µs since the Unix epoch).
    mutating func next(arrival: Int64) throws(LiveError) -> LiveRecord? {
        do throws(LiveError) {
            // Every line feed after a carriage return: the bytes went through a text conversion
            // and the records are damaged; stop before importing them.
            if lineEndings.looksConverted(minimum: 8) {
                throw LiveError(source: source, offset: offset, kind: .malformed, message: lineEndings.explanation)
            }
            return try step(arrival: arrival)
        } catch {
            var error = error
            if case .failed = state {} else {
                if lineEndings.likelyConverted, !error.message.contains("CR LF") {
                    error.message += "; \(lineEndings.explanation)"
                }
                state = .failed(error, offset: offset)
            }
            buffer.removeAll()
            throw error
        }
    }

    private mutating func step(arrival: Int64) throws(LiveError) -> LiveRecord? {
        switch state {
        case .failed(let error, _):
            throw error
        case .detecting:
            guard let first = buffer.bytes.first else { return nil }
            if first == BtsnoopStreamDecoder.magic[0] {
                state = .btsnoop(BtsnoopStreamDecoder())
                return try step(arrival: arrival)
            }
            if lineEndings.looksConverted(minimum: 3) {
                throw LiveError(source: source, offset: 0, kind: .malformed, message: lineEndings.explanation)
            }
            var h4 = StreamDetection.Answer.none
            if HCIPacketHeader(type: H4PacketType(rawValue: first)) != nil {
                h4 = StreamDetection.h4(buffer.bytes)
                if h4 == .h4 {
                    state = .h4(H4StreamDecoder())
                    return try step(arrival: arrival)
                }
            }
            switch StreamDetection.btsnoopRecords(buffer.bytes) {
            case .btsnoop(let skip, let link):
                buffer.consume(skip)
                state = .btsnoop(BtsnoopStreamDecoder(headerless: link, offset: skip))
                let skipped = skip == 0 ? "it starts at a record"
                    : "skipped \(skip) byte\(skip == 1 ? "" : "s") to the first whole record"
                remarks.append("\(source): no btsnoop file header: the stream started in the middle of a btsnoop file; "
                               + "\(skipped), datalink \(link.rawValue) (\(link)) taken from the records")
                return try step(arrival: arrival)
            case .needMore where h4 == .h4Broken, .none where h4 == .h4Broken:
                // Whole H4 packets, then a bad type byte: H4 that breaks (said with its offset).
                state = .h4(H4StreamDecoder())
                return try step(arrival: arrival)
            case .needMore, .h4, .h4Broken:
                return nil
            case .none:
                throw LiveError(source: source, offset: 0, kind: .malformed,
                                message: Self.neither(first, brokenH4: HCIPacketHeader(type: H4PacketType(rawValue: first)) != nil))
            }
        case .btsnoop(var d):
            defer { state = .btsnoop(d) }
            return try d.next(&buffer, source: source)
        case .h4(var d):
            defer { state = .h4(d) }
            return try d.next(&buffer, source: source, arrival: arrival)
        }
    }
}
