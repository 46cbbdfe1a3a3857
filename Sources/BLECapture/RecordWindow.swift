/// The reading loop `BtsnoopReader` and `PacketLoggerReader` share: records that start with a
/// fixed-size header giving their length, parsed in place from an `InputWindow`.
///
/// A reader asks for the next record's header, checks it, asks for the whole record, builds
/// the capture record from the bytes and `consume`s them. The input ending before a header is
/// the end of the records; ending inside a header or a record is a truncation warning (Android
/// writes its log while it runs), not an error. `fail` stops the stream with damage that every
/// later call throws again (`CaptureReader.next`).
struct RecordWindow {
    var input: InputWindow
    let path: String
    private(set) var warnings: [CaptureWarning] = []
    private var state = ReaderState.reading

    init(input: InputWindow, path: String) {
        self.input = input
        self.path = path
    }

    /// The next record's first `length` bytes, in place until the next `fill` or `consume`;
    /// nil once the records have ended.
    @inline(__always)
    mutating func nextHeader(length: Int) throws(CaptureError) -> UnsafeRawPointer? {
        guard case .reading = state else {
            _ = try state.stoppedResult()
            return nil
        }
        guard try input.fill(atLeast: length) else {
            if input.available > 0 {
                truncated(need: length, header: true)
            } else {
                state = .finished
            }
            return nil
        }
        return input.pointer
    }

    /// The whole record of `length` bytes (header included), in place; nil when the input ends
    /// inside it.
    @inline(__always)
    mutating func wholeRecord(length: Int) throws(CaptureError) -> UnsafeRawPointer? {
        guard try input.fill(atLeast: length) else {
            truncated(need: length, header: false)
            return nil
        }
        return input.pointer
    }

    @inline(__always)
    mutating func consume(_ length: Int) {
        input.consume(length)
    }

    /// Stops the stream: damage at the current record, thrown now and by every later call.
    @inline(never)
    mutating func fail(_ message: String) throws(CaptureError) -> Never {
        let error = CaptureError(path: path, offset: input.offset, kind: .corrupt, message: message)
        state = .failed(error)
        throw error
    }

    /// The input ended inside a record: a warning, and the end of the records.
    @inline(never)
    private mutating func truncated(need: Int, header: Bool) {
        let offset = input.offset
        let have = input.available
        warnings.append(CaptureWarning(offset: offset, message: truncationMessage(
            recordOffset: offset, have: have, need: need, header: header)))
        input.consume(have)
        state = .finished
    }
}
