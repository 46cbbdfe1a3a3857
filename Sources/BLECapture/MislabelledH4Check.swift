/// Whether the records of a btsnoop file whose header says datalink 1001 (unencapsulated HCI,
/// H1) in fact start with an H4 packet-type byte, as some writers label their H4 data.
///
/// In an H1 file (REFERENCE.md "btsnoop") a record's packet is the bare HCI packet, its kind
/// given by the flags (bit 1 command/event, bit 0 received); in H4 (1002) the same flags and the
/// packet after an H4 type byte (Core v5.4 Vol 4 Part A 2). Each HCI header says how long its
/// packet is (`HCIPacketHeader`), so a record tells the two apart by itself: read as H4, its first
/// byte is the type the flags announce (0x01 for a sent command, 0x04 for a received event,
/// 0x02/0x03/0x05 for data) and the header after it gives the record's original length; read as
/// H1, the header at byte 0 does. A record may fit both by chance (an H1 command whose opcode's
/// low byte is 0x01 and whose first parameter happens to be the right number), so the verdict
/// is taken over the first `recordsLookedAt` records, never one: at least `minimumRecords`,
/// three quarters or more of them fitting H4 and fewer than a quarter fitting H1. A genuine H1
/// file fits H1 record after record and is never read as H4.
///
/// `BtsnoopReader` applies it to files and BLELive's `BtsnoopStreamDecoder` to streams, both
/// through `judging(records:inputEnded:)`.
package struct MislabelledH4Check: Sendable {
    package init() {}

    /// The check over the btsnoop records at the start of `bytes` (the bytes after the file
    /// header): up to `recordsLookedAt` records within `bytesLookedAt`, stopping at the first
    /// record whose lengths are impossible. Nil when `bytes` ends before that and more may come
    /// (`inputEnded` false): the verdict waits for them. With `inputEnded`, a cut record ends the
    /// look, and the verdict is taken on the records before it.
    package static func judging(records bytes: UnsafeRawBufferPointer, inputEnded: Bool) -> MislabelledH4Check? {
        var check = MislabelledH4Check()
        let headerLength = BtsnoopPacket.headerLength
        var at = 0
        var looked = 0
        while looked < recordsLookedAt, at < bytesLookedAt {
            guard at + headerLength <= bytes.count, let original = bytes.bigEndianUInt32(at: at),
                  let included = bytes.bigEndianUInt32(at: at + 4), let flags = bytes.bigEndianUInt32(at: at + 8) else {
                if inputEnded { break }
                return nil
            }
            guard BtsnoopPacket.lengthProblem(originalLength: original, includedLength: included) == nil else { break }
            let body = at + headerLength
            guard body + Int(included) <= bytes.count else {
                if inputEnded { break }
                return nil
            }
            check.look(flags: flags, originalLength: Int(original),
                       body: UnsafeRawBufferPointer(rebasing: bytes[body..<(body + Int(included))]))
            at = body + Int(included)
            looked += 1
        }
        return check
    }

    /// Records looked at, at most.
    package static let recordsLookedAt = 16
    /// Bytes of records looked at, at most (so a file of long ACL packets is not read far ahead).
    package static let bytesLookedAt = 256 * 1024
    /// Fewer records than this decide nothing: the file is read as its header says.
    package static let minimumRecords = 2

    /// Records judged (those with at least one byte of packet).
    package private(set) var judged = 0
    /// Records whose bytes are an H4 packet of the type the flags announce, of the original length.
    package private(set) var fitH4 = 0
    /// Records whose bytes are the HCI packet the flags announce, of the original length.
    package private(set) var fitH1 = 0

    /// Looks at one record: its header's flags and original length, and the packet bytes the
    /// file holds (possibly fewer than the original length: a snapshot-cut record).
    package mutating func look(flags: UInt32, originalLength: Int, body: UnsafeRawBufferPointer) {
        guard !body.isEmpty else { return }
        judged += 1
        guard flags <= 3 else { return }
        let received = flags & 1 != 0
        let commandOrEvent = flags & 2 != 0
        let type = H4PacketType(rawValue: body[0])
        let typeAgrees = commandOrEvent ? type == (received ? .event : .command)
                                        : [.acl, .sco, .iso].contains(type)
        if typeAgrees, let header = HCIPacketHeader(type: type),
           header.packetLength(in: body, at: 1).map({ 1 + $0 }) == originalLength {
            fitH4 += 1
        }
        let h1Type: H4PacketType = commandOrEvent ? (received ? .event : .command) : .acl
        if let header = HCIPacketHeader(type: h1Type), header.packetLength(in: body, at: 0) == originalLength {
            fitH1 += 1
        }
    }

    /// True when the records looked at are H4 packets, not H1 (see the type's note).
    package var recordsStartWithH4Type: Bool {
        judged >= Self.minimumRecords && fitH4 * 4 >= judged * 3 && fitH1 * 4 < judged
    }

    /// What the file is read as, for the capture's warnings.
    package var explanation: String {
        "the file header says datalink 1001 (unencapsulated HCI, H1), but its records start with an H4 "
            + "packet-type byte (\(fitH4) of the first \(judged) records are H4 packets of the type their flags "
            + "give and the length their header gives; \(fitH1) are H1 packets of their record's length): read as datalink "
            + "1002 (HCI UART, H4)"
    }
}
