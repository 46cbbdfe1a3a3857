import BLECore

/// LE credit-based channels (Core v5.4 Vol 3 Part A 3.4.3, 4.22-4.26, 10.1-10.2): which PSM each
/// dynamic CID (0x0040-0x007F) was opened for, and the SDU each channel is in the middle of.
///
/// Learnt from the LE signalling channel: LE Credit Based Connection Request/Response
/// (0x14/0x15, one channel) and Credit Based Connection Request/Response (0x17/0x18, up to five
/// channels; the Enhanced ATT bearers of Vol 3 Part G 5.4 use SPSM 0x0027). A packet's CID is the
/// receiver's endpoint: the requester's Source CIDs address packets travelling towards it, the
/// response's Destination CIDs packets travelling towards the responder, paired in order.
///
/// K-frames (3.4.3): the first K-frame of an SDU starts with SDU Length u16; the following ones
/// carry only SDU bytes until that many have arrived. Bounded: at most `capacity` channels and
/// pending requests, an SDU never held beyond the 65,535 bytes its length field can announce.
struct LECreditChannelMap: Sendable {
    struct ChannelKey: Hashable, Sendable {
        var connection: Int
        /// The direction of the packets that carry `cid`.
        var direction: Direction
        var cid: UInt16
    }

    /// An SDU whose K-frames are still arriving.
    struct PendingSDU: Sendable {
        var bytes: [UInt8]
        var expected: Int
        /// Absolute offset of the SDU's first byte (after SDU Length).
        var offset: Int
        var frames: Int
    }

    struct Channel: Sendable {
        var psm: UInt16
        /// The requester's Source CID of this channel: one name for both directions.
        var bearer: UInt16
        var pending: PendingSDU?
    }

    /// A request waiting for its response: requester direction and identifier.
    struct RequestKey: Hashable, Sendable {
        var connection: Int
        var direction: Direction
        var identifier: UInt8
    }

    static let capacity = 1024
    private(set) var channels: [ChannelKey: Channel] = [:]
    private var requests: [RequestKey: (psm: UInt16, sourceCIDs: [UInt16])] = [:]

    var isEmpty: Bool { channels.isEmpty && requests.isEmpty }

    /// The channel a packet travelling `direction` with `cid` belongs to.
    func channel(connection: Int, direction: Direction, cid: UInt16) -> Channel? {
        channels.isEmpty ? nil : channels[ChannelKey(connection: connection, direction: direction, cid: cid)]
    }

    /// LE signalling command `code` with `identifier` and its data, travelling `direction`.
    mutating func learn(code: UInt8, identifier: UInt8, data: ArraySlice<UInt8>, connection: Int,
                        direction: Direction) {
        let words = Self.words(data)
        switch code {
        case 0x14 where words.count >= 2:
            // LE_PSM, Source CID, MTU, MPS, Initial Credits (4.22)
            request(RequestKey(connection: connection, direction: direction, identifier: identifier),
                    psm: words[0], sourceCIDs: [words[1]])
        case 0x17 where words.count >= 5:
            // SPSM, MTU, MPS, Initial Credits, Source CID[1..5] (4.25)
            request(RequestKey(connection: connection, direction: direction, identifier: identifier),
                    psm: words[0], sourceCIDs: Array(words[4...].prefix(5)))
        case 0x15 where words.count >= 5:
            // Destination CID, MTU, MPS, Initial Credits, Result (4.23): 0x0000 success
            respond(RequestKey(connection: connection, direction: direction.reversed, identifier: identifier),
                    destinationCIDs: words[4] == 0 ? [words[0]] : [])
        case 0x18 where words.count >= 4:
            // MTU, MPS, Initial Credits, Result, Destination CID[1..5] (4.26). A refused
            // channel's Destination CID is 0x0000 (result 0x0004 "some connections refused").
            respond(RequestKey(connection: connection, direction: direction.reversed, identifier: identifier),
                    destinationCIDs: Array(words[4...].prefix(5)))
        case 0x06 where words.count >= 2, 0x07 where words.count >= 2:
            // Disconnection Request/Response: Destination CID, Source CID (4.6, 4.7), named from
            // the sender of the request: DCID is the receiver's endpoint, SCID the sender's.
            let requester = code == 0x06 ? direction : direction.reversed
            channels[ChannelKey(connection: connection, direction: requester, cid: words[0])] = nil
            channels[ChannelKey(connection: connection, direction: requester.reversed, cid: words[1])] = nil
        default:
            break
        }
    }

    private mutating func request(_ key: RequestKey, psm: UInt16, sourceCIDs: [UInt16]) {
        if requests.count >= Self.capacity { requests.removeAll() }
        requests[key] = (psm, sourceCIDs)
    }

    private mutating func respond(_ key: RequestKey, destinationCIDs: [UInt16]) {
        guard let request = requests.removeValue(forKey: key) else { return }
        if channels.count >= Self.capacity { channels.removeAll() }
        for (i, dcid) in destinationCIDs.enumerated() where i < request.sourceCIDs.count && dcid != 0 {
            // Packets towards the requester carry its Source CID; towards the responder, the DCID.
            let scid = request.sourceCIDs[i]
            channels[ChannelKey(connection: key.connection, direction: key.direction.reversed, cid: scid)] =
                Channel(psm: request.psm, bearer: scid)
            channels[ChannelKey(connection: key.connection, direction: key.direction, cid: dcid)] =
                Channel(psm: request.psm, bearer: scid)
        }
    }

    /// What one K-frame produced.
    enum SDUOutcome: Sendable {
        /// A whole SDU and the absolute offset of its first byte.
        case complete([UInt8], offset: Int, frames: Int)
        /// A K-frame kept until the rest of the SDU arrives.
        case needMore(received: Int, expected: Int)
        /// The K-frame could not be used (no SDU Length in a first K-frame, or more bytes
        /// than the SDU announced); the reason says which.
        case unusable(String)
    }

    /// Feeds one K-frame information payload on a known channel. `offset` is the absolute
    /// offset of `payload`'s first byte. Nil when the channel is unknown.
    mutating func kFrame(_ payload: ArraySlice<UInt8>, offset: Int, connection: Int, direction: Direction,
                         cid: UInt16) -> SDUOutcome? {
        let key = ChannelKey(connection: connection, direction: direction, cid: cid)
        guard var channel = channels[key] else { return nil }
        defer { channels[key] = channel }
        if var pending = channel.pending {
            let room = pending.expected - pending.bytes.count
            guard payload.count <= room else {
                channel.pending = nil
                return .unusable("K-frame of \(payload.count) bytes, SDU has room for \(room) more")
            }
            pending.bytes.append(contentsOf: payload)
            pending.frames += 1
            if pending.bytes.count == pending.expected {
                channel.pending = nil
                return .complete(pending.bytes, offset: pending.offset, frames: pending.frames)
            }
            channel.pending = pending
            return .needMore(received: pending.bytes.count, expected: pending.expected)
        }
        guard payload.count >= 2 else {
            return .unusable("first K-frame of an SDU without its 2-byte SDU Length")
        }
        let i = payload.startIndex
        let expected = Int(payload[i]) | Int(payload[i + 1]) << 8
        let data = payload.dropFirst(2)
        if data.count == expected {
            return .complete(Array(data), offset: offset &+ 2, frames: 1)
        }
        if data.count > expected {
            return .unusable("K-frame carries \(data.count) bytes, SDU Length says \(expected)")
        }
        // What arrived, not the SDU Length announced (up to 65,535 per channel): an SDU that
        // never completes holds only its bytes.
        let bytes = Array(data)
        channel.pending = PendingSDU(bytes: bytes, expected: expected, offset: offset &+ 2, frames: 1)
        return .needMore(received: data.count, expected: expected)
    }

    mutating func remove(connection: Int) {
        guard !isEmpty else { return }
        channels = channels.filter { $0.key.connection != connection }
        requests = requests.filter { $0.key.connection != connection }
    }

    mutating func removeAll() {
        channels.removeAll()
        requests.removeAll()
    }

    /// Little-endian u16 words of `data` (a trailing odd byte is ignored).
    private static func words(_ data: ArraySlice<UInt8>) -> [UInt16] {
        var out: [UInt16] = []
        var i = data.startIndex
        while data.endIndex - i >= 2, out.count < 16 {
            out.append(UInt16(data[i]) | UInt16(data[i + 1]) << 8)
            i += 2
        }
        return out
    }
}
