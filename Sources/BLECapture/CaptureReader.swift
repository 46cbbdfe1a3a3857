import BLECore

/// A streaming reader of capture records, one format per implementation.
///
/// Usage: `var reader = try CaptureFile.open(path); while let record = try reader.next() { ... }`.
public protocol CaptureReader {
    var info: CaptureInfo { get }
    /// The file name used in errors and warnings.
    var path: String { get }
    /// The next record, or nil at the end.
    ///
    /// A record cut short by the end of the file (Android writes the log while it runs) ends
    /// the stream and adds a warning with its offset; it is not an error. Damage in the middle
    /// (impossible lengths and the like) throws `.corrupt` with the offset, after every good
    /// record before it has been returned; later calls throw the same error again.
    mutating func next() throws(CaptureError) -> CaptureRecord?
    /// Warnings collected so far (truncation at the end of the file, oddities that were skipped).
    var warnings: [CaptureWarning] { get }
    /// What the user should know about how the file was read that loses nothing (a file read
    /// otherwise than its header says, packets the file gives no time): kept with the capture's
    /// warnings, but unlike them no sign the capture is cut. Complete once `next()` returned nil.
    var notes: [CaptureWarning] { get }
    /// Bytes of the file consumed so far, for progress reporting.
    var bytesRead: Int { get }
}

extension CaptureReader {
    public var notes: [CaptureWarning] { [] }
}

/// Where a reader is in its stream: reading, done, or stopped by an error it repeats.
enum ReaderState {
    case reading
    case finished
    case failed(CaptureError)

    /// What `next()` answers once the reader has stopped: nil, or the error again.
    func stoppedResult() throws(CaptureError) -> CaptureRecord? {
        if case .failed(let error) = self { throw error }
        return nil
    }
}
