import BLECore
import BLEDecode

/// What identifies "the same kind of request" for anchoring: the opcode and the handle it
/// names (the starting handle for range requests), as in "the 17th Write Request to 0x0021".
public struct ATTMatchKey: Hashable, Sendable, CustomStringConvertible {
    public var opcode: ATTOpcode
    public var handle: UInt16?

    public init(opcode: ATTOpcode, handle: UInt16?) {
        self.opcode = opcode
        self.handle = handle
    }

    /// The key of a PDU as it was on the wire (a malformed PDU keys by opcode alone).
    public init(pdu bytes: [UInt8]) {
        opcode = ATTOpcode(bytes.first ?? 0)
        handle = bytes.count >= 3 ? Self.attributeHandle(bytes) : nil
    }

    /// The key of a PDU as the model holds it: a long one is read back only when its opcode is
    /// not one whose handle follows it.
    public init(pdu data: PDUBytes) {
        opcode = ATTOpcode(data.first ?? 0)
        handle = data.count >= 3 ? Self.attributeHandle(data) : nil
    }

    /// `attributeHandle(_:)` of a PDU as the model holds it.
    public static func attributeHandle(_ data: PDUBytes) -> UInt16? {
        guard let op = data.first else { return nil }
        switch ATTOpcode(op) {
        case .writeRequest, .writeCommand, .handleValueNotification, .handleValueIndication:
            return data.count >= 3 ? UInt16(data[1]) | UInt16(data[2]) << 8 : nil
        default:
            return attributeHandle(data.bytes)
        }
    }

    /// `ATTPDU(decoding:).attributeHandle` of `bytes`. Write Request, Write Command, Handle Value
    /// Notification and Handle Value Indication (Core v5.4 Vol 3 Part F 3.4.5.1, 3.4.5.3,
    /// 3.4.7.1-2; `ATTHandleValueLayout`) carry it right after the opcode and decode whenever
    /// it is there: read without decoding the value (issue 12, most PDUs of a dense session).
    /// Every other PDU is decoded.
    public static func attributeHandle(_ bytes: [UInt8]) -> UInt16? {
        guard let op = bytes.first else { return nil }
        switch ATTOpcode(op) {
        case .writeRequest, .writeCommand, .handleValueNotification, .handleValueIndication:
            return bytes.count >= 3 ? UInt16(bytes[1]) | UInt16(bytes[2]) << 8 : nil
        default:
            return (try? ATTPDU(decoding: bytes[...]))?.attributeHandle
        }
    }

    public var description: String {
        handle.map { "\(opcode.name) to \(hex($0, width: 4))" } ?? opcode.name
    }
}

/// The event a recorded action is tied to (DESIGN.md "Replay semantics": failures are anchored
/// to events, not clock readings; Docs/replay.md "Anchoring rules").
///
/// Peripheral-side anchors count what the peripheral received on the current link; central-side
/// anchors refer to the recorded central's own actions by index.
public enum Anchor: Hashable, Sendable, CustomStringConvertible {
    /// The link came up (or, for a capture that starts mid-connection, the capture's first
    /// packet of the connection). Time anchoring.
    case linkStart
    /// The peripheral received the n-th (1-based) PDU with this key.
    case received(ATTMatchKey, Int)
    /// The n-th write that enabled notifications or indications through this CCCD handle.
    case subscribed(cccd: UInt16, Int)
    /// The recorded central sent its action with this index.
    case sent(Int)
    /// The answer to the recorded central's request with this index arrived.
    case completed(Int)
    /// The recorded central's request with this index timed out (30 s, Core v5.4 Vol 3 Part F 3.3.3).
    case timedOut(Int)

    public var description: String {
        switch self {
        case .linkStart: "the connection start"
        case .received(let key, let n): "the \(Self.ordinal(n)) \(key)"
        case .subscribed(let cccd, let n): "the \(Self.ordinal(n)) subscription through CCCD \(hex(cccd, width: 4))"
        case .sent(let i): "central action #\(i + 1)"
        case .completed(let i): "the answer to central action #\(i + 1)"
        case .timedOut(let i): "the ATT timeout of central action #\(i + 1)"
        }
    }

    /// `1st`, `2nd`, `3rd`, `11th`, `17th`, `21st`.
    public static func ordinal(_ n: Int) -> String {
        let tens = n % 100
        if (11...13).contains(tens) { return "\(n)th" }
        switch n % 10 {
        case 1: return "\(n)st"
        case 2: return "\(n)nd"
        case 3: return "\(n)rd"
        default: return "\(n)th"
        }
    }
}

/// An ATT PDU one side sends on its own initiative, at `delay` after `anchor`.
public struct AnchoredPDU: Sendable {
    public var anchor: Anchor
    public var delay: Int64
    /// When it happened, from the connection's start (for time anchoring).
    public var offset: Int64
    /// The PDU: a long one held by reference (`PDUBytes`).
    public var data: PDUBytes
    /// The recorded packet it came from.
    public var packetID: Int

    /// The ATT bearer it goes on (`RecordedPDU.bearer`): nil for the fixed channel.
    public var bearer: UInt16?

    /// The whole PDU (a long one read back from the timeline).
    public var pdu: [UInt8] {
        get { data.bytes }
        set { data = PDUBytes(newValue) }
    }

    public init(anchor: Anchor, delay: Int64, offset: Int64, data: PDUBytes, packetID: Int, bearer: UInt16? = nil) {
        self.anchor = anchor
        self.delay = delay
        self.offset = offset
        self.data = data
        self.packetID = packetID
        self.bearer = bearer
    }

    public init(anchor: Anchor, delay: Int64, offset: Int64, pdu: [UInt8], packetID: Int, bearer: UInt16? = nil) {
        self.init(anchor: anchor, delay: delay, offset: offset, data: PDUBytes(pdu), packetID: packetID, bearer: bearer)
    }
}

/// How one side answered a request (or an indication): the response PDU and its latency, or
/// silence (`response == nil`) when the recording holds no answer.
public struct RecordedAnswer: Sendable, Equatable {
    /// The response: a long one held by reference (`PDUBytes`).
    public var response: PDUBytes?
    public var latency: Int64
    public var packetID: Int?

    public init(response: PDUBytes?, latency: Int64, packetID: Int?) {
        self.response = response
        self.latency = latency
        self.packetID = packetID
    }
}

/// Answers per request: the n-th identical request (same bytes: opcode, handle, parameters) gets
/// the n-th recorded answer, then the last one again (DESIGN.md "Replay semantics").
///
/// Keyed by `PDUBytes`: a long request is held by reference and matched by length and digest.
public struct AnswerTable: Sendable {
    public private(set) var answers: [PDUBytes: [RecordedAnswer]] = [:]

    public init() {}

    public mutating func record(request: [UInt8], _ answer: RecordedAnswer) {
        record(request: PDUBytes(request), answer)
    }

    public mutating func record(request: PDUBytes, _ answer: RecordedAnswer) {
        answers[request, default: []].append(answer)
    }

    public mutating func record(request: [UInt8], occurrence: Int, _ answer: RecordedAnswer) {
        record(request: PDUBytes(request), occurrence: occurrence, answer)
    }

    /// Records the answer to the `occurrence`-th (1-based) identical request in its place: with
    /// several ATT bearers (Enhanced ATT, Core v5.4 Vol 3 Part G 5.4) identical requests on two
    /// bearers may be answered in the other order than they were sent, and the replay counts a
    /// request's occurrence when it arrives. Places not yet answered hold silence until theirs is
    /// recorded.
    public mutating func record(request: PDUBytes, occurrence: Int, _ answer: RecordedAnswer) {
        var list = answers[request] ?? []
        let i = max(0, occurrence - 1)
        while list.count <= i { list.append(RecordedAnswer(response: nil, latency: 0, packetID: nil)) }
        list[i] = answer
        answers[request] = list
    }

    /// The answer for the `occurrence`-th (1-based) identical request, or nil when this request
    /// was never recorded.
    public func answer(to request: [UInt8], occurrence: Int) -> RecordedAnswer? {
        answer(to: PDUBytes.key(request), occurrence: occurrence)
    }

    /// `answer(to:occurrence:)` for a request as the model holds it (or its `PDUBytes.key`).
    public func answer(to request: PDUBytes, occurrence: Int) -> RecordedAnswer? {
        guard let list = answers[request], let last = list.last else { return nil }
        return occurrence <= list.count ? list[occurrence - 1] : last
    }

    /// How many answers are recorded for `request`.
    public func count(for request: [UInt8]) -> Int { answers[PDUBytes.key(request)]?.count ?? 0 }

    public var isEmpty: Bool { answers.isEmpty }
    /// Recorded answer latencies (for answers the recording lacks).
    public var latencies: [Int64] { answers.values.flatMap { $0.filter { $0.response != nil }.map(\.latency) } }
}
