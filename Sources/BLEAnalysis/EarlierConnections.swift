/// What the findings of one connection ask about the connections before it in the capture,
/// each answered in constant time.
///
/// A capture can hold tens of thousands of links (a btmon dump of many controllers, a hostile
/// file): handing each connection the list of all earlier ones and filtering it made the
/// analysis quadratic in the number of links. The counts are kept as the connections go by.
struct EarlierConnections {
    private struct Attempt: Hashable {
        var peerAddress: String?
        var status: Int
    }

    private var attempts: [Attempt: Int] = [:]
    private var connectedPeers: Set<String> = []

    /// Earlier connection attempts to `peerAddress` (nil: unknown peer) that ended with `status`.
    func attempts(to peerAddress: String?, status: Int) -> Int {
        attempts[Attempt(peerAddress: peerAddress, status: status)] ?? 0
    }

    /// Whether an earlier connection to the known address `peerAddress` was established (status 0).
    func connected(to peerAddress: String?) -> Bool {
        peerAddress.map(connectedPeers.contains) ?? false
    }

    /// Counts `c` as earlier than the connections that follow it.
    mutating func add(_ c: ConnectionFacts) {
        attempts[Attempt(peerAddress: c.peerAddress, status: c.status), default: 0] += 1
        if c.status == 0, let peer = c.peerAddress { connectedPeers.insert(peer) }
    }
}
