import BLECore
import BLEDecode

/// A recorded remote central (DESIGN.md "Replay semantics", the peripheral side): one connection
/// of the capture on which the local device was the peripheral (LE Connection Complete role
/// 0x01, Core v5.4 Vol 4 Part E 7.7.65.1) and the peer read and wrote the local GATT server.
///
/// What the central did is the peer behaviour `ModelBuilder` already extracts (its requests,
/// commands and CCCD writes anchored to what it last received from the local server, and how
/// the link ended); this adds what the local server answered each request, so that a different
/// server (the app's `CBPeripheralManager`) can be compared with the recorded one
/// (Docs/peripheral.md "Replaying a recorded central").
public struct RemoteCentralModel: Sendable {
    /// One request of the central and what the recorded local server answered.
    public struct Exchange: Sendable, Equatable {
        public var request: [UInt8]
        public var requestPacketID: Int
        /// The recorded answer (Response or Error Response); nil when the recording has none.
        public var response: [UInt8]?
        public var responsePacketID: Int?
        /// From the request to the answer, as recorded.
        public var latency: Int64
    }

    public var connectionID: Int64
    /// Peer key (`RecordedSession.peerKey`) and the index of its model and behaviour.
    public var peer: String
    public var model: Int
    public var behaviour: Int
    public var handle: UInt16
    /// When the central connected, from the session's start.
    public var offset: VirtualTime
    /// Every request of the central in recorded order.
    public var exchanges: [Exchange]
    /// Commands (Write Command, Signed Write Command) the central sent, with packet ids.
    public var commands: [(pdu: [UInt8], packetID: Int)]
    /// Notifications and indications the recorded local server sent.
    public var notificationsSent: Int
    /// How the link ended, as the peer behaviour words it.
    public var ending: String
    /// The packet of the first Encryption Change that turned encryption on (Core v5.4 Vol 4 Part
    /// E 7.7.8) on this connection: what the central sent after it, it sent on an encrypted link.
    /// Nil when the recording shows the link never encrypted.
    public var encryptedFromPacketID: Int?

    /// Whether the central sent the PDU of packet `packetID` on an encrypted link.
    public func isEncrypted(at packetID: Int) -> Bool {
        encryptedFromPacketID.map { packetID > $0 } ?? false
    }

    /// The packet of the `occurrence`-th (1-based) recorded command with these bytes.
    public func commandPacketID(for pdu: [UInt8], occurrence: Int) -> Int? {
        commands.lazy.filter { $0.pdu == pdu }.dropFirst(occurrence - 1).first?.packetID
    }

    /// The `occurrence`-th (1-based) recorded exchange with these request bytes.
    public func exchange(for request: [UInt8], occurrence: Int) -> Exchange? {
        var n = 0
        for e in exchanges where e.request == request {
            n += 1
            if n == occurrence { return e }
        }
        return nil
    }

    /// The remote centrals of a session, in connection order: its established connections with
    /// the local device as peripheral.
    public static func build(_ session: RecordedSession, models: ModelBuilder.Result) -> [RemoteCentralModel] {
        session.connections.compactMap { c -> RemoteCentralModel? in
            guard c.isEstablished, c.role == "peripheral", let b = models.behaviourOf[c.id] else { return nil }
            var exchanges: [Exchange] = []
            var commands: [(pdu: [UInt8], packetID: Int)] = []
            var pending: Int?
            var notifications = 0
            for p in c.pdus where !p.data.isEmpty {
                let kind = ATTOpcode(p.data[0]).kind
                if !p.fromCentral {
                    // The peer (the remote central) sent it.
                    if kind == .request {
                        exchanges.append(Exchange(request: p.bytes, requestPacketID: p.packetID, response: nil,
                                                  responsePacketID: nil, latency: 0))
                        pending = exchanges.count - 1
                        exchanges[pending!].latency = p.time
                    } else if kind == .command {
                        commands.append((p.bytes, p.packetID))
                    }
                } else if kind == .response, let i = pending {
                    exchanges[i].response = p.bytes
                    exchanges[i].responsePacketID = p.packetID
                    exchanges[i].latency = p.time.saturatingSubtracting(exchanges[i].latency)
                    pending = nil
                } else if kind == .notification || kind == .indication {
                    notifications += 1
                }
            }
            for i in exchanges.indices where exchanges[i].response == nil { exchanges[i].latency = 0 }
            let ending = models.peripherals[b.model].behaviours[b.behaviour].ending.description
            let encryptedFrom = c.security.first { if case .encryptionChange(0, true) = $0.kind { true } else { false } }?.packetID
            return RemoteCentralModel(connectionID: c.id, peer: RecordedSession.peerKey(c), model: b.model, behaviour: b.behaviour,
                                      handle: c.handle, offset: c.offset, exchanges: exchanges, commands: commands,
                                      notificationsSent: notifications, ending: ending, encryptedFromPacketID: encryptedFrom)
        }
    }
}

extension Anchor {
    /// True for an anchor on a PDU the local side sends on its own initiative (a notification or
    /// indication): a server played by an app sends those on its own schedule, so what followed
    /// one in the recording is replayed at its recorded time instead (PeerSession.start).
    public var followsLocalInitiative: Bool {
        guard case .received(let key, _) = self else { return false }
        return key.opcode == .handleValueNotification || key.opcode == .handleValueIndication
            || key.opcode == .multipleHandleValueNotification
    }
}
