import BLECore

/// Which handle each value of a Read Multiple or Read Multiple Variable Response is, as far as a
/// link's PDUs tell: the one rule the replay's recorded values (`ValueHistory`) and the analysis's
/// GATT values (`gatt_value`) follow (Docs/replay.md).
///
/// - A Read Multiple Variable Response (Core v5.4 Vol 3 Part F 3.4.4.12) gives each value after
///   its 2-byte length, in the order of the request's handles (3.4.4.11); one cut short (the
///   response ends inside it) is left out (`variable`).
/// - A Read Multiple Response (3.4.4.8) concatenates the values with no lengths (3.4.4.7): they
///   are told apart only by the lengths the link's whole values show for the same handles, before
///   or after it (`note`, `concatenated`).
///
/// It also follows the link's ATT_MTU on the fixed channel, which says which values are whole:
/// 23 until an Exchange MTU Response (3.4.2.2), then min(Client Rx MTU, Server Rx MTU). Never
/// more than the link had, so a value shorter than what its PDU could carry is whole. An
/// Enhanced ATT bearer counts 23 (its MTU is its channel's, not followed here).
public struct ReadMultipleValues: Sendable {
    /// One value of a response: its handle and where its bytes are in the response PDU (whose
    /// opcode is byte 0).
    public struct Span: Sendable, Hashable {
        public var handle: UInt16
        public var start: Int
        public var count: Int
        public init(handle: UInt16, start: Int, count: Int) { self.handle = handle; self.start = start; self.count = count }
    }

    /// The link's ATT_MTU on the fixed channel as far as the PDUs show it.
    public private(set) var fixedChannelMTU: UInt16 = 23
    /// Each handle's length, while every whole value shown for it has the same one.
    private var lengths: [UInt16: Int] = [:]
    /// Handles whose whole values had different lengths: no length known.
    private var varying: Set<UInt16> = []

    public init() {}

    /// An Exchange MTU Request and its Response on the fixed channel (3.4.2.2): both sides use
    /// the smaller of the two Rx MTUs, at least 23.
    public mutating func exchangedMTU(clientRx: UInt16, serverRx: UInt16) {
        fixedChannelMTU = max(23, min(clientRx, serverRx))
    }

    /// The ATT_MTU of `bearer` (nil: the fixed channel) as far as the PDUs show it.
    public func mtu(_ bearer: UInt16?) -> Int { bearer == nil ? Int(fixedChannelMTU) : 23 }

    /// Whether a value of `count` bytes a PDU of `opcode` carried on `bearer` is the whole value:
    /// shorter than the most that PDU can carry (a Read or Read Blob Response ATT_MTU - 1,
    /// 3.4.4.4, 3.4.4.6; a Read By Type Response's value min(ATT_MTU - 4, 253), 3.4.4.2; a
    /// notification or indication ATT_MTU - 3, 3.4.7.1-2). Other PDUs carry their values whole.
    public func isWhole(_ count: Int, carriedBy opcode: ATTOpcode, bearer: UInt16?) -> Bool {
        let mtu = mtu(bearer)
        switch opcode {
        case .readResponse, .readBlobResponse: return count < mtu - 1
        case .readByTypeResponse: return count < min(mtu - 4, 253)
        case .handleValueNotification, .handleValueIndication: return count < mtu - 3
        default: return true
        }
    }

    /// A whole value of `count` bytes the link showed for `handle` (`isWhole`).
    public mutating func note(_ handle: UInt16, wholeCount count: Int) {
        guard !varying.contains(handle) else { return }
        if let known = lengths[handle], known != count {
            lengths[handle] = nil
            varying.insert(handle)
        } else {
            lengths[handle] = count
        }
    }

    /// The handles a Read Multiple or Read Multiple Variable Request names (`0E`/`20`, then
    /// 2 bytes each, LE: 3.4.4.7, 3.4.4.11).
    public static func handles(request: [UInt8]) -> [UInt16] {
        stride(from: 1, to: request.count - 1, by: 2).map { UInt16(request[$0]) | UInt16(request[$0 + 1]) << 8 }
    }

    /// The values of a Read Multiple Variable Response (`21`, then each value's length, 2 bytes
    /// LE, and the value) for the request's `handles`, in order. A value cut short (the response
    /// ends inside it) is not the value: it and what would follow are left out.
    public static func variable(handles: [UInt16], response: [UInt8]) -> [Span] {
        var spans: [Span] = []
        var at = 1
        for handle in handles {
            guard at + 2 <= response.count else { break }
            let length = Int(response[at]) | Int(response[at + 1]) << 8
            guard at + 2 + length <= response.count else { break }
            spans.append(Span(handle: handle, start: at + 2, count: length))
            at += 2 + length
        }
        return spans
    }

    /// The values of a Read Multiple Response of `responseCount` bytes (`0F`, then the values one
    /// after another, the whole cut at ATT_MTU - 1) to a request for `handles`, sent at ATT_MTU
    /// `mtu`, where the lengths known (`note`, every value of the link noted first) explain the
    /// whole response: every handle's length known, adding up to the response (or, when the
    /// response fills ATT_MTU - 1 and was cut, more than it: those that fit whole are kept); or
    /// every length but the last handle's, which then has the rest, when the response is shorter
    /// than ATT_MTU - 1 (so not cut). Otherwise none: lengths that do not add up changed, and a
    /// guess is no recording.
    public func concatenated(handles: [UInt16], responseCount: Int, mtu: Int) -> [Span] {
        guard !handles.isEmpty else { return [] }
        let total = responseCount - 1
        // Surely not cut when shorter than the least ATT_MTU - 1 the link can have had; cut,
        // when lengths say so, only when it fills exactly the ATT_MTU - 1 the recording shows.
        let surelyWhole = total < mtu - 1, filled = total == mtu - 1
        var spans: [Span] = []
        var at = 0
        for (i, h) in handles.enumerated() {
            if let l = lengths[h] {
                if at + l > total {
                    // Cut here (the rest of the response is this value's beginning), or the
                    // lengths changed.
                    return filled && !spans.isEmpty ? spans : []
                }
                spans.append(Span(handle: h, start: 1 + at, count: l))
                at += l
            } else if i == handles.count - 1, surelyWhole {
                spans.append(Span(handle: h, start: 1 + at, count: total - at))
                at = total
            } else {
                return []
            }
        }
        return at == total ? spans : []
    }
}
