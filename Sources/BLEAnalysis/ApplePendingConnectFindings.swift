import BLECore
import BLEDecode
import BLETimeline

extension FindingsEngine {
    /// `connect-pending`, on a capture of Apple's host (PacketLogger): an LE (Extended) Create
    /// Connection (Core v5.4 Vol 4 Part E 7.8.12, 7.8.66) the controller accepted that no LE
    /// Connection Complete answered and no LE Create Connection Cancel (7.8.13) or HCI Reset
    /// (7.3.2) ended before the capture did. iOS never times out a connect (Apple's
    /// `connect(_:options:)` documentation: connection attempts don't time out), so the app's
    /// connect was still waiting, with no didConnect and no didFailToConnect: the Apple
    /// counterpart of Android's `android-background-connect`.
    func applePendingConnectFindings(_ connections: CaptureConnections, platform: CapturePlatform) throws -> [Finding] {
        guard platform == .apple else { return [] }
        // The last create, and whether a cancel or a reset came after it, read a row at a time.
        var last: (frame: Int, ts: Int64, opcode: Int, status: Int?)?
        var endedAfter = false
        try db.forEachRow("""
            SELECT packet_id, ts_us, opcode, status FROM command
            WHERE capture_id = ?1 AND opcode IN (0x200D, 0x2043, 0x2085, 0x200E, 0x0C03) ORDER BY packet_id
            """, [.integer(captureID)]) { s in
            let command = (frame: s.int(0), ts: s.int64(1), opcode: s.int(2), status: s.optionalInt(3))
            if Self.createOpcodes.contains(command.opcode) {
                last = command
                endedAfter = false
            } else if let create = last, command.frame > create.frame, command.opcode == 0x200E || command.opcode == 0x0C03 {
                endedAfter = true
            }
        }
        guard let create = last, create.status == nil || create.status == 0, !endedAfter else { return [] }
        // An LE Connection Complete of the local central's (any status) after it answered it.
        let answered = try connections.filter {
            !$0.beganBeforeCapture && $0.transport == "le" && $0.role != "peripheral" && ($0.completePacketID ?? 0) > create.frame
        }
        guard answered.isEmpty else { return [] }
        let info = try decodedCommand(create.frame)
        let peer = info?.peerAddress.map { "\($0)" }.flatMap { $0 == "00:00:00:00:00:00" ? nil : $0 }
        let target = info?.usesFilterAcceptList == true ? "the devices of the Filter Accept List" : peer ?? "an unnamed peer"
        let waited = TextFormat.duration(captureEnd.saturatingSubtracting(create.ts))
        return [Finding(
            connectionID: nil, captureID: captureID, severity: .info, code: "connect-pending",
            title: "Connection attempt to \(target) still pending when the capture ended, \(waited) after it",
            detail: "Known: the LE Create Connection at packet \(create.frame) was neither answered (no LE Connection Complete) nor "
                + "cancelled (no LE Create Connection Cancel, no HCI Reset) before the capture ended, \(waited) later. "
                + "Inferred, from a PacketLogger capture, so iOS or macOS: a connect never times out there (Apple: connection "
                + "attempts don't time out), so the app's connect(_:options:) was still waiting: it had been given no "
                + "didConnect and no didFailToConnect, and no CBError. Why it had not connected is not in the capture (the peer out "
                + "of range, not advertising connectably, connected elsewhere, or the capture stopped first).",
            evidence: [create.frame])]
    }
}
