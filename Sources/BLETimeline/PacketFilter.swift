import BLECore

/// Which packets `timeline` shows (and which packets `diagnose`'s filters look at).
public struct PacketFilter: Sendable {
    public var captureID: Int64?
    public var connectionID: Int64?
    /// Peer address of the connection, or advertiser address.
    public var address: String?
    public var layer: String?
    /// Only packets with an error row or a decode problem.
    public var errorsOnly = false
    /// The HCI connection handle of the packet's connection (`--conn-handle`).
    public var connectionHandle: Int?
    /// The controller the packet came from or went to (`--controller`): the btmon (BTSnoop
    /// datalink 2001, Linux monitor) adapter index, hciN; 0 in captures of one controller. Handles
    /// are numbered per controller, so with several, `--conn-handle` alone selects a link of each.
    public var controllerIndex: Int?
    /// ATT attribute handle (`--handle`): a PDU that names it, or the response to a request that did.
    public var attributeHandle: Int?
    /// ATT opcode of the packet's PDU (`--opcode`).
    public var attOpcode: Int?
    /// Time window, inclusive at both ends (`--since`, `--until`).
    public var since: TimeBound?
    public var until: TimeBound?
    /// Only packets a finding of at least this severity cites as evidence (`info`, `warning`,
    /// `error`; `--severity`). Needs the analysis to have run.
    public var minimumSeverity: String?
    public var limit: Int?
    /// Also load each packet's decoded fields (`timeline -v`, `--json`).
    public var withFields = false
    public init() {}

    /// Whether any option narrows the packets shown (a limit does not: it cuts, it does not select).
    public var selects: Bool {
        captureID != nil || connectionID != nil || address != nil || layer != nil || errorsOnly || connectionHandle != nil || controllerIndex != nil
            || attributeHandle != nil || attOpcode != nil || since != nil || until != nil || minimumSeverity != nil
    }

    /// The severities at or above `minimumSeverity`, in the finding table's spelling.
    static func severities(atLeast s: String) -> [String] {
        let order = ["info", "warning", "error"]
        guard let i = order.firstIndex(of: s) else { return [] }
        return Array(order[i...])
    }
}
