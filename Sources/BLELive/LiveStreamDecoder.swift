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

    mutating func feed(_ bytes: UnsafeRawBufferPointer) { buffer.append(bytes) }
    mutating func feed(_ bytes: some Collection<UInt8>) { buffer.append(bytes) }

    /// The next complete record, or nil when more bytes are needed.
    /// - Parameter arrival: when the buffered bytes arrived, for raw H4 (µs since the Unix epoch).
    mutating func next(arrival: Int64) throws(LiveError) -> LiveRecord? {
        do {
            return try step(arrival: arrival)
        } catch {
            if case .failed = state {} else { state = .failed(error, offset: offset) }
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
            } else if H4StreamDecoder.header(for: first) != nil {
                state = .h4(H4StreamDecoder())
            } else {
                throw LiveError(source: source, offset: 0, kind: .malformed, message:
                    "neither a btsnoop stream (btsnoop\\0) nor raw H4 (first byte 0x\(hex2(first)) is no H4 packet type 0x01-0x05)")
            }
            return try step(arrival: arrival)
        case .btsnoop(var d):
            defer { state = .btsnoop(d) }
            return try d.next(&buffer, source: source)
        case .h4(var d):
            defer { state = .h4(d) }
            return try d.next(&buffer, source: source, arrival: arrival)
        }
    }
}
