import BLECore
import BLEDecode

extension FindingsEngine {
    /// `att-request-while-outstanding`: a request sent while another of the same side and bearer
    /// was unanswered, a breach of ATT's sequential protocol (Core v5.4 Vol 3 Part F 3.3.2). One
    /// finding per connection: how many, and the first pairs (the unanswered request, then the
    /// one sent over it) as evidence. `TransactionMatcher` finds them while it pairs.
    func attOverlapFindings(_ c: ConnectionFacts) -> [Finding] {
        guard let o = attOverlaps[c.id], o.count > 0, let first = o.first.first else { return [] }
        let name = { (op: ATTOpcode, handle: UInt16?) in op.name + (handle.map { " to handle \(hex(Int($0), width: 4))" } ?? "") }
        let sides = Set(o.first.map(\.direction))
        let who = sides == [.received] ? "The peer (as client, to the local GATT server)"
            : sides.contains(.received) ? "Both sides" : "The local host"
        var detail = "\(who) sent a request while an earlier one was still unanswered on the same bearer: "
            + "packet \(first.overtaking) (\(first.overtakingOpcode.name)) went out while packet \(first.outstanding) "
            + "(\(name(first.outstandingOpcode, first.outstandingHandle))) awaited its response"
            + (o.count > 1 ? "; \(o.count - 1) more request(s) were overtaken the same way." : ".")
        detail += " ATT is a sequential protocol (Core v5.4 Vol 3 Part F 3.3.2): a client shall not send a request before the response to its previous one has arrived. "
            + "A server may drop or never answer the extra request, and the client then waits on a response that never comes (a deadlock, until the 30 s transaction timeout of 3.3.3)."
        if o.unanswered > 0 {
            detail += " \(o.unanswered) of the overtaken request(s) never got a response in the capture."
        }
        detail += " Responses were paired by what they answer: an Error Response by the request opcode and handle it names (3.4.1.1), any other by its opcode."
        detail += " In an air capture, a response the sniffer missed looks the same."
        return [Finding(connectionID: c.id, captureID: captureID, severity: .warning, code: "att-request-while-outstanding",
                        title: "ATT request sent while another was outstanding" + (o.count > 1 ? " (\(o.count)×)" : ""),
                        detail: detail, evidence: o.first.flatMap { [$0.outstanding, $0.overtaking] })]
    }
}
