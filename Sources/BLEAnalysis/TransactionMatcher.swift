import BLECore
import BLEDecode

/// One ATT request (or indication) and what became of it.
public struct ATTTransaction: Sendable, Equatable {
    public enum Outcome: String, Sendable {
        case ok, error, timeout, disconnected, pending
    }
    public var requestPacketID: Int
    public var requestTimestamp: Int64
    /// Who sent the request: `.sent` when the local host was the client.
    public var direction: Direction
    public var opcode: ATTOpcode
    public var handle: UInt16?
    public var responsePacketID: Int?
    public var latency: Int64?
    public var outcome: Outcome
    public var errorCode: ATTErrorCode?
}

extension ATTTransaction {
    /// The transaction a request or indication opens, not yet answered.
    init(opening p: StoredATTPDU) {
        self.init(requestPacketID: p.packetID, requestTimestamp: p.timestamp, direction: p.direction, opcode: p.opcode,
                  handle: p.pdu?.attributeHandle, responsePacketID: nil, latency: nil, outcome: .pending, errorCode: nil)
    }
}

/// Pairs ATT requests with responses, and indications with confirmations.
///
/// ATT is sequential per bearer and per direction (Core v5.4 Vol 3 Part F 3.3.2): a client has
/// at most one request outstanding, a server at most one indication; both sides may be client
/// and server at once, so pending state is kept per requesting direction, and per bearer: with
/// Enhanced ATT (Vol 3 Part G 5.4) each credit-based channel carries its own transactions. A
/// transaction not answered within 30 s has timed out (3.3.3). Timestamps come from the file:
/// latencies are differences computed with saturating arithmetic, never a trap.
///
/// A client that sends a request while its previous one is unanswered breaks 3.3.2; the
/// earlier request is then kept outstanding beside the new one (`OutstandingRequests`, a few
/// per requester) and the responses decide which they answer: an Error Response by the request
/// opcode and handle it names (3.4.1.1), another response by the opcode it answers. Each such
/// overtaking is counted in `overlaps`. A request overtaken and never answered ends as it did
/// when it was superseded at once: `pending`, or `timeout` if 30 s had passed when it was
/// overtaken.
public struct TransactionMatcher {
    /// Core v5.4 Vol 3 Part F 3.3.3.
    public static let attTimeout: Int64 = 30_000_000

    /// Who is waiting: the requesting side, on one bearer (nil: the fixed ATT channel).
    private struct Requester: Hashable {
        var direction: Direction
        var bearer: UInt16?
    }

    private var pendingRequests: [Requester: OutstandingRequests] = [:]
    private var pendingIndication: [Requester: ATTTransaction] = [:]
    /// A queued (long or reliable) write in progress per client: its first Prepare Write Request,
    /// and the first error a prepare got (Vol 3 Part G 4.9.4-4.9.5).
    private var queuedWrite: [Requester: ATTTransaction] = [:]
    /// Transactions completed and not yet taken with `drain()`.
    public private(set) var transactions: [ATTTransaction] = []
    /// How many responses answered nothing outstanding.
    public private(set) var unmatchedResponses = 0
    /// Requests sent while another of the same requester and bearer was unanswered (3.3.2).
    public private(set) var overlaps = ATTRequestOverlaps()

    public init() {}

    public mutating func add(_ p: StoredATTPDU) {
        let op = p.opcode
        switch op.kind {
        case .request:
            let requester = Requester(direction: p.direction, bearer: p.bearer)
            let t = ATTTransaction(opening: p)
            var overtaken: [ATTTransaction] = []
            let closed = pendingRequests[requester, default: OutstandingRequests()].open(t, timeout: Self.attTimeout) {
                overtaken.append($0)
            }
            for o in overtaken {
                overlaps.add(.init(outstanding: o.requestPacketID, outstandingOpcode: o.opcode, outstandingHandle: o.handle,
                                   overtaking: p.packetID, overtakingOpcode: p.opcode, direction: p.direction))
            }
            for e in closed { giveUp(e, at: p.timestamp) }
        case .indication:
            if let old = pendingIndication.updateValue(ATTTransaction(opening: p), forKey: Requester(direction: p.direction, bearer: p.bearer)) {
                close(old, at: p.timestamp, orphaned: true)
            }
        case .response:
            let requester = Requester(direction: p.direction.opposite, bearer: p.bearer)
            var superseded: [OutstandingRequests.Entry] = []
            guard var t = pendingRequests[requester]?.answer(p, superseded: &superseded) else {
                unmatchedResponses += 1
                return
            }
            if pendingRequests[requester]?.isEmpty == true { pendingRequests[requester] = nil }
            for e in superseded { giveUp(e, at: p.timestamp) }
            var errorCode: ATTErrorCode?
            if case .errorResponse(let e)? = p.pdu { errorCode = e.errorCode }
            t.responsePacketID = p.packetID
            t.latency = p.timestamp.saturatingSubtracting(t.requestTimestamp)
            t.errorCode = errorCode
            if t.latency! > Self.attTimeout {
                t.outcome = .timeout
            } else {
                t.outcome = op == .errorResponse ? .error : .ok
            }
            completeRequest(t, requester: requester)
        case .confirmation:
            let requester = Requester(direction: p.direction.opposite, bearer: p.bearer)
            guard var t = pendingIndication[requester] else {
                unmatchedResponses += 1
                return
            }
            pendingIndication[requester] = nil
            t.responsePacketID = p.packetID
            t.latency = p.timestamp.saturatingSubtracting(t.requestTimestamp)
            t.outcome = t.latency! > Self.attTimeout ? .timeout : .ok
            transactions.append(t)
        case .command, .notification, .unknown:
            break
        }
    }

    /// Prepare Write and Execute Write form one procedure: the prepares are folded into a single
    /// transaction from the first Prepare Write Request to the Execute Write Response, whose outcome
    /// is the first error any of them got.
    private mutating func completeRequest(_ t: ATTTransaction, requester: Requester) {
        if t.opcode == .prepareWriteRequest {
            if var q = queuedWrite[requester] {
                if q.errorCode == nil, t.outcome != .ok { q.errorCode = t.errorCode; q.outcome = t.outcome }
                queuedWrite[requester] = q
            } else {
                var q = t
                q.outcome = t.outcome == .ok ? .pending : t.outcome
                q.responsePacketID = nil
                queuedWrite[requester] = q
            }
            return
        }
        if t.opcode == .executeWriteRequest, var q = queuedWrite.removeValue(forKey: requester) {
            q.opcode = .executeWriteRequest
            q.responsePacketID = t.responsePacketID
            q.latency = t.responsePacketID.map { _ in
                t.requestTimestamp.saturatingAdding(t.latency ?? 0).saturatingSubtracting(q.requestTimestamp)
            }
            if q.errorCode == nil {
                q.outcome = t.outcome
                q.errorCode = t.errorCode
            }
            transactions.append(q)
            return
        }
        transactions.append(t)
    }

    /// An indication arrived while one was unconfirmed: the old one was never confirmed.
    private mutating func close(_ t: ATTTransaction, at time: Int64, orphaned: Bool) {
        var t = t
        t.outcome = time.saturatingSubtracting(t.requestTimestamp) >= Self.attTimeout ? .timeout : .pending
        transactions.append(t)
    }

    /// A request given up unanswered while the link went on: one overtaken by a later request
    /// is judged when it was overtaken (as when a new request superseded it at once), another
    /// at `time`; `timeout` once 30 s had passed (3.3.3), else `pending`.
    private mutating func giveUp(_ e: OutstandingRequests.Entry, at time: Int64) {
        if e.overtakenAt != nil { overlaps.unanswered += 1 }
        close(e.transaction, at: e.overtakenAt ?? time, orphaned: true)
    }

    /// Ends the connection: requests still outstanding become `timeout` (30 s passed),
    /// `disconnected` (the link ended first) or `pending` (the capture ended first).
    public mutating func finish(disconnectedAt: Int64?, captureEnd: Int64) {
        var overtaken: [OutstandingRequests.Entry] = []
        var open = Array(pendingIndication.values) + Array(queuedWrite.values)
        for var list in pendingRequests.values {
            for e in list.removeAll() {
                if e.overtakenAt != nil { overtaken.append(e) } else { open.append(e.transaction) }
            }
        }
        pendingRequests = [:]
        pendingIndication = [:]
        queuedWrite = [:]
        for e in overtaken { giveUp(e, at: captureEnd) }
        for var t in open {
            let end = disconnectedAt ?? captureEnd
            if end.saturatingSubtracting(t.requestTimestamp) >= Self.attTimeout {
                t.outcome = .timeout
            } else {
                t.outcome = disconnectedAt != nil ? .disconnected : .pending
            }
            transactions.append(t)
        }
        transactions.sort { $0.requestPacketID < $1.requestPacketID }
    }

    /// Takes the transactions completed so far (keeps memory flat on long connections).
    public mutating func drain() -> [ATTTransaction] {
        defer { transactions.removeAll(keepingCapacity: true) }
        return transactions
    }
}
