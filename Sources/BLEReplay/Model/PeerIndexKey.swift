/// A peer's key (`RecordedSession.peerKey`) as `ModelBuilder` tables its peers: an unnamed peer's
/// `connection N` as the number N, not as the text. Every peer a capture never names has one,
/// and the table and the set of LE peers held each as a string of its own while the models were
/// built (issue 17: 61,424 of them at once).
enum PeerIndexKey: Hashable {
    case named(String)
    case unnamed(Int64)

    /// The key of `key`: exactly `connection N` is N, any other text itself.
    init(_ key: String) {
        if let n = PeripheralModel.unnamedConnection(key) { self = .unnamed(n) } else { self = .named(key) }
    }

    /// The key of `c`'s peer, as `PeerIndexKey(RecordedSession.peerKey(c))` without the text
    /// of an unnamed one.
    init(_ c: RecordedConnection) {
        if let peer = c.peer { self = .named(peer.address.description) } else { self = .unnamed(c.id) }
    }
}
