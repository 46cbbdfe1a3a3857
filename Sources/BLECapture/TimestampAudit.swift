import BLECore

/// Watches the timestamps of a capture's records and warns about absurd ones.
///
/// Timestamps come from files, and files lie (STYLE lesson 15): a btsnoop record can carry any
/// 64-bit value. A timestamp outside `Timestamp.plausible` (years 0-9999) is kept as read (the
/// timeline shows what the file says, and everything downstream computes with saturating
/// arithmetic), and gets a capture warning naming its record number and file offset. The first
/// `reportedLimit` are warned about one by one; `warnings` then ends with one line counting the rest,
/// so a file of a million absurd records cannot fill memory with warnings.
public struct TimestampAudit: Sendable {
    /// Absurd timestamps reported one by one.
    public static let reportedLimit = 20

    /// Records seen with an absurd timestamp.
    public private(set) var absurdRecords = 0
    private var reported: [CaptureWarning] = []
    /// Where the last absurd timestamp not reported one by one was.
    private var lastUnreported: (frame: Int, offset: Int)?

    public init() {}

    /// Looks at one record's timestamp.
    public mutating func check(_ record: CaptureRecord) {
        guard !Timestamp.isPlausible(record.timestamp) else { return }
        absurdRecords += 1
        if reported.count < Self.reportedLimit {
            reported.append(CaptureWarning(offset: record.fileOffset, message:
                "record \(record.frameNumber): absurd timestamp \(record.timestamp) µs since the Unix epoch "
                + "(\(Timestamp.iso8601(record.timestamp)), outside btsnoop's year 0 to 9999); kept as read, "
                + "durations measured from it are meaningless"))
        } else {
            lastUnreported = (record.frameNumber, record.fileOffset)
        }
    }

    /// The warnings: one per absurd timestamp up to `reportedLimit`, then a count of the rest.
    public var warnings: [CaptureWarning] {
        guard let last = lastUnreported else { return reported }
        let more = absurdRecords - reported.count
        return reported + [CaptureWarning(offset: last.offset, message:
            "\(more) more record(s) with an absurd timestamp, the last one record \(last.frame)")]
    }
}
