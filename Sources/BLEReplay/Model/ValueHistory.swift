import BLECore
import BLEDecode

/// The values one recorded connection shows for each attribute handle, in time order: what a
/// Read Response returned, what a Read Multiple Variable Response returned for each handle of its
/// request (3.4.4.11-12: each value after its 2-byte length, one cut short at ATT_MTU - 1 left
/// out), what a notification or indication carried, what a write the peer accepted (Write
/// Response) or a Write Command stored (Core v5.4 Vol 3 Part F 3.4.4-3.4.7). A failed write
/// stores nothing.
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
    }
    private var entries: [UInt16: [Entry]] = [:]

    /// Every value per handle, in time order, with its offset from the connection start.
    public var values: [UInt16: [(offset: Int64, value: [UInt8])]] {
        entries.mapValues { $0.map { ($0.offset, $0.value) } }
    }

    public init() {}

    /// True when the recording showed no value.
    public var isEmpty: Bool { entries.isEmpty }

    /// The value `handle` held at `offset` (µs from the connection start), if the recording
    /// showed one by then.
    public func value(of handle: UInt16, at offset: Int64) -> [UInt8]? {
        entries[handle]?.last { $0.offset <= offset }?.value
    }

    mutating func note(_ handle: UInt16, _ pdu: PDUBytes, from start: Int, count: Int? = nil, at offset: Int64) {
        entries[handle, default: []].append(Entry(offset: offset, pdu: pdu, start: start, count: count.map { Int32(clamping: $0) }))
    }

    /// The peer's answer to a request.
    mutating func answered(_ request: [UInt8], _ response: [UInt8], at offset: Int64) {
        answered(PDUBytes(request), PDUBytes(response), at: offset)
    }

    /// A notification or indication from the peer.
    mutating func sent(_ pdu: [UInt8], at offset: Int64) { sent(PDUBytes(pdu), at: offset) }

    /// A Write Command from the central.
    mutating func wrote(_ pdu: [UInt8], at offset: Int64) { sent(PDUBytes(pdu), at: offset) }

    /// The peer's answer to a request, as the model holds them.
    mutating func answered(_ request: PDUBytes, _ response: PDUBytes, at offset: Int64) {
        guard request.count >= 3, let r = response.first else { return }
        let handle = UInt16(request[1]) | UInt16(request[2]) << 8
        switch (ATTOpcode(request[0]), ATTOpcode(r)) {
        case (.readRequest, .readResponse):
            note(handle, response, from: 1, at: offset)
        case (.writeRequest, .writeResponse):
            note(handle, request, from: 3, at: offset)
        case (.readMultipleVariableRequest, .readMultipleVariableResponse):
            // Handles in the request, 2 bytes each; in the response each value's length (2 bytes)
            // then the value. A value cut short (the response ends inside it) is not the value.
            var at = 1
            for k in stride(from: 1, to: request.count - 1, by: 2) {
                guard at + 2 <= response.count else { break }
                let length = Int(response[at]) | Int(response[at + 1]) << 8
                guard at + 2 + length <= response.count else { break }
                note(UInt16(request[k]) | UInt16(request[k + 1]) << 8, response, from: at + 2, count: length, at: offset)
                at += 2 + length
            }
        default:
            break
        }
    }

    /// A notification or indication from the peer, as the model holds it.
    mutating func sent(_ pdu: PDUBytes, at offset: Int64) {
        guard pdu.count >= 3 else { return }
        note(UInt16(pdu[1]) | UInt16(pdu[2]) << 8, pdu, from: 3, at: offset)
    }

    /// A Write Command from the central, as the model holds it.
    mutating func wrote(_ pdu: PDUBytes, at offset: Int64) { sent(pdu, at: offset) }
}
