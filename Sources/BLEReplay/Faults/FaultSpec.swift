import BLECore
import BLEDecode

/// Which received PDUs a fault applies to: `write-request:0x0021#3` is the 3rd Write Request
/// to handle 0x0021 on a link; without `#N` every matching one (Docs/replay.md "Fault grammar").
public struct FaultMatch: Sendable, Hashable, CustomStringConvertible {
    /// Nil matches any request.
    public var opcode: ATTOpcode?
    public var handle: UInt16?
    public var occurrence: Int?

    public init(opcode: ATTOpcode?, handle: UInt16?, occurrence: Int?) {
        self.opcode = opcode
        self.handle = handle
        self.occurrence = occurrence
    }

    /// Whether a received PDU with this key is of the matched kind (before counting).
    public func matches(_ key: ATTMatchKey) -> Bool {
        if let opcode { guard key.opcode == opcode else { return false } } else {
            guard key.opcode.kind == .request else { return false }
        }
        if let handle { return key.handle == handle }
        return true
    }

    /// `write-request:0x0021#3`.
    public var description: String {
        var s = opcode.map(Self.slug) ?? "any-request"
        if let handle { s += ":" + hex(handle, width: 4) }
        if let occurrence { s += "#\(occurrence)" }
        return s
    }

    /// `Write Request` -> `write-request`.
    public static func slug(_ op: ATTOpcode) -> String {
        op.name.lowercased().split(separator: " ").joined(separator: "-")
    }

    static func parse(_ text: String) -> FaultMatch? {
        var body = Substring(text)
        var occurrence: Int?
        if let hash = body.lastIndex(of: "#") {
            guard let n = Int(body[body.index(after: hash)...]), n > 0 else { return nil }
            occurrence = n
            body = body[..<hash]
        }
        let parts = body.split(separator: ":", omittingEmptySubsequences: false)
        guard (1...2).contains(parts.count) else { return nil }
        var opcode: ATTOpcode?
        if parts[0] != "any-request" {
            guard let op = ATTOpcode.allAssigned.first(where: { slug($0) == parts[0] }) else { return nil }
            opcode = op
        }
        var handle: UInt16?
        if parts.count == 2 {
            guard let h = parseNumber(String(parts[1])), let v = UInt16(exactly: h) else { return nil }
            handle = v
        }
        return FaultMatch(opcode: opcode, handle: handle, occurrence: occurrence)
    }
}

/// `0x21`, `33`: a number in hex (with 0x) or decimal.
func parseNumber(_ text: String) -> Int? {
    if text.hasPrefix("0x") || text.hasPrefix("0X") { return Int(text.dropFirst(2), radix: 16) }
    return Int(text)
}

/// A fault to inject into a replay (DESIGN.md "Replay semantics": faults; Docs/replay.md "Fault grammar").
public struct FaultSpec: Sendable, CustomStringConvertible {
    public enum Trigger: Sendable {
        /// After the peripheral received a matching PDU.
        case after(FaultMatch)
        /// At this virtual time (from the start of the replay).
        case at(VirtualTime)
    }

    public enum Kind: Sendable {
        /// 0x08: the peripheral goes silent and the link times out one supervision timeout later;
        /// any other reason: the peripheral ends the link with it.
        case disconnect(HCIStatusCode, Trigger)
        case dropResponse(FaultMatch)
        case delayResponse(FaultMatch, by: Int64)
        case attError(ATTErrorCode, FaultMatch)
        case latencyScale(Double)
        case stopAdvertising(at: VirtualTime)
        /// The peer stops reading what the local side sends (Docs/replay.md "Fault grammar"): its
        /// link layer acknowledges nothing more (Core v5.4 Vol 6 Part B 4.5.9: a receiver with
        /// no room leaves NESN unchanged), so the local controller keeps every later packet in its
        /// buffers, returns none (no Number Of Completed Packets), and the local host's transmit
        /// queue fills; the peer hears nothing more. The peer's recorded ending then comes at its
        /// recorded time.
        case stopReading(Trigger)
    }

    public var kind: Kind
    /// Only this peripheral (address text); nil for all.
    public var peer: String?
    /// The text it was parsed from (normalised).
    public var description: String

    public struct ParseError: Error, CustomStringConvertible {
        public var text: String
        public var reason: String
        public var description: String { "bad fault '\(text)': \(reason) (see Docs/replay.md, \"Fault grammar\")" }
    }

    public init(kind: Kind, peer: String? = nil) {
        self.kind = kind
        self.peer = peer
        var s: String
        switch kind {
        case .disconnect(let reason, .after(let m)): s = "disconnect:\(hex(reason.rawValue))@after=\(m)"
        case .disconnect(let reason, .at(let t)): s = "disconnect:\(hex(reason.rawValue))@t=\(Self.seconds(t))"
        case .dropResponse(let m): s = "drop-response:\(m)"
        case .delayResponse(let m, let d): s = "delay-response:\(m):+\(Self.seconds(d))"
        case .attError(let code, let m): s = "att-error:\(hex(code.rawValue))@\(m)"
        case .latencyScale(let f): s = "latency-scale:\(f)"
        case .stopAdvertising(let t): s = "stop-advertising@t=\(Self.seconds(t))"
        case .stopReading(.after(let m)): s = "stop-reading@after=\(m)"
        case .stopReading(.at(let t)): s = "stop-reading@t=\(Self.seconds(t))"
        }
        if let peer { s += ",peer=\(peer)" }
        description = s
    }

    static func seconds(_ us: Int64) -> String {
        if us % 1_000 != 0 { return "\(us)us" }
        var s = String(Double(us) / 1_000_000)
        if s.hasSuffix(".0") { s.removeLast(2) }
        return s + "s"
    }

    /// Parses one `--inject` argument.
    public init(parsing text: String) throws(ParseError) {
        func fail(_ reason: String) -> ParseError { ParseError(text: text, reason: reason) }
        var body = text.trimmingSpaces()
        var peer: String?
        if let comma = body.firstIndex(of: ",") {
            let option = body[body.index(after: comma)...]
            guard option.hasPrefix("peer="), BluetoothAddress(String(option.dropFirst(5))) != nil else {
                throw fail("after ',' only peer=AA:BB:CC:DD:EE:FF is allowed")
            }
            peer = String(option.dropFirst(5)).uppercased()
            body = String(body[..<comma])
        }
        func code(_ s: Substring) -> UInt8? { parseNumber(String(s)).flatMap { UInt8(exactly: $0) } }
        let kind: Kind
        if body.hasPrefix("disconnect:") {
            let rest = body.dropFirst("disconnect:".count)
            guard let at = rest.firstIndex(of: "@"), let reason = code(rest[..<at]) else {
                throw fail("expected disconnect:REASON@after=MATCH or disconnect:REASON@t=TIME")
            }
            // 0x00 is Success (Core v5.4 Vol 1 Part F 1.3): no link ends with it.
            guard reason != 0 else { throw fail("a disconnect reason is an HCI error code, 0x01 or more (0x00 is Success)") }
            let when = rest[rest.index(after: at)...]
            if when.hasPrefix("after=") {
                guard let m = FaultMatch.parse(String(when.dropFirst(6))) else { throw fail("bad request match '\(when.dropFirst(6))'") }
                kind = .disconnect(HCIStatusCode(reason), .after(m))
            } else if when.hasPrefix("t="), let t = VirtualDuration.parse(String(when.dropFirst(2))) {
                kind = .disconnect(HCIStatusCode(reason), .at(t))
            } else {
                throw fail("expected @after=MATCH or @t=TIME")
            }
        } else if body.hasPrefix("stop-reading@") {
            let when = body.dropFirst("stop-reading@".count)
            if when.hasPrefix("after=") {
                guard let m = FaultMatch.parse(String(when.dropFirst(6))) else { throw fail("bad match '\(when.dropFirst(6))'") }
                kind = .stopReading(.after(m))
            } else if when.hasPrefix("t="), let t = VirtualDuration.parse(String(when.dropFirst(2))) {
                kind = .stopReading(.at(t))
            } else {
                throw fail("expected stop-reading@after=MATCH or stop-reading@t=TIME")
            }
        } else if body.hasPrefix("drop-response:") {
            guard let m = FaultMatch.parse(String(body.dropFirst("drop-response:".count))) else { throw fail("bad request match") }
            kind = .dropResponse(m)
        } else if body.hasPrefix("delay-response:") {
            let rest = body.dropFirst("delay-response:".count)
            guard let colon = rest.lastIndex(of: ":"), let d = VirtualDuration.parse(String(rest[rest.index(after: colon)...])),
                  let m = FaultMatch.parse(String(rest[..<colon])) else {
                throw fail("expected delay-response:MATCH:+DURATION")
            }
            kind = .delayResponse(m, by: d)
        } else if body.hasPrefix("att-error:") {
            let rest = body.dropFirst("att-error:".count)
            guard let at = rest.firstIndex(of: "@"), let c = code(rest[..<at]),
                  let m = FaultMatch.parse(String(rest[rest.index(after: at)...])) else {
                throw fail("expected att-error:CODE@MATCH")
            }
            // 0x00 is reserved (Core v5.4 Vol 3 Part F 3.4.1.1): an Error Response has a code.
            guard c != 0 else { throw fail("an ATT error code is 0x01 or more (0x00 is reserved for future use)") }
            kind = .attError(ATTErrorCode(c), m)
        } else if body.hasPrefix("latency-scale:") {
            guard let f = Double(body.dropFirst("latency-scale:".count)), f.isFinite, f >= 0 else {
                throw fail("expected latency-scale:FACTOR with a factor >= 0")
            }
            kind = .latencyScale(f)
        } else if body.hasPrefix("stop-advertising@t=") {
            guard let t = VirtualDuration.parse(String(body.dropFirst("stop-advertising@t=".count))) else {
                throw fail("expected stop-advertising@t=TIME")
            }
            kind = .stopAdvertising(at: t)
        } else {
            throw fail("unknown fault; one of disconnect, drop-response, delay-response, att-error, latency-scale, stop-advertising, stop-reading")
        }
        self.init(kind: kind, peer: peer)
    }

    /// Whether this fault concerns the peripheral with this key.
    public func applies(to peerKey: String) -> Bool { peer == nil || peer == peerKey.uppercased() }
}
