import BLECore

/// Whose GATT server an ATT PDU concerns: the remote device's or the local device's.
///
/// Client and server are roles per ATT direction, not per link-layer role (Core v5.4 Vol 3 Part G
/// 2.2): on one link each side may be a server, so a link can carry two databases with
/// overlapping handles. A client sends requests, commands and confirmations to the server; the
/// server sends responses, notifications and indications to the client (Vol 3 Part F 3.3,
/// 3.4.7). So a request the local host sent (`tx`) addresses the remote server, and a request it
/// received (`rx`) addresses the local one. In an air capture `tx` is the central's side
/// (`SnifferSide.direction`), so "local" is the central there.
///
/// A PDU whose direction the capture does not say is taken as the remote server's (the only
/// database older versions reconstructed).
public enum GATTServerSide: String, Sendable, Hashable, CaseIterable {
    /// The peer's GATT server: the device the capture's host connected to.
    case remote
    /// The capture's own host as GATT server ("this device").
    case local

    /// The server a PDU sent in `direction` with `opcode` addresses (client to server) or comes
    /// from (server to client).
    public init(direction: Direction, opcode: ATTOpcode) {
        switch (direction, Self.fromServer(opcode)) {
        case (.sent, true?), (.received, false?): self = .local
        default: self = .remote
        }
    }

    /// True for PDUs a server sends, false for PDUs a client sends, nil when the opcode says neither.
    static func fromServer(_ opcode: ATTOpcode) -> Bool? {
        switch opcode.kind {
        case .response, .notification, .indication: true
        case .request, .command, .confirmation: false
        case .unknown: nil
        }
    }

    /// The direction of an ATT PDU whose capture does not say it (pcap LINKTYPE 187), inferred
    /// by the rule `init(direction:opcode:)` applies to such a PDU: it concerns the remote server,
    /// so a server's PDU (response, notification, indication; Vol 3 Part F 3.3) was received and
    /// a client's (request, command, confirmation) sent. A known direction is kept; an opcode
    /// that says neither stays `.unknown`.
    public static func inferredDirection(_ direction: Direction, opcode: ATTOpcode) -> Direction {
        guard direction == .unknown, let fromServer = fromServer(opcode) else { return direction }
        return fromServer ? .received : .sent
    }

    /// An SQL expression giving an `att_pdu` row's direction ('tx', 'rx' or '?'), inferred for
    /// '?' rows: the same rule as `inferredDirection(_:opcode:)`.
    public static func sqlInferredDirection(direction: String, opcode: String) -> String {
        """
        (CASE WHEN \(direction) <> '?' THEN \(direction) WHEN \(opcode) IN (\(opcodes(true))) THEN 'rx' \
        WHEN \(opcode) IN (\(opcodes(false))) THEN 'tx' ELSE '?' END)
        """
    }

    /// The opcodes a server sends (true) or a client sends (false), as an SQL list.
    private static func opcodes(_ fromServer: Bool) -> String {
        (0...255).map { ATTOpcode(UInt8($0)) }.filter { Self.fromServer($0) == fromServer }
            .map { String($0.rawValue) }.joined(separator: ", ")
    }

    /// An SQL expression giving the side ('remote' or 'local') of an `att_pdu` row, from its
    /// direction and opcode columns: the same rule as `init(direction:opcode:)`.
    public static func sql(direction: String, opcode: String) -> String {
        """
        (CASE WHEN (\(direction) = 'tx' AND \(opcode) IN (\(opcodes(true)))) OR (\(direction) = 'rx' AND \(opcode) IN (\(opcodes(false)))) \
        THEN 'local' ELSE 'remote' END)
        """
    }
}
