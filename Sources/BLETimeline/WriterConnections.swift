/// What the writer keeps about each connection of one capture: its row id and the little state
/// its rows are derived from, found by the decoder's connection ordinal in constant time.
///
/// Ordinals (`ConnectionRef.index`) are handed out 1, 2, 3, … by the decoder's connection
/// tracker, so the entries sit in one array indexed by ordinal; an ordinal out of that sequence
/// (none the decoder makes) goes to a dictionary. One entry is 32 bytes: a capture of tens of
/// thousands of links (issue 17: 61,440 in the adversarial corpus) costs a couple of MiB, where
/// two dictionaries of optional integers and strings cost about 250 bytes a link.
struct WriterConnections {
    /// Where the host's HCI Disconnect (Core v5.4 Vol 4 Part E 7.1.6) on a link stands.
    enum LocalDisconnect: UInt8 {
        /// None sent, or every one sent failed (refused in its Command Status, 7.7.15, or a
        /// Disconnection Complete with a failure status, 7.7.5): the link is as if none was.
        case none
        /// Sent, its Command Status not seen (yet, or not in the capture).
        case sent
        /// Accepted (Command Status 0): a later one refused while it is under way changes nothing.
        case accepted
    }

    /// The state of one connection row.
    struct State {
        let rowID: Int64
        var lastPacketID = 0
        /// Client and Server Rx MTU from Exchange MTU (Core v5.4 Vol 3 Part F 3.4.2.1-2), u16 on the wire.
        var clientRxMTU: UInt16?
        var serverRxMTU: UInt16?
        var mtu: UInt16 = 23
        /// The host's HCI Disconnect on this link (one byte: the entry stays 32).
        var localDisconnect = LocalDisconnect.none
        var encrypted = false
        var intervalKnown = false
        /// CoreBluetooth speaks for LE links only: BR/EDR rows get no CBError.
        var isLE = true
        /// The local controller's role from LE Connection Complete (nil: began before the capture).
        var isLocalCentral: Bool?
        /// An Encryption Change with status 0x06 PIN or Key Missing was seen on this link.
        var keyMissing = false

        init(rowID: Int64) { self.rowID = rowID }

        /// The host sent HCI Disconnect on this link and the controller has not said it failed.
        var localDisconnectRequested: Bool { localDisconnect != .none }

        /// The local role as the rows and CoreBluetooth rules name it.
        var localRole: String? { isLocalCentral.map { $0 ? "central" : "peripheral" } }

        /// ATT_MTU = min(Client Rx MTU, Server Rx MTU), at least the default 23, once both are known.
        mutating func exchanged(clientRx: UInt16? = nil, serverRx: UInt16? = nil) {
            if let clientRx { clientRxMTU = clientRx }
            if let serverRx { serverRxMTU = serverRx }
            if let c = clientRxMTU, let s = serverRxMTU { mtu = max(23, min(c, s)) }
        }
    }

    /// Entry `i` is ordinal `i + 1`.
    private var inSequence: [State] = []
    private var outOfSequence: [Int: State] = [:]

    /// Registers the row of a new connection (an ordinal seen again takes the new row).
    mutating func add(ordinal: Int, _ state: State) {
        if ordinal == inSequence.count + 1 {
            inSequence.append(state)
        } else if ordinal >= 1 && ordinal <= inSequence.count {
            inSequence[ordinal - 1] = state
        } else {
            outOfSequence[ordinal] = state
        }
    }

    /// The row id of `ordinal`'s connection.
    func rowID(_ ordinal: Int) -> Int64? {
        ordinal >= 1 && ordinal <= inSequence.count ? inSequence[ordinal - 1].rowID : outOfSequence[ordinal]?.rowID
    }

    /// The state of `ordinal`'s connection, read and changed in place (nothing for an unknown one).
    subscript(ordinal: Int) -> State? {
        get { ordinal >= 1 && ordinal <= inSequence.count ? inSequence[ordinal - 1] : outOfSequence[ordinal] }
        set {
            guard let newValue else { return }
            if ordinal >= 1 && ordinal <= inSequence.count { inSequence[ordinal - 1] = newValue } else { outOfSequence[ordinal] = newValue }
        }
    }

    /// Calls `body` with every connection's state, in ordinal order (those out of sequence after).
    func forEach(_ body: (State) throws(SQLiteError) -> Void) throws(SQLiteError) {
        for s in inSequence { try body(s) }
        for (_, s) in outOfSequence.sorted(by: { $0.key < $1.key }) { try body(s) }
    }
}
