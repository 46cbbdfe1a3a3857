@testable import BLECapture
import BLECore
import Testing

/// Every prefix of a valid capture: the records that fit, then a truncation warning at the
/// first cut record, or an empty/unknown/corrupt-header error at byte 0 (swift-asn1 style).
@Suite("Every prefix")
struct PrefixTests {
    /// Record header length per format, for the "record header" variant of the warning.
    func recordHeaderLength(_ format: CaptureFormat) -> Int {
        switch format {
        case .btsnoop: 24
        case .packetLogger: 12
        case .pcap: 16
        case .pcapng: 8
        case .btsnooz: 0
        }
    }

    @Test("each prefix of each sample", arguments: SampleCaptures.all)
    func everyPrefix(_ sample: SampleCapture) {
        let full = readAll(bytes: sample.bytes).records
        for n in 0...sample.bytes.count {
            let result = readAll(bytes: Array(sample.bytes.prefix(n)))
            let context = Comment(rawValue: "\(sample.name) cut at \(n): \(String(describing: result.error))")
            if n == 0 {
                #expect(result.error?.kind == .empty, context)
                continue
            }
            let complete = sample.records.filter { $0.offset + $0.length <= n }
            let cut = sample.records.first { $0.offset < n && $0.offset + $0.length > n }
            // PacketLogger is only recognised from a whole record on.
            let recognisable = sample.format == .packetLogger ? !complete.isEmpty : n >= sample.headerLength
            guard recognisable else {
                let kind = result.error?.kind
                let allowed: [CaptureError.Kind] = sample.format == .btsnoop && n >= 8 ? [.corrupt] : [.unknownFormat, .corrupt]
                #expect(kind.map(allowed.contains) == true, context)
                #expect(result.error?.offset == 0 || result.error?.offset == nil, context)
                #expect(result.records.isEmpty, context)
                continue
            }
            #expect(result.error == nil, context)
            #expect(result.records.map { RecordView(record: $0, includeOffsets: true) }
                == full.prefix(complete.count).map { RecordView(record: $0, includeOffsets: true) }, context)
            if let cut {
                let have = n - cut.offset
                let header = recordHeaderLength(sample.format)
                let message = have < header
                    ? "truncated record header at byte \(cut.offset) (file ends after \(have) of \(header) bytes)"
                    : "truncated record at byte \(cut.offset) (file ends after \(have) of \(cut.length) bytes)"
                #expect(result.warnings == [CaptureWarning(offset: cut.offset, message: message)], context)
            } else {
                #expect(result.warnings.isEmpty, context)
            }
        }
    }

    @Test("each prefix of a btsnooz bugreport", arguments: [1, 2])
    func everyBugreportPrefix(_ version: Int) throws {
        let bytes = try SampleCaptures.bugreport(version: version)
        let full = readAll(bytes: bytes).records
        let text = String(decoding: bytes, as: UTF8.self)
        let begin = text.utf8.distance(from: text.startIndex, to: try #require(text.range(of: "--- BEGIN:")).upperBound)
        let end = text.utf8.distance(from: text.startIndex, to: try #require(text.range(of: "--- END:BTSNOOP_LOG_SUMMARY")).upperBound)
        for n in 0...bytes.count {
            let result = readAll(bytes: Array(bytes.prefix(n)))
            let context = Comment(rawValue: "cut at \(n): \(String(describing: result.error)) \(result.warnings)")
            if n == 0 {
                #expect(result.error?.kind == .empty, context)
            } else if n < begin + "BTSNOOP_LOG_SUMMARY".utf8.count {
                #expect(result.error?.kind == .unknownFormat, context)
            } else if n >= end {
                #expect(result.error == nil && result.warnings.isEmpty, context)
                #expect(result.records.count == full.count, context)
            } else {
                // Inside the section: some leading records (times anchored on the last one present)
                // with warnings, or a corrupt/unsupported preamble when too little of it decodes.
                if let error = result.error {
                    #expect(error.kind == .corrupt || error.kind == .unsupported, context)
                } else {
                    #expect(!result.warnings.isEmpty, context)
                }
                #expect(result.records.map(\.payload) == full.prefix(result.records.count).map(\.payload), context)
            }
        }
    }
    /// Raw btsnoop timestamps (µs since 0000-01-01, the record header's last 8 bytes) at the
    /// ends of the 64-bit range, which mutation never produced (issue 17).
    static let extremeRaw: [UInt64] = [0, UInt64.max, UInt64(Int64.max), UInt64(bitPattern: Int64.min),
                                       UInt64(bitPattern: Int64.max &+ Timestamp.btsnoopEpochOffset),
                                       UInt64(bitPattern: Int64.min &+ Timestamp.btsnoopEpochOffset)]

    /// Every prefix of each btsnoop sample whose records carry the extreme timestamps: the
    /// records that fit, each with the timestamp its header says (raw minus the epoch, two's
    /// complement, so an export writes the same bytes back), and one audit warning per absurd one.
    @Test("each prefix of a btsnoop sample with extreme timestamps",
          arguments: SampleCaptures.all.filter { $0.format == .btsnoop })
    func everyPrefixWithExtremeTimestamps(_ sample: SampleCapture) {
        var bytes = sample.bytes
        var expected: [Int64] = []
        for (i, r) in sample.records.enumerated() {
            let raw = Self.extremeRaw[i % Self.extremeRaw.count]
            for k in 0..<8 { bytes[r.offset + 16 + k] = UInt8(truncatingIfNeeded: raw >> (56 - 8 * UInt64(k))) }
            expected.append(Int64(bitPattern: raw) &- Timestamp.btsnoopEpochOffset)
        }
        for n in sample.headerLength...bytes.count {
            let result = readAll(bytes: Array(bytes.prefix(n)))
            let complete = sample.records.filter { $0.offset + $0.length <= n }.count
            let context = Comment(rawValue: "\(sample.name) cut at \(n): \(String(describing: result.error))")
            #expect(result.error == nil, context)
            #expect(result.records.map(\.timestamp) == Array(expected.prefix(complete)), context)
            var audit = TimestampAudit()
            for r in result.records { audit.check(r) }
            let absurd = expected.prefix(complete).filter { !Timestamp.isPlausible($0) }.count
            #expect(audit.absurdRecords == absurd, context)
            #expect(audit.warnings.map(\.offset) == result.records.filter { !Timestamp.isPlausible($0.timestamp) }
                .prefix(TimestampAudit.reportedLimit).map(\.fileOffset), context)
        }
    }
}
