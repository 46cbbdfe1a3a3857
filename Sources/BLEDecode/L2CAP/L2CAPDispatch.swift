import BLECore

/// Dispatch of a complete L2CAP PDU on its channel ID (Core v5.4 Vol 3 Part A 2.1).
///
/// LE: 0x0004 ATT, 0x0005 LE signalling, 0x0006 SMP, 0x0040-0x007F credit-based channels.
/// BR/EDR: everything goes to the BR/EDR classifier, never to the LE ATT/SMP decoders
/// (classic ATT runs on a dynamic channel, PSM 0x001F).
extension PacketDecoder {
    mutating func dispatchL2CAP(_ frame: L2CAPFrame, connection conn: ConnectionTracker.Connection,
                                into d: inout PacketDraft) {
        d.layer = .l2cap
        let cid = frame.cid
        var transport = conn.transport
        if conn.origin.isInferred, let clue = TransportClues.transport(ofChannel: cid) {
            // A connection begun before the capture: its fixed channels tell the transport.
            learnTransport(clue, handle: conn.ref.handle, clue: "L2CAP CID " + Fmt.h4(cid), into: &d)
            transport = tracker.connection(conn.ref.handle)?.transport ?? transport
        }
        if transport == .bredr {
            classifyBREDR(frame, connection: conn.ref, into: &d)
            return
        }
        let payload = frame.payload
        switch cid {
        case 0x0004:
            decodeATT(frame, connection: conn.ref, into: &d)
        case 0x0006:
            decodeSMP(frame, connection: conn.ref, into: &d)
        case 0x0005:
            decodeLESignaling(frame, connection: conn.ref, into: &d)
        case 0x0040...0x007F:
            decodeCreditBasedFrame(frame, connection: conn.ref, into: &d)
        case 0x0000:
            d.problems.append(DecodeError(layer: .l2cap, offset: frame.offsets.absolute(2), kind: .malformed,
                                          reason: "L2CAP CID 0x0000 (null identifier)"))
            d.summary.set(d.prefix + "L2CAP (malformed: CID 0x0000), \(payload.count) bytes")
        default:
            if Self.cidImpliesBREDR(cid) {
                d.problems.append(DecodeError(layer: .l2cap, offset: frame.offsets.absolute(2), kind: .malformed,
                                              reason: "BR/EDR channel \(Fmt.h4(cid)) on an LE connection"))
            }
            d.summary.set(d.prefix + "L2CAP CID " + Fmt.h4(cid) + ", \(payload.count) bytes")
        }
    }

    /// Offset of PDU position `position` (header included) in the file.
    @inline(__always)
    func absolute(_ frame: L2CAPFrame, _ position: Int) -> Int { frame.offsets.absolute(position) }

    /// Moves an error raised with `baseOffset = absolute(frame, 4)` to the right fragment.
    func remap(_ e: DecodeError, _ frame: L2CAPFrame) -> DecodeError { Self.remapped(e, frame) }

    static func remapped(_ e: DecodeError, _ frame: L2CAPFrame) -> DecodeError {
        guard frame.isReassembled else { return e }
        var e = e
        e.offset = frame.offsets.absolute(4 &+ (e.offset &- frame.offsets.absolute(4)))
        return e
    }

    /// ATT on CID 0x0004 (Core v5.4 Vol 3 Part F 3.3). A PDU that does not decode is still an
    /// `.att` event (opcode = first byte), as Wireshark counts malformed ATT packets too.
    mutating func decodeATT(_ frame: L2CAPFrame, connection: ConnectionRef, into d: inout PacketDraft) {
        decodeATT(frame.payload, baseOffset: absolute(frame, 4), connection: connection, into: &d) { Self.remapped($0, frame) }
    }

    /// An ATT PDU at `baseOffset`, on the fixed channel or an Enhanced ATT bearer; `remap` moves
    /// an error's offset to the fragment that holds the byte.
    mutating func decodeATT(_ bytes: ArraySlice<UInt8>, baseOffset: Int, connection: ConnectionRef,
                            bearer: UInt16? = nil, suffix: String = "", into d: inout PacketDraft,
                            remap: (DecodeError) -> DecodeError) {
        guard let first = bytes.first else {
            d.problems.append(DecodeError(layer: .att, offset: baseOffset, kind: .truncated,
                                          reason: "empty ATT PDU (no opcode)"))
            d.summary.set(d.prefix + "ATT (malformed: empty PDU)" + suffix)
            return
        }
        d.layer = .att
        do {
            let pdu = try ATTPDU(decoding: bytes, baseOffset: baseOffset)
            if suffix.isEmpty, let key = Self.summaryKey(pdu, direction: d.direction) {
                let prefix = d.prefix
                d.summary.set(summaries.line(key) { prefix + pdu.summary })
            } else {
                d.summary.set(d.prefix + pdu.summary + suffix)
            }
            d.events.append(.att(ATTEvent(connection: connection, direction: d.direction, opcode: pdu.opcode,
                                          pdu: pdu, problem: nil, bytes: Array(bytes), bearer: bearer)))
        } catch {
            let e = remap(error)
            let opcode = ATTOpcode(rawValue: first)
            d.problems.append(e)
            d.summary.set(d.prefix + opcode.name + " (malformed: " + e.reason + ")" + suffix)
            d.events.append(.att(ATTEvent(connection: connection, direction: d.direction, opcode: opcode,
                                          pdu: nil, problem: e, bytes: Array(bytes), bearer: bearer)))
        }
    }

    /// The `SummaryCache` key of a PDU whose summary says no more than its opcode and attribute
    /// handle (`ATTHandleValueLayout.summary`: `Handle Value Notification, Handle: 0x0105`) or
    /// its opcode alone; nil for the others. `ATTPDU.summary` reaches a PDU's own through an
    /// existential and string interpolation: 2,700 instructions a notification (callgrind).
    static func summaryKey(_ pdu: ATTPDU, direction: Direction) -> UInt64? {
        let handle: UInt16
        switch pdu {
        case .writeRequest(let p): handle = p.attributeHandle
        case .writeCommand(let p): handle = p.attributeHandle
        case .handleValueNotification(let p): handle = p.attributeHandle
        case .handleValueIndication(let p): handle = p.attributeHandle
        case .writeResponse, .handleValueConfirmation:
            return SummaryCache.opcodeKey(direction: direction, opcode: pdu.opcode.rawValue)
        default: return nil
        }
        return SummaryCache.handleValueKey(direction: direction, opcode: pdu.opcode.rawValue, handle: handle)
    }

    /// SMP on CID 0x0006 (Core v5.4 Vol 3 Part H 3).
    mutating func decodeSMP(_ frame: L2CAPFrame, connection: ConnectionRef, into d: inout PacketDraft) {
        let bytes = frame.payload
        guard let first = bytes.first else {
            d.problems.append(DecodeError(layer: .smp, offset: absolute(frame, 4), kind: .truncated,
                                          reason: "empty SMP PDU (no code)"))
            d.summary.set(d.prefix + "SMP (malformed: empty PDU)")
            return
        }
        d.layer = .smp
        noteSMPKeyMaterial(frame, connection: connection, into: &d)
        do {
            let pdu = try SMPPDU(decoding: bytes, baseOffset: absolute(frame, 4))
            d.summary.set(d.prefix + pdu.summary(keepKeys: options.keepKeys))
            if SMPKeyMaterial.isDebugPublicKey(bytes) { d.summary += " (the debug key of Core Vol 3 Part H 2.3.5.6.1)" }
            d.events.append(.smp(SMPEvent(connection: connection, direction: d.direction, code: pdu.code,
                                          pdu: pdu, problem: nil)))
        } catch {
            let e = remap(error, frame)
            let code = SMPCode(rawValue: first)
            d.problems.append(e)
            d.summary.set(d.prefix + code.name + " (malformed: " + e.reason + ")")
            d.events.append(.smp(SMPEvent(connection: connection, direction: d.direction, code: code,
                                          pdu: nil, problem: e)))
        }
    }

    /// Records the key material of the SMP PDU in `frame` (`SMPKeyMaterial`) as ranges of the
    /// records that carried it; a debug public key also zeroes the other side's public key.
    mutating func noteSMPKeyMaterial(_ frame: L2CAPFrame, connection: ConnectionRef, into d: inout PacketDraft) {
        let pdu = frame.payload
        let count = frame.bytes.count
        for (what, r) in SMPKeyMaterial.secrets(in: pdu) {
            d.secrets += frame.offsets.recordRanges((4 + r.lowerBound)..<(4 + r.upperBound), count: count, what: what)
        }
        if pdu.first == 0x0C, pdu.count > 1 {
            let isDebug = SMPKeyMaterial.isDebugPublicKey(pdu)
            let ranges = frame.offsets.recordRanges(5..<count, count: count, what: "Public Key (debug key pairing)")
            d.secrets += pairingKeys.publicKey(connection: connection.index, ranges: ranges, isDebug: isDebug)
        }
    }
}
