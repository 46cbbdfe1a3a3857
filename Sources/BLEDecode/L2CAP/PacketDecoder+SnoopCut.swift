import BLECore

/// ACL records that the capture writer cut on purpose: Android's filtered snoop log
/// (`persist.bluetooth.btsnooplogmode=filtered`, written as `btsnoop_hci.log.filtered`) and
/// btsnooz v2 records keep the original length in the record header and fewer bytes.
///
/// What AOSP's snoop logger (system/gd/hal/snoop_logger.cc, FilterCapturedPacket) does in
/// filtered mode, to ACL packets only (commands, events, SCO and ISO are kept whole):
/// - the headers filter keeps 14 bytes of an H4 start fragment (type byte, ACL header, L2CAP
///   header and 5 payload bytes) unless its CID is the BR/EDR signalling channel 0x0001;
///   continuation fragments are kept whole;
/// - the RFCOMM filter keeps only the ACL and L2CAP headers (9 bytes with the type byte) of
///   RFCOMM frames on channels not accept-listed;
/// - A2DP media packets are left out entirely (no record at all);
/// - PBAP/MAP/HFP filters rewrite or drop payloads (those records are not cut, they are changed).
///
/// A cut record is decoded as far as its bytes go: its connection, channel, and the opcode or
/// code of the PDU it starts. What the cut removed is unknown, so it is neither malformed nor a
/// reassembly failure, and no PDU is made up from the bytes that are left: an ATT PDU whose
/// opcode survived becomes a cut ATT event (`ATTEvent.isCut`: its opcode known, its fields not),
/// the summary says what was kept, and every cut record carries a "Snoop log cut" link event so
/// the diagnosis and replay can say that the log was filtered and where. The continuation fragments of a PDU
/// whose start was cut are named as such, never as fragments with no PDU pending.
extension PacketDecoder {
    /// Kept and original ACL bytes of a record the writer cut (the H4 type byte not counted),
    /// nil for a whole record. `originalLength` counts the type byte when the reader removed one
    /// (`CaptureRecord.originalLength`).
    static func writerCut(_ record: CaptureRecord) -> (kept: Int, original: Int)? {
        guard record.kind == .acl, record.originalLength > record.payload.count + 1 else { return nil }
        return (record.payload.count, record.originalLength - 1)
    }

    mutating func decodeCutACL(_ payload: [UInt8], kept: Int, original: Int, into d: inout PacketDraft) {
        d.layer = .acl
        let note = " (cut by the capture writer: \(kept) of \(original) bytes kept, \(options.cutWriter.rawValue))"
        guard payload.count >= 4 else {
            d.summary.set(d.prefix + "ACL" + note)
            return
        }
        let word = UInt16(payload[0]) | UInt16(payload[1]) << 8
        let handle = word & 0x0FFF
        let isStart = (word >> 12) & 0x3 != 0b01
        let declared = Int(payload[2]) | Int(payload[3]) << 8
        guard handle <= Self.maximumConnectionHandle,
              handle != Self.vendorDiagnosticHandle || tracker.connection(handle)?.origin == .event else {
            d.summary.set(d.prefix + "ACL on handle " + Fmt.h4(handle) + " (controller diagnostics)" + note)
            return
        }
        let data = payload[4...]
        var cid: UInt16?
        if isStart, data.count >= 4 {
            cid = UInt16(data[data.startIndex + 2]) | UInt16(data[data.startIndex + 3]) << 8
        }
        let hint: Transport = cid.map(Self.cidImpliesBREDR) == true ? .bredr : .le
        let (conn, isNew) = tracker.connectionForACL(handle: handle, transportHint: hint, at: d.base)
        d.connection = conn.ref
        if isNew { d.events.append(.connectionFoundInProgress(conn.ref, transport: conn.transport)) }
        let key = ACLReassembler.Key(handle: handle, direction: d.direction, controller: controller)
        // A PDU in progress on this link and direction lost its bytes with this record.
        _ = reassembler.discard(key: key)
        cutContinuations[key] = nil
        d.events.append(.linkEvent(LinkEvent(name: Self.snoopCutEventName, connection: conn.ref, status: nil,
                                             fields: [("kept", "\(kept)"), ("original", "\(original)")])))
        guard let cid else {
            d.summary.set(d.prefix + "ACL " + (isStart ? "start" : "continuation") + " fragment, \(declared) bytes" + note)
            return
        }
        if conn.origin.isInferred, let clue = TransportClues.transport(ofChannel: cid) {
            learnTransport(clue, handle: handle, clue: "L2CAP CID " + Fmt.h4(cid), into: &d)
        }
        let l2capLength = Int(data[data.startIndex]) | Int(data[data.startIndex + 1]) << 8
        // The rest of the PDU comes in continuation fragments, kept whole by the writer.
        let remaining = l2capLength &+ 4 &- declared
        if remaining > 0 { cutContinuations[key] = remaining }
        let pdu = data.dropFirst(4)
        let transport = tracker.connection(handle)?.transport ?? conn.transport
        d.layer = .l2cap
        d.summary.set(d.prefix + cutChannelName(cid, transport: transport, first: pdu.first, connection: conn.ref,
                                              direction: d.direction)
            + ", \(l2capLength) bytes" + note)
        // An ATT PDU whose opcode survived: kept as a cut PDU (its opcode pairs transactions;
        // its fields are unknown), on the fixed channel or a BR/EDR ATT channel.
        guard let opcode = pdu.first else { return }
        var bearer: UInt16?
        if transport == .le {
            guard cid == 0x0004 else { return }
        } else {
            guard let channel = channels.channel(connection: conn.ref.index, direction: d.direction, cid: cid),
                  channel.psm == Self.attPSM,
                  channels.isBasicMode(connection: conn.ref.index, bearer: channel.bearer) else { return }
            bearer = channel.bearer
        }
        d.layer = .att
        var event = ATTEvent(connection: conn.ref, direction: d.direction, opcode: ATTOpcode(rawValue: opcode),
                             pdu: nil, problem: nil, bytes: Array(pdu), bearer: bearer)
        event.isCut = true
        d.events.append(.att(event))
    }

    /// A continuation fragment of a PDU whose start the writer cut: the bytes are real, the PDU
    /// they belong to is not whole. True when `data` was one.
    mutating func absorbCutContinuation(_ data: ArraySlice<UInt8>, key: ACLReassembler.Key,
                                        into d: inout PacketDraft) -> Bool {
        guard let remaining = cutContinuations[key] else { return false }
        let left = remaining - data.count
        cutContinuations[key] = left > 0 ? left : nil
        d.summary.set(d.prefix + "ACL continuation fragment (\(data.count) bytes) of an L2CAP PDU whose start the capture writer cut")
        return true
    }

    public static let snoopCutEventName = "Snoop log cut"

    /// What channel and PDU a cut frame starts, from the bytes that are there.
    private func cutChannelName(_ cid: UInt16, transport: Transport, first: UInt8?, connection: ConnectionRef,
                                direction: Direction) -> String {
        if transport == .le {
            switch cid {
            case 0x0004: return first.map { ATTOpcode(rawValue: $0).name } ?? "ATT"
            case 0x0005: return "LE signalling"
            case 0x0006: return first.map { SMPCode(rawValue: $0).name } ?? "SMP"
            default: return "L2CAP CID " + Fmt.h4(cid)
            }
        }
        if cid == 0x0007 { return (first.map { SMPCode(rawValue: $0).name } ?? "SMP") + " (BR/EDR)" }
        if let psm = channels.psm(connection: connection.index, direction: direction, cid: cid) {
            let name = psm == Self.attPSM ? (first.map { ATTOpcode(rawValue: $0).name } ?? "ATT") + " (BR/EDR ATT)"
                : BREDRNames.psm(psm)
            return "BR/EDR L2CAP CID " + Fmt.h4(cid) + " " + name
        }
        return "BR/EDR L2CAP CID " + Fmt.h4(cid)
    }
}
