import BLECore

/// HCI ACL data packets (Core v5.4 Vol 4 Part E 5.4.2).
///
/// Wire layout: u16 little-endian = Handle (bits 0-11) | Packet_Boundary_Flag (bits 12-13) |
/// Broadcast_Flag (bits 14-15); Data_Total_Length u16; data. PB 0b00 first non-automatically-
/// flushable fragment, 0b10 first automatically-flushable, 0b01 continuing fragment, 0b11 a
/// complete L2CAP PDU.
///
/// Vendor diagnostics travel as ACL too and are named, not tracked as connections: handles
/// above 0x0EFF are reserved (Broadcom uses 0x0FF1 in android-classic-spp.btsnoop), and
/// handle 0x0EDC, when no Connection Complete opened it, carries Android/Broadcom controller
/// dumps (android-lock-long-session.btsnoop: 413 packets whose would-be "CID" counts 0, 1, 2, …;
/// Wireshark dissects them as L2CAP and counts bogus ATT/SMP/signalling PDUs in them).
extension PacketDecoder {
    static let maximumConnectionHandle: UInt16 = 0x0EFF
    static let vendorDiagnosticHandle: UInt16 = 0x0EDC

    mutating func decodeACL(_ payload: [UInt8], into d: inout PacketDraft) {
        d.layer = .acl
        guard payload.count >= 4 else {
            d.fail(layer: .acl, at: payload.count, kind: .truncated, "ACL header: need 4 bytes, have \(payload.count)")
            d.summary.set(d.prefix + "ACL (malformed: header cut short)")
            return
        }
        let word = UInt16(payload[0]) | UInt16(payload[1]) << 8
        let handle = word & 0x0FFF
        let pb = UInt8((word >> 12) & 0x3)
        let declared = Int(payload[2]) | Int(payload[3]) << 8
        let available = payload.count - 4
        let used = d.checkDataLength(declared: declared, available: available, dataStart: 4,
                                     what: "ACL data", layer: .acl)
        let data = payload[4..<(4 + used)]
        let isTruncated = declared > available

        guard handle <= Self.maximumConnectionHandle else {
            d.summary.set(d.prefix + "ACL on reserved handle " + Fmt.h4(handle) + ", \(declared) bytes (vendor diagnostics)")
            return
        }
        if handle == Self.vendorDiagnosticHandle, tracker.connection(handle)?.origin != .event {
            d.summary.set(d.prefix + "ACL on handle 0x0EDC, \(declared) bytes (controller diagnostics)")
            return
        }
        let isStart = pb != 0b01
        // Begun before the capture? The first start fragment's CID tells the transport.
        var hint = Transport.le
        if isStart, data.count >= 4 {
            let cid = UInt16(data[data.startIndex + 2]) | UInt16(data[data.startIndex + 3]) << 8
            if Self.cidImpliesBREDR(cid) { hint = .bredr }
        }
        let (conn, isNew) = tracker.connectionForACL(handle: handle, transportHint: hint, at: d.base)
        d.connection = conn.ref
        if isNew { d.events.append(.connectionFoundInProgress(conn.ref, transport: conn.transport)) }

        let key = ACLReassembler.Key(handle: handle, direction: d.direction, controller: controller)
        if !isStart, !cutContinuations.isEmpty, absorbCutContinuation(data, key: key, into: &d) { return }
        if isStart { cutContinuations[key] = nil }
        let outcome = reassembler.add(data, dataOffset: d.base &+ 4, source: d.source, key: key, isStart: isStart,
                                      isTruncated: isTruncated, problems: &d.problems)
        switch outcome {
        case .complete(let frame):
            dispatchL2CAP(frame, connection: conn, into: &d)
        case .needMore(let start, let received, let expected):
            let direction = d.direction
            d.summary.set(fragmentSummary(direction: direction, start: start, received: received, expected: expected))
        case .dropped:
            d.summary.set(d.prefix + "ACL fragment (" + (isStart ? "start" : "continuation")
                + ", \(data.count) bytes, no L2CAP PDU pending: dropped)")
        }
    }

    /// `Rcvd ACL fragment (start, 27 of 247 bytes)` (`Fmt.fragmentSummary`), from `summaries`.
    mutating func fragmentSummary(direction: Direction, start: Bool, received: Int, expected: Int?) -> String {
        let make = { Fmt.fragmentSummary(prefix: Fmt.prefix(direction), start: start, received: received, expected: expected) }
        guard let key = SummaryCache.fragmentKey(direction: direction, start: start, received: received, expected: expected) else {
            return make()
        }
        return summaries.line(key, make)
    }

    /// CIDs that exist only on BR/EDR: signalling 0x0001, connectionless 0x0002, AMP manager
    /// 0x0003, BR/EDR security manager 0x0007, and dynamic CIDs above the LE range (0x0080+).
    static func cidImpliesBREDR(_ cid: UInt16) -> Bool {
        cid == 0x0001 || cid == 0x0002 || cid == 0x0003 || cid == 0x0007 || cid >= 0x0080
    }
}
