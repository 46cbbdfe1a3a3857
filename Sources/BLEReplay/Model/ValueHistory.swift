import BLECore
import BLEDecode

/// The values one recorded connection shows for each attribute handle, in time order: whatever
/// the peripheral sent as a handle's value, and what the central stored in it (Core v5.4 Vol 3
/// Part F 3.4.4-3.4.7):
///
/// - a Read Response; a Read Blob Response, joined at its offset to the value before it (a long
///   read, Vol 3 Part G 4.8.3);
/// - each handle-value pair of a Read By Type Response (a read by characteristic UUID, Vol 3
///   Part G 4.8.2, such as the Device Name 0x2A00, or a discovery's declarations);
/// - each value of a Read Multiple Variable Response (3.4.4.11-12: each after its 2-byte length;
///   one cut short at ATT_MTU - 1 left out);
/// - the values of a Read Multiple Response (3.4.4.7-8), which are concatenated with no lengths:
///   only when the lengths are known from other values of the same handles on the connection
///   (`finish()`). Both by the rule the analysis's GATT values follow too (`ReadMultipleValues`);
/// - a notification or indication (each handle of a Multiple Handle Value Notification, 3.4.7.4);
/// - a write the peer accepted (Write Response) or a Write Command. A failed write stores nothing.
///
/// It answers "what did this attribute hold at this moment of this connection" for a read the
/// recording never made (PeerSession+Values.swift): the latest value at or before the moment,
/// never one from later in the connection or from another connection.
public struct ValueHistory: Sendable {
    /// One value as the recording showed it: the PDU that carried it (the recorded PDU itself,
    /// shared, not a copy; a long one by reference, `PDUBytes`: issue 12 and 17, a 64 KiB value
    /// was held twice, then for the whole run) and where in it the value starts.
    struct Entry: Sendable {
        var offset: Int64
        var pdu: PDUBytes
        var start: Int
        /// The value's length, nil when it runs to the PDU's end.
        var count: Int32?
        var value: [UInt8] {
            let rest = pdu.bytes.dropFirst(start)
            return Array(count.map { rest.prefix(Int($0)) } ?? rest)
        }
        var length: Int { count.map(Int.init) ?? max(0, pdu.count - start) }
    }
    private var entries: [UInt16: [Entry]] = [:]
    /// Read Multiple Responses waiting for `finish()`: their values are told apart only by
    /// lengths that later values of the connection may tell.
    private var readMultiples: [ReadMultiple] = []
    /// The link's ATT_MTU and the lengths its whole values show (the surely whole ones: shorter
    /// than the most their PDU could carry at the lowest ATT_MTU the link can have had), which
    /// tell the values of a Read Multiple Response apart.
    private var lengths = ReadMultipleValues()

    struct ReadMultiple: Sendable {
        var offset: Int64
        var request: PDUBytes
        var response: PDUBytes
        var mtu: Int
    }

    /// Every value per handle, in time order, with its offset from the connection start.
    public var values: [UInt16: [(offset: Int64, value: [UInt8])]] {
        entries.mapValues { $0.map { ($0.offset, $0.value) } }
    }

    public init() {}

    /// True when the recording showed no value.
    public var isEmpty: Bool { entries.isEmpty && readMultiples.isEmpty }

    /// The value `handle` held at `offset` (µs from the connection start), if the recording
    /// showed one by then.
    public func value(of handle: UInt16, at offset: Int64) -> [UInt8]? {
        entries[handle]?.last { $0.offset <= offset }?.value
    }

    /// Appended in time order; one noted later for an earlier moment (a Read Multiple value,
    /// `finish()`) goes after those at or before its moment.
    mutating func note(_ handle: UInt16, _ pdu: PDUBytes, from start: Int, count: Int? = nil, at offset: Int64, whole: Bool = true) {
        let entry = Entry(offset: offset, pdu: pdu, start: start, count: count.map { Int32(clamping: $0) })
        if whole { lengths.note(handle, wholeCount: entry.length) }
        var list = entries.removeValue(forKey: handle) ?? []
        if let last = list.last, last.offset > offset {
            list.insert(entry, at: list.firstIndex { $0.offset > offset } ?? list.endIndex)
        } else {
            list.append(entry)
        }
        entries[handle] = list
    }

    func mtu(_ bearer: UInt16?) -> Int { lengths.mtu(bearer) }

    /// The peer's answer to a request.
    mutating func answered(_ request: [UInt8], _ response: [UInt8], at offset: Int64, bearer: UInt16? = nil) {
        answered(PDUBytes(request), PDUBytes(response), at: offset, bearer: bearer)
    }

    /// A notification or indication from the peer.
    mutating func sent(_ pdu: [UInt8], at offset: Int64, bearer: UInt16? = nil) { sent(PDUBytes(pdu), at: offset, bearer: bearer) }

    /// A Write Command from the central.
    mutating func wrote(_ pdu: [UInt8], at offset: Int64) { wrote(PDUBytes(pdu), at: offset) }

    /// The peer's answer to a request, as the model holds them.
    mutating func answered(_ request: PDUBytes, _ response: PDUBytes, at offset: Int64, bearer: UInt16? = nil) {
        guard request.count >= 3, let r = response.first else { return }
        let handle = UInt16(request[1]) | UInt16(request[2]) << 8
        let mtu = mtu(bearer)
        switch (ATTOpcode(request[0]), ATTOpcode(r)) {
        case (.exchangeMTURequest, .exchangeMTUResponse) where bearer == nil && response.count >= 3:
            lengths.exchangedMTU(clientRx: handle, serverRx: UInt16(response[1]) | UInt16(response[2]) << 8)
        case (.readRequest, .readResponse):
            // 3.4.4.4: a value longer than ATT_MTU - 1 comes cut to that length.
            note(handle, response, from: 1, at: offset, whole: lengths.isWhole(response.count - 1, carriedBy: .readResponse, bearer: bearer))
        case (.readBlobRequest, .readBlobResponse):
            // 3.4.4.6: the part from Value Offset on; joined to the value read before it when that
            // reaches the offset (a long read), else it is not the value and says nothing.
            guard request.count >= 5, let before = entries[handle]?.last else { return }
            let at = Int(request[3]) | Int(request[4]) << 8
            let base = before.value
            guard base.count >= at else { return }
            let part = response.bytes.dropFirst()
            note(handle, PDUBytes(Array(base.prefix(at)) + part), from: 0, at: offset,
                 whole: lengths.isWhole(part.count, carriedBy: .readBlobResponse, bearer: bearer))
        case (.readByTypeRequest, .readByTypeResponse):
            // 3.4.4.2: Length (each pair's size), then handle-value pairs; a value is cut at
            // min(ATT_MTU - 4, 253).
            guard response.count >= 2 else { return }
            let pairSize = Int(response[1])
            guard pairSize >= 2 else { return }
            let bytes = response.bytes
            var at = 2
            while at + pairSize <= bytes.count {
                let h = UInt16(bytes[at]) | UInt16(bytes[at + 1]) << 8
                note(h, response, from: at + 2, count: pairSize - 2, at: offset,
                     whole: lengths.isWhole(pairSize - 2, carriedBy: .readByTypeResponse, bearer: bearer))
                at += pairSize
            }
        case (.readMultipleRequest, .readMultipleResponse):
            readMultiples.append(ReadMultiple(offset: offset, request: request, response: response, mtu: mtu))
        case (.writeRequest, .writeResponse):
            note(handle, request, from: 3, at: offset)
        case (.readMultipleVariableRequest, .readMultipleVariableResponse):
            for v in ReadMultipleValues.variable(handles: ReadMultipleValues.handles(request: request.bytes), response: response.bytes) {
                note(v.handle, response, from: v.start, count: v.count, at: offset)
            }
        default:
            break
        }
    }

    /// A notification or indication from the peer, as the model holds it: a value longer than
    /// ATT_MTU - 3 comes cut to that length (3.4.7.1). A Multiple Handle Value Notification
    /// (3.4.7.4) carries handle, 2-byte length and value for each of its handles.
    mutating func sent(_ pdu: PDUBytes, at offset: Int64, bearer: UInt16? = nil) {
        guard pdu.count >= 3 else { return }
        if pdu[0] == ATTOpcode.multipleHandleValueNotification.rawValue {
            let bytes = pdu.bytes
            var at = 1
            while at + 4 <= bytes.count {
                let h = UInt16(bytes[at]) | UInt16(bytes[at + 1]) << 8
                let length = Int(bytes[at + 2]) | Int(bytes[at + 3]) << 8
                guard at + 4 + length <= bytes.count else { break }
                note(h, pdu, from: at + 4, count: length, at: offset)
                at += 4 + length
            }
            return
        }
        note(UInt16(pdu[1]) | UInt16(pdu[2]) << 8, pdu, from: 3, at: offset,
             whole: lengths.isWhole(pdu.count - 3, carriedBy: .handleValueNotification, bearer: bearer))
    }

    /// A Write Command from the central, as the model holds it.
    mutating func wrote(_ pdu: PDUBytes, at offset: Int64) {
        guard pdu.count >= 3 else { return }
        note(UInt16(pdu[1]) | UInt16(pdu[2]) << 8, pdu, from: 3, at: offset)
    }

    /// Attributes the values of the Read Multiple Responses where the lengths the connection's
    /// other values show (reads, notifications, writes, before or after it) explain them
    /// (`ReadMultipleValues.concatenated`). Call once, after the connection's last PDU.
    mutating func finish() {
        guard !readMultiples.isEmpty else { return }
        let pending = readMultiples
        readMultiples = []
        for m in pending {
            let handles = ReadMultipleValues.handles(request: m.request.bytes)
            for v in lengths.concatenated(handles: handles, responseCount: m.response.count, mtu: m.mtu) {
                note(v.handle, m.response, from: v.start, count: v.count, at: m.offset, whole: false)
            }
        }
    }
}
