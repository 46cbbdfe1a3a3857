import BLECore
import BLETimeline

/// `connect-cancelled` for an attempt the host cancelled whose LE Connection Complete the capture
/// does not have. After LE Create Connection Cancel succeeds the controller shall report LE
/// (Enhanced) Connection Complete with status 0x02 Unknown Connection Identifier (Core v5.4 Vol 4
/// Part E 7.8.13); when the capture ends first (or a controller never sends it, as Bumble's does
/// not) the attempt has no connection row, and it was not told at all.
extension FindingsEngine {
    func unansweredCancelFindings(_ connections: CaptureConnections) throws -> [Finding] {
        // A compact array (about 60 bytes a command): the rule looks back and ahead from each cancel.
        var commands: [(frame: Int, ts: Int64, opcode: Int, status: Int?, result: Int?)] = []
        try db.forEachRow("""
            SELECT packet_id, ts_us, opcode, status, result_packet_id FROM command
            WHERE capture_id = ?1 AND opcode IN (0x200D, 0x2043, 0x2085, 0x200E) ORDER BY packet_id
            """, [.integer(captureID)]) { s in
            commands.append((s.int(0), s.int64(1), s.int(2), s.optionalInt(3), s.optionalInt(4)))
        }
        guard commands.contains(where: { $0.opcode == 0x200E }) else { return [] }
        let completions = try connections.filter { !$0.beganBeforeCapture && $0.transport == "le" && $0.completePacketID != nil }
            .compactMap(\.completePacketID)
        var out: [Finding] = []
        for (i, cancel) in commands.enumerated() where cancel.opcode == 0x200E {
            // Refused (0x0C Command Disallowed: nothing pending) or never answered: no completion is owed.
            guard cancel.status == 0, let result = cancel.result,
                  let create = commands[..<i].last(where: { Self.createOpcodes.contains($0.opcode) }) else { continue }
            let next = commands[(i + 1)...].first { Self.createOpcodes.contains($0.opcode) }?.frame ?? Int.max
            guard !completions.contains(where: { $0 > create.frame && $0 < next }) else { continue }
            let info = try decodedCommand(create.frame)
            let peer = info?.peerAddress.map { "\($0)" }.flatMap { $0 == "00:00:00:00:00:00" ? nil : $0 }
            let target = info?.usesFilterAcceptList == true ? "the devices of the Filter Accept List" : peer ?? "an unnamed peer"
            let waited = TextFormat.duration(cancel.ts.saturatingSubtracting(create.ts))
            let more = next == Int.max
                ? "the capture ends without the LE Connection Complete (status 0x02 Unknown Connection Identifier) the controller owes for it (Core v5.4 Vol 4 Part E 7.8.13): the capture stopped first, or the controller never sent it."
                : "no LE Connection Complete (status 0x02 Unknown Connection Identifier) came for it before the next attempt (packet \(next)), though the controller owes one (Core v5.4 Vol 4 Part E 7.8.13)."
            out.append(Finding(
                connectionID: nil, captureID: captureID, severity: .info, code: "connect-cancelled",
                title: "Connection attempt to \(target) cancelled by the host after \(waited)",
                detail: "Known: LE Create Connection (packet \(create.frame)) to \(target), then LE Create Connection Cancel (packet \(cancel.frame)) \(waited) later, which the controller accepted (packet \(result)); " + more +
                    " No connection came up: the peer did not answer in time (out of range, not advertising, or connected elsewhere), or the app gave up.",
                evidence: [create.frame, cancel.frame, result]))
        }
        return out
    }
}
