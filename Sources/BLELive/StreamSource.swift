import BLECore
import BLECapture

/// A btsnoop stream or raw H4 read from a file descriptor: standard input (`--stdin`, for
/// `adb shell …`, `nc` and pipes) or any other pipe or socket the caller opened.
///
/// Reads whatever has arrived (up to 64 KiB at a time) after `poll(2)` says the descriptor is
/// readable, so a quiet pipe never blocks the recorder. End of input ends the source; a record
/// cut short by the end is a warning (the writer died mid-record), not an error.
public final class StreamSource: LiveSource {
    public let name: String
    public let fileDescriptor: Int32
    private var collected: [String] = []
    /// Notes: nothing was lost (a stream labelled 1001 read as H4).
    public private(set) var notes: [String] = []
    private var decoder: LiveStreamDecoder
    private var buffer = [UInt8](repeating: 0, count: 1 << 16)
    private var arrival: Int64 = 0
    private var ended = false

    /// - Parameters:
    ///   - fileDescriptor: read, never closed (stdin is 0).
    ///   - name: used in messages, `<stdin>` by default.
    public init(fileDescriptor: Int32 = 0, name: String = "<stdin>") {
        self.fileDescriptor = fileDescriptor
        self.name = name
        decoder = LiveStreamDecoder(source: name)
    }

    public var format: LiveStreamFormat? { decoder.format }

    /// Recoverable oddities so far, and a record still incomplete when the recording stops.
    public var warnings: [String] { ended ? collected : decoder.warnings(collected, source: name) }

    public func next(timeoutMilliseconds: Int) throws(LiveError) -> SourceEvent {
        if let record = try decodeNext() { return .record(record) }
        if ended { return .end }
        do {
            guard try Syscall.waitReadable(fileDescriptor, timeoutMilliseconds: timeoutMilliseconds) else {
                decoder.inputPaused()
                return try decodeNext().map { .record($0) } ?? .idle
            }
            let n = try Syscall.readBytes(fileDescriptor, into: &buffer)
            if n == 0 {
                try decoder.inputEnded()
                // Records held for a verdict on the stream's datalink come out first.
                if let record = try decodeNext() { return .record(record) }
                if let warning = decoder.unfinishedRecordWarning(source: name, event: "input ended") {
                    collected.append(warning)
                }
                ended = true
                return .end
            }
            arrival = Syscall.wallClockMicroseconds()
            buffer.withUnsafeBytes { decoder.feed(UnsafeRawBufferPointer(rebasing: $0[0..<n])) }
        } catch {
            if let error = error as? LiveError { throw error }
            throw LiveError(source: name, offset: decoder.offset, kind: .io, message: "read failed: \(error)")
        }
        if let record = try decodeNext() { return .record(record) }
        return .idle
    }

    private func decodeNext() throws(LiveError) -> LiveRecord? {
        defer {
            collected += decoder.takeRemarks()
            notes += decoder.takeNotes()
        }
        return try decoder.next(arrival: arrival)
    }
}
