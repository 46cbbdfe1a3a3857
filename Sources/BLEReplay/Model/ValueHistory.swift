import BLECore
import BLEDecode

/// The values one recorded connection shows for each attribute handle, in time order: what a
/// Read Response returned, what a notification or indication carried, what a write the peer
/// accepted (Write Response) or a Write Command stored (Core v5.4 Vol 3 Part F 3.4.4-3.4.7).
/// A failed write stores nothing.
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
        var value: [UInt8] { Array(pdu.bytes.dropFirst(start)) }
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

    mutating func note(_ handle: UInt16, _ pdu: PDUBytes, from start: Int, at offset: Int64) {
        entries[handle, default: []].append(Entry(offset: offset, pdu: pdu, start: start))
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
