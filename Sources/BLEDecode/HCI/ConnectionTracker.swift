import BLECore

/// Tracks connection handles through a capture: an explicit state machine per handle.
///
/// States of one handle: absent (closed or never seen) -> `open` (LE/BR-EDR Connection
/// Complete with status 0x00, or ACL or an HCI event on a handle the capture never showed open:
/// begun before the capture) ->
/// `disconnecting` (the host sent Disconnect) -> absent (Disconnection Complete, status 0x00).
/// A failed Disconnection Complete, or a Command Status refusing the Disconnect, returns
/// `disconnecting` to `open`. Every Connection Complete
/// (any status) and every inferred connection gets a new `ConnectionRef`: handles are reused,
/// refs are not. Bounded: at most 0x0F00 handles can be open per controller.
///
/// Handles belong to a controller: a btmon capture (btsnoop datalink 2001, pcap LINKTYPE 254)
/// records several controllers, and each numbers its connections from the same range (two
/// adapters both using handle 0x0040 is the usual case). `controller` is the index of the
/// record being decoded; every handle below is looked up under it.
struct ConnectionTracker: Sendable {
    /// How the tracker learned of a connection.
    enum Origin: Sendable, Equatable {
        /// A Connection Complete event in the capture.
        case event
        /// ACL traffic on a handle the capture never saw connect.
        case inferredFromACL
        /// An HCI event naming a handle the capture never saw connect (no ACL on it yet):
        /// Disconnection Complete, Encryption Change, Number Of Completed Packets, …
        case inferredFromEvent

        /// Begun before the capture: found from its traffic, not from a Connection Complete.
        var isInferred: Bool { self != .event }
    }

    /// One open connection.
    struct Connection: Sendable {
        var ref: ConnectionRef
        var transport: Transport
        var origin: Origin
        /// Absolute offset of the record that opened it (for end-of-capture notes).
        var openedAt: Int
        /// Whether `transport` is known: from a Connection Complete, or for a link found in
        /// progress from a clue (`TransportClues`); until then it is a guess.
        var transportKnown = true
    }

    /// The state of one handle that is not closed.
    enum HandleState: Sendable {
        case open(Connection)
        /// Disconnect sent, Disconnection Complete not yet seen.
        case disconnecting(Connection, reason: HCIStatusCode)

        var connection: Connection {
            switch self {
            case .open(let c), .disconnecting(let c, _): c
            }
        }
    }

    /// A handle under its controller: `controller << 16 | handle`.
    typealias Key = UInt32

    private(set) var handles: [Key: HandleState] = [:]
    /// Every handle the capture has named in a Connection Complete (any status) or shown open from
    /// its traffic: an event on a handle in here that is closed now is late (or belongs to that
    /// failed attempt), not a link begun before the capture. Bounded by the handle space (0x0F00
    /// per controller).
    private var everOpened: Set<Key> = []
    /// Controller index of the record being decoded (0 for single-controller formats).
    var controller: UInt16 = 0

    @inline(__always)
    private func key(_ handle: UInt16) -> Key { UInt32(controller) << 16 | UInt32(handle) }
    /// Connections the capture has shown so far (the last `ConnectionRef.index` handed out).
    private(set) var count = 0

    /// The open connection on `handle`, if any.
    func connection(_ handle: UInt16) -> Connection? { handles[key(handle)]?.connection }

    func ref(_ handle: UInt16) -> ConnectionRef? { handles[key(handle)]?.connection.ref }

    /// A Connection Complete (any status). Returns the new ref and, when status 0 replaced a
    /// connection still open on the handle (a Disconnection Complete missing from the
    /// capture), that old connection.
    mutating func connectionComplete(handle: UInt16, status: HCIStatusCode, transport: Transport,
                                     at offset: Int) -> (ref: ConnectionRef, replaced: Connection?) {
        count += 1
        let ref = ConnectionRef(index: count, handle: handle)
        everOpened.insert(key(handle))
        guard status == .success else { return (ref, nil) }
        let old = handles[key(handle)]?.connection
        handles[key(handle)] = .open(Connection(ref: ref, transport: transport, origin: .event, openedAt: offset))
        everOpened.insert(key(handle))
        return (ref, old)
    }

    /// ACL on `handle`: the open connection, or a new one begun before the capture (`isNew`).
    mutating func connectionForACL(handle: UInt16, transportHint: Transport,
                                   at offset: Int) -> (connection: Connection, isNew: Bool) {
        if let c = handles[key(handle)]?.connection { return (c, false) }
        count += 1
        let c = Connection(ref: ConnectionRef(index: count, handle: handle), transport: transportHint,
                           origin: .inferredFromACL, openedAt: offset, transportKnown: false)
        handles[key(handle)] = .open(c)
        everOpened.insert(key(handle))
        return (c, true)
    }

    /// An HCI event naming `handle`: the open connection, or a new one begun before the capture
    /// (`isNew`) when the capture has never shown this handle open. Nil for a handle that was
    /// open earlier in the capture and is closed now (a late event, not a new link).
    mutating func connectionForEvent(handle: UInt16, at offset: Int) -> (connection: Connection, isNew: Bool)? {
        if let c = handles[key(handle)]?.connection { return (c, false) }
        guard !everOpened.contains(key(handle)) else { return nil }
        count += 1
        let c = Connection(ref: ConnectionRef(index: count, handle: handle), transport: .le,
                           origin: .inferredFromEvent, openedAt: offset, transportKnown: false)
        handles[key(handle)] = .open(c)
        everOpened.insert(key(handle))
        return (c, true)
    }

    /// `handle` was named for something other than an ACL link (a CIS: LE Create CIS, LE CIS
    /// Request): an event on it later is not a link begun before the capture.
    mutating func handleNamed(_ handle: UInt16) {
        everOpened.insert(key(handle))
    }

    /// A clue to the transport of the link on `handle` (`TransportClues`). Only a link found in
    /// progress learns: one whose transport is still a guess takes the clue; one already known
    /// as LE from a clue becomes BR/EDR on a BR/EDR-only clue. Returns the ref when it learned.
    mutating func learnTransport(_ transport: Transport, handle: UInt16) -> ConnectionRef? {
        guard let state = handles[key(handle)] else { return nil }
        var c = state.connection
        guard c.origin.isInferred,
              !c.transportKnown || (c.transport == .le && transport == .bredr) else { return nil }
        c.transport = transport
        c.transportKnown = true
        switch state {
        case .open: handles[key(handle)] = .open(c)
        case .disconnecting(_, let reason): handles[key(handle)] = .disconnecting(c, reason: reason)
        }
        return c.ref
    }

    /// The host sent Disconnect for `handle`.
    mutating func disconnectRequested(handle: UInt16, reason: HCIStatusCode) -> ConnectionRef? {
        guard let state = handles[key(handle)] else { return nil }
        handles[key(handle)] = .disconnecting(state.connection, reason: reason)
        return state.connection.ref
    }

    /// The controller refused a Disconnect (Command Status with an error): back to `open`.
    mutating func disconnectRefused(handle: UInt16) {
        guard case .disconnecting(let c, _)? = handles[key(handle)] else { return }
        handles[key(handle)] = .open(c)
    }

    /// Disconnection Complete. Status 0x00 closes the handle; another status leaves the
    /// connection open. Returns the connection concerned (nil for an unknown handle).
    mutating func disconnectionComplete(handle: UInt16, status: HCIStatusCode) -> Connection? {
        guard let state = handles[key(handle)] else { return nil }
        if status == .success {
            handles[key(handle)] = nil
        } else {
            handles[key(handle)] = .open(state.connection)
        }
        return state.connection
    }

    /// HCI Reset completed on the current controller (Core v5.4 Vol 4 Part E 7.3.2): the
    /// controller is back in its default state with no connections, and reports no Disconnection
    /// Complete for them. Closes every connection of this controller and returns them, oldest
    /// first; other controllers' links are untouched.
    mutating func controllerReset() -> [Connection] {
        let mine = handles.filter { $0.key >> 16 == UInt32(controller) }
        for k in mine.keys { handles[k] = nil }
        return mine.values.map(\.connection).sorted { $0.ref.index < $1.ref.index }
    }

    /// Closes every connection (end of capture) and returns them, oldest first.
    mutating func closeAll() -> [Connection] {
        let all = handles.values.map(\.connection).sorted { $0.ref.index < $1.ref.index }
        handles.removeAll()
        everOpened.removeAll()
        return all
    }
}
