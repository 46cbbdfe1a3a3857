import BLEAnalysis
import BLECapture
import BLECore
import BLEDecode
import FuzzDriver

/// libFuzzer entry point: the arithmetic the analysis does on capture times (issue 17), fed the
/// extreme timestamps plain mutation of capture files never reached. Input layout: repeated
/// [selector u8][direction u8][length u8][ATT PDU]; a selector below 0x80 picks one of
/// `extremes` (plus a small step, so neighbours of the limits come up), 0x80 and above takes
/// the next 8 bytes as the timestamp. Each PDU goes to the transaction matcher and the
/// timestamp audit, and its time through the formatting the reports use.
let extremes: [Int64] = [0, -1, 1, .max, .min, .max - 30_000_000, .min + 30_000_000,
                         -Timestamp.btsnoopEpochOffset, Timestamp.plausible.upperBound, 1_777_881_600_000_000]

@_cdecl("LLVMFuzzerTestOneInput")
func fuzzAnalysisEntry(_ data: UnsafePointer<UInt8>, _ size: Int) -> CInt {
    let bytes = UnsafeBufferPointer(start: data, count: size)
    var matcher = TransactionMatcher()
    var audit = TimestampAudit()
    var i = 0
    var frame = 1
    var last: Int64 = 0
    while i + 3 <= bytes.count {
        let selector = bytes[i]
        let direction: Direction = bytes[i + 1] & 1 == 0 ? .sent : .received
        var length = Int(bytes[i + 2])
        i += 3
        var ts: Int64
        if selector >= 0x80, i + 8 <= bytes.count {
            ts = 0
            for k in 0..<8 { ts = ts << 8 | Int64(bytes[i + k]) }
            i += 8
        } else {
            ts = extremes[Int(selector) % extremes.count].saturatingAdding(Int64(selector >> 4) - 4)
        }
        length = min(length, bytes.count - i)
        guard length > 0 else { break }
        let pdu = Array(bytes[i..<(i + length)])
        i += length
        let record = CaptureRecord(frameNumber: frame, timestamp: ts, direction: direction, kind: .acl,
                                   payload: pdu, fileOffset: i)
        audit.check(record)
        matcher.add(StoredATTPDU(packetID: frame, timestamp: ts, direction: direction, opcode: ATTOpcode(pdu[0]),
                                 pdu: try? ATTPDU(decoding: pdu[...]), bytes: pdu))
        _ = Timestamp.iso8601(ts)
        _ = TextFormat.duration(ts.saturatingSubtracting(last))
        _ = TextFormat.clock(ts)
        last = ts
        frame += 1
    }
    matcher.finish(disconnectedAt: frame % 2 == 0 ? last : nil, captureEnd: last)
    for t in matcher.drain() { _ = t.latency.map(TextFormat.duration) }
    _ = audit.warnings
    return 0
}

runFuzzer { data, size in
    guard let data else { return 0 }
    return fuzzAnalysisEntry(data, size)
}
