import BLECore
import BLECapture

/// Telling what a stream is when it does not start with a btsnoop file header: raw H4, or a
/// btsnoop stream that starts in the middle of a file (`adb shell tail -f btsnoop_hci.log`, a
/// pipe joined late), and noticing the CR LF damage of `adb shell` on Windows.
enum StreamDetection {
    /// Bytes looked at before giving up on finding the first whole btsnoop record.
    static let searchLimit = 1 << 17

    enum Answer: Equatable {
        /// Not decided yet: more bytes are needed.
        case needMore
        /// Nothing found in what there is.
        case none
        /// Raw H4 from the first byte.
        case h4
        /// Whole H4 packets, then a byte that is no H4 type.
        case h4Broken
        /// Headerless btsnoop records of `datalink`, the first whole one at `skip`.
        case btsnoop(skip: Int, datalink: BtsnoopDatalink)
    }

    /// Raw H4 when the first packet is complete and every packet after it, up to the end of
    /// what has arrived, starts with an H4 type byte.
    static func h4(_ bytes: ArraySlice<UInt8>) -> Answer {
        var i = bytes.startIndex
        var packets = 0
        while i < bytes.endIndex {
            guard let header = HCIPacketHeader(type: H4PacketType(rawValue: bytes[i])) else { return packets > 0 ? .h4Broken : .none }
            guard let packet = header.packetLength(in: bytes, at: i + 1) else { return packets > 0 ? .h4 : .needMore }
            i += 1 + packet
            packets += 1
        }
        return i == bytes.endIndex ? .h4 : (packets > 1 ? .h4 : .needMore)
    }

    /// The first offset where whole btsnoop records follow each other (a record whose packet
    /// is consistent with its own lengths, then the header of the next one or the end).
    static func btsnoopRecords(_ bytes: ArraySlice<UInt8>) -> Answer {
        let base = bytes.startIndex
        let count = bytes.count
        let header = BtsnoopPacket.headerLength
        for k in 0..<min(count, searchLimit) {
            // A record header starts with 00 00 (its original length is at most 65540).
            guard bytes[base + k] == 0, k + 1 == count || bytes[base + k + 1] == 0 else { continue }
            if count - k < header { return .needMore }
            if let (link, total) = record(bytes, at: base + k, datalink: nil) {
                let next = k + total
                if next == count { return .btsnoop(skip: k, datalink: link) }
                if count - next < header { return .needMore }
                if plausibleHeader(bytes, at: base + next) != nil {
                    if body(bytes, at: base + next) == nil { return .btsnoop(skip: k, datalink: link) }
                    if record(bytes, at: base + next, datalink: link) != nil { return .btsnoop(skip: k, datalink: link) }
                }
            } else if plausibleHeader(bytes, at: base + k) != nil && body(bytes, at: base + k) == nil {
                return .needMore  // a likely header whose packet has not arrived yet
            }
        }
        return .none
    }

    /// Included length of a record header that could be real: lengths in range, flags that
    /// a btsnoop writer sets, a time between 1970 and 2100.
    private static func plausibleHeader(_ b: ArraySlice<UInt8>, at i: Int) -> Int? {
        guard b.endIndex - i >= BtsnoopPacket.headerLength else { return nil }
        let original = u32(b, i), included = u32(b, i + 4)
        guard included > 0, included <= original, original <= UInt32(BtsnoopPacket.maxIncludedLength),
              BtsnoopPacket.lengthProblem(originalLength: original, includedLength: included) == nil else { return nil }
        let stamp = Int64(bitPattern: UInt64(u32(b, i + 16)) << 32 | UInt64(u32(b, i + 20))) &- Timestamp.btsnoopEpochOffset
        guard stamp >= 0, stamp < 4_102_444_800_000_000 else { return nil }
        return Int(included)
    }

    /// The packet of the record at `i` when it has arrived whole.
    private static func body(_ b: ArraySlice<UInt8>, at i: Int) -> ArraySlice<UInt8>? {
        guard let included = plausibleHeader(b, at: i), b.endIndex - i >= BtsnoopPacket.headerLength + included else { return nil }
        return b[(i + BtsnoopPacket.headerLength)..<(i + BtsnoopPacket.headerLength + included)]
    }

    /// The datalink the whole record at `i` is consistent with (its packet's own length field
    /// matches the record's), and the record's length.
    private static func record(_ b: ArraySlice<UInt8>, at i: Int, datalink: BtsnoopDatalink?) -> (BtsnoopDatalink, Int)? {
        guard let p = body(b, at: i) else { return nil }
        let flags = u32(b, i + 8)
        for link in datalink.map({ [$0] }) ?? [.h4, .monitor, .h1] where consistent(p, flags: flags, datalink: link) {
            return (link, BtsnoopPacket.headerLength + p.count)
        }
        return nil
    }

    private static func consistent(_ p: ArraySlice<UInt8>, flags: UInt32, datalink: BtsnoopDatalink) -> Bool {
        let s = p.startIndex
        func fits(_ type: UInt8, at start: Int) -> Bool {
            guard let packet = HCIPacketHeader(type: H4PacketType(rawValue: type))?.packetLength(in: p, at: start) else { return false }
            return start + packet == p.endIndex
        }
        switch datalink {
        case .h4:
            guard flags <= 3 else { return false }
            let type = p[s]
            let command = flags & 2 != 0
            guard command == (type == 0x01 || type == 0x04) else { return false }
            return fits(type, at: s + 1)
        case .h1:
            guard flags <= 3 else { return false }
            if flags & 2 == 0 { return fits(0x02, at: s) }
            return fits(flags & 1 == 0 ? 0x01 : 0x04, at: s)
        case .monitor:
            // Only command, event, ACL and ISO records are used to recognise the stream.
            guard flags >> 16 < 0x100 else { return false }
            let kind = MonitorOpcode(rawValue: UInt16(flags & 0xFFFF)).classification.kind
            guard [.command, .event, .acl, .iso].contains(kind), let type = H4PacketType(kind: kind) else { return false }
            return fits(type.rawValue, at: s)
        default:
            return false
        }
    }

    private static func u32(_ b: ArraySlice<UInt8>, _ i: Int) -> UInt32 {
        UInt32(b[i]) << 24 | UInt32(b[i + 1]) << 16 | UInt32(b[i + 2]) << 8 | UInt32(b[i + 3])
    }
}

/// Counts 0x0A bytes and those that follow 0x0D, across chunks: a stream whose every 0x0A
/// follows a 0x0D went through a LF→CRLF conversion (`adb shell` on Windows, a text-mode pipe).
struct LineEndingCount {
    private(set) var lineFeeds = 0
    private(set) var afterCarriageReturn = 0
    private var lastWasCR = false

    mutating func add(_ bytes: UnsafeRawBufferPointer) {
        var lf = 0, crlf = 0, previousCR = lastWasCR
        for byte in bytes {
            if byte == 0x0A {
                lf += 1
                if previousCR { crlf += 1 }
            }
            previousCR = byte == 0x0D
        }
        lastWasCR = previousCR
        lineFeeds += lf
        afterCarriageReturn += crlf
    }

    /// Every one of at least `minimum` line feeds follows a carriage return.
    func looksConverted(minimum: Int) -> Bool { lineFeeds >= minimum && afterCarriageReturn == lineFeeds }

    /// Most line feeds follow a carriage return (said when the stream broke).
    var likelyConverted: Bool { afterCarriageReturn > 0 && afterCarriageReturn * 2 >= lineFeeds }

    var explanation: String {
        "the stream looks converted from LF to CR LF (\(afterCarriageReturn) of its \(lineFeeds) 0x0A bytes follow a 0x0D), "
            + "as `adb shell` does on Windows: read it with `adb exec-out …` or `adb pull` instead"
    }
}
