import BLECore

/// Reads a central script from JSON (Docs/replay.md "Central scripts"); errors say where.
extension CentralScript {
    public struct ParseError: Error, CustomStringConvertible {
        public var file: String
        public var message: String
        public var description: String { "\(file): \(message)" }
    }

    public init(parsing bytes: [UInt8], name file: String) throws(ParseError) {
        let json: JSON
        do { json = try JSONParser.parse(bytes) } catch { throw ParseError(file: file, message: error.description) }
        var p = ScriptReader(file: file)
        self = try p.script(json)
    }
}

struct ScriptReader {
    let file: String

    func fail(_ at: String, _ message: String) -> CentralScript.ParseError {
        CentralScript.ParseError(file: file, message: "\(at): \(message)")
    }

    mutating func script(_ j: JSON) throws(CentralScript.ParseError) -> CentralScript {
        guard case .object = j else { throw fail("top level", "a script is a JSON object with \"steps\"") }
        for key in j.objectKeys where !["name", "peripheral", "steps", "reconnect", "unmatched", "mtu", "limit", "inject", "description", "server"].contains(key) {
            throw fail("top level", "unknown key \"\(key)\"")
        }
        guard let steps = j["steps"]?.arrayValue else { throw fail("top level", "\"steps\" must be an array") }
        var s = CentralScript(name: j["name"]?.stringValue ?? file, steps: try self.steps(steps, path: "steps"))
        s.peripheral = j["peripheral"]?.stringValue
        if let v = j["server"] {
            guard let text = v.stringValue, let server = CentralScript.Server(rawValue: text) else {
                throw fail("server", "\"remote\" (the capture's peripherals) or \"local\" (the capture's own GATT server, the script as its remote central)")
            }
            s.server = server
        }
        if let r = j["reconnect"] { s.reconnect = try reconnect(r) }
        if let u = j["unmatched"]?.stringValue {
            switch u {
            case "strict": s.unmatched = .strict
            case "database": s.unmatched = .database
            case "error": s.unmatched = .error(.unlikelyError)
            default:
                guard u.hasPrefix("error:"), let n = parseNumber(String(u.dropFirst(6))), let c = UInt8(exactly: n) else {
                    throw fail("unmatched", "strict, database, error or error:0xNN")
                }
                s.unmatched = .error(ATTErrorCode(c))
            }
        }
        if let m = j["mtu"] {
            guard let n = m.intValue, (23...517).contains(n) else { throw fail("mtu", "a number from 23 to 517") }
            s.mtu = UInt16(n)
        }
        if let l = j["limit"] { s.limit = try duration(l, at: "limit") }
        for (i, f) in (j["inject"]?.arrayValue ?? []).enumerated() {
            guard let text = f.stringValue else { throw fail("inject[\(i)]", "a fault string") }
            do { s.faults.append(try FaultSpec(parsing: text)) } catch { throw fail("inject[\(i)]", error.description) }
        }
        return s
    }

    func duration(_ j: JSON, at: String) throws(CentralScript.ParseError) -> Int64 {
        if let d = j.doubleValue, d >= 0 { return Int64(d * 1_000_000) }
        guard let s = j.stringValue, let us = VirtualDuration.parse(s) else { throw fail(at, "a duration like \"5s\" or \"250ms\"") }
        return us
    }

    func uuid(_ j: JSON, at: String) throws(CentralScript.ParseError) -> BluetoothUUID {
        guard let s = j.stringValue, let u = BluetoothUUID(s) else { throw fail(at, "a UUID like \"180D\" or a 128-bit UUID") }
        return u
    }

    func uuids(_ j: JSON?, at: String) throws(CentralScript.ParseError) -> [BluetoothUUID] {
        guard let j else { return [] }
        guard let a = j.arrayValue else { throw fail(at, "an array of UUIDs") }
        var out: [BluetoothUUID] = []
        for (i, u) in a.enumerated() { out.append(try uuid(u, at: "\(at)[\(i)]")) }
        return out
    }

    /// `"hex:0647"`, `"utf8:Acme"`, or bare hex.
    func value(_ j: JSON, at: String) throws(CentralScript.ParseError) -> [UInt8] {
        guard let s = j.stringValue else { throw fail(at, "a value string (\"hex:0100\" or \"utf8:text\")") }
        if s.hasPrefix("utf8:") { return Array(s.dropFirst(5).utf8) }
        let digits = Array((s.hasPrefix("hex:") ? String(s.dropFirst(4)) : s).filter { $0 != " " && $0 != ":" })
        guard digits.count % 2 == 0 else { throw fail(at, "an even number of hex digits") }
        var out: [UInt8] = []
        var i = 0
        while i < digits.count {
            guard let b = UInt8(String(digits[i...i + 1]), radix: 16) else { throw fail(at, "bad hex digits") }
            out.append(b)
            i += 2
        }
        return out
    }

    func target(_ j: JSON, at: String) throws(CentralScript.ParseError) -> CentralScript.Target {
        var t = CentralScript.Target()
        if let h = j["handle"] {
            guard let n = h.intValue ?? h.stringValue.flatMap(parseNumber), let v = UInt16(exactly: n) else {
                throw fail(at, "\"handle\" is a number or \"0x0021\"")
            }
            t.handle = v
        } else if let c = j["characteristic"] {
            t.characteristic = try uuid(c, at: "\(at).characteristic")
        } else {
            throw fail(at, "name a \"characteristic\" (UUID) or a \"handle\"")
        }
        if let s = j["service"] { t.service = try uuid(s, at: "\(at).service") }
        return t
    }

    func expectation(_ j: JSON?, at: String) throws(CentralScript.ParseError) -> CentralScript.Expectation? {
        guard let j else { return nil }
        var e = CentralScript.Expectation()
        if let v = j["value"] { e.value = try value(v, at: "\(at).value") }
        if let a = j["attError"] {
            guard let n = a.intValue ?? a.stringValue.flatMap(parseNumber), let c = UInt8(exactly: n) else {
                throw fail(at, "\"attError\" is an ATT error code like \"0x05\"")
            }
            e.attError = ATTErrorCode(c)
        }
        e.fails = j["fails"]?.boolValue ?? false
        return e
    }

    func cbError(_ j: JSON, at: String) throws(CentralScript.ParseError) -> Int {
        if let n = j.intValue, CoreBluetoothNames.cbError[n] != nil { return n }
        if var s = j.stringValue {
            if s.hasPrefix("CBError.") { s.removeFirst(8) }
            if let (code, _) = CoreBluetoothNames.cbError.first(where: { $0.value == s }) { return code }
        }
        throw fail(at, "a CBError name such as \"connectionTimeout\" or its number")
    }

    func reconnect(_ j: JSON) throws(CentralScript.ParseError) -> CentralScript.ReconnectPolicy {
        let attempts = j["attempts"]?.intValue ?? 3
        guard attempts >= 0 else { throw fail("reconnect.attempts", "a whole number >= 0") }
        let initial = try j["initial"].map { v throws(CentralScript.ParseError) in try duration(v, at: "reconnect.initial") } ?? 1_000_000
        let maximum = try j["maximum"].map { v throws(CentralScript.ParseError) in try duration(v, at: "reconnect.maximum") } ?? 60_000_000
        let multiplier = j["multiplier"]?.doubleValue ?? 2
        let jitter = j["jitter"]?.doubleValue ?? 0
        guard multiplier >= 1, jitter >= 0, maximum >= initial else {
            throw fail("reconnect", "multiplier >= 1, jitter >= 0 and maximum >= initial")
        }
        return .init(attempts: attempts, initial: initial, maximum: maximum, multiplier: multiplier, jitter: jitter)
    }

    func steps(_ list: [JSON], path: String) throws(CentralScript.ParseError) -> [CentralScript.Labeled] {
        var out: [CentralScript.Labeled] = []
        for (i, j) in list.enumerated() {
            let at = "\(path)[\(i)]"
            let keys = j.objectKeys
            guard keys.count == 1, let kind = keys.first, let body = j[kind] else {
                throw fail(at, "each step is an object with one key (scan, connect, discover, read, write, subscribe, unsubscribe, wait, expect, disconnect, loop)")
            }
            let step = try self.step(kind, body, at: at)
            out.append(.init(step: step, label: "\(at) \(kind)\(label(step))"))
        }
        return out
    }

    func label(_ s: CentralScript.Step) -> String {
        switch s {
        case .read(let t, _), .write(let t, _, _, _), .subscribe(let t, _, _), .unsubscribe(let t): " \(t)"
        case .waitNotifications(let t, let n, _, _): " for \(n) notifications of \(t)"
        case .wait(let d): " \(VirtualDuration.short(d))"
        case .scan(let services, _, _, _, _): services.isEmpty ? "" : " for \(services.map(\.uuidString).joined(separator: ","))"
        default: ""
        }
    }

    func step(_ kind: String, _ b: JSON, at: String) throws(CentralScript.ParseError) -> CentralScript.Step {
        switch kind {
        case "scan":
            return .scan(services: try uuids(b["services"], at: "\(at).services"), name: b["name"]?.stringValue,
                         address: b["address"]?.stringValue, allowDuplicates: b["allowDuplicates"]?.boolValue ?? false,
                         timeout: try b["timeout"].map { v throws(CentralScript.ParseError) in try duration(v, at: "\(at).timeout") })
        case "connect":
            return .connect(timeout: try b["timeout"].map { v throws(CentralScript.ParseError) in try duration(v, at: "\(at).timeout") })
        case "discover":
            return .discover(services: b["services"] == nil ? nil : try uuids(b["services"], at: "\(at).services"))
        case "read":
            return .read(try target(b, at: at), try expectation(b["expect"], at: "\(at).expect"))
        case "write":
            guard let v = b["value"] else { throw fail(at, "a write needs a \"value\"") }
            return .write(try target(b, at: at), try value(v, at: "\(at).value"), withResponse: b["withResponse"]?.boolValue ?? true,
                          try expectation(b["expect"], at: "\(at).expect"))
        case "subscribe":
            return .subscribe(try target(b, at: at), indicate: b["indicate"]?.boolValue ?? false, try expectation(b["expect"], at: "\(at).expect"))
        case "unsubscribe":
            return .unsubscribe(try target(b, at: at))
        case "wait":
            if b.stringValue != nil || b.doubleValue != nil { return .wait(try duration(b, at: at)) }
            guard let n = b["notifications"]?.intValue, n > 0 else { throw fail(at, "wait takes a duration or {\"notifications\": N, ...}") }
            return .waitNotifications(try target(b, at: at), count: n,
                                      timeout: try b["timeout"].map { v throws(CentralScript.ParseError) in try duration(v, at: "\(at).timeout") } ?? 60_000_000,
                                      value: try b["expect"]?["value"].map { v throws(CentralScript.ParseError) in try value(v, at: "\(at).expect.value") })
        case "expect":
            guard let d = b["disconnect"] else { throw fail(at, "expect takes {\"disconnect\": {...}} (operations carry their own \"expect\")") }
            var e = CentralScript.DisconnectExpectation(reason: nil, cbError: nil, within: 60_000_000)
            if let r = d["reason"] {
                guard let n = r.intValue ?? r.stringValue.flatMap(parseNumber), let c = UInt8(exactly: n) else {
                    throw fail("\(at).disconnect.reason", "an HCI reason like \"0x08\"")
                }
                e.reason = HCIStatusCode(c)
            }
            if let c = d["cbError"] { e.cbError = try cbError(c, at: "\(at).disconnect.cbError") }
            if let w = d["within"] { e.within = try duration(w, at: "\(at).disconnect.within") }
            return .expectDisconnect(e)
        case "disconnect":
            return .disconnect
        case "loop":
            guard let n = b["count"]?.intValue, n >= 0, let inner = b["steps"]?.arrayValue else {
                throw fail(at, "loop takes {\"count\": N, \"steps\": [...]}")
            }
            return .loop(count: n, steps: try steps(inner, path: "\(at).steps"))
        default:
            throw fail(at, "unknown step \"\(kind)\"")
        }
    }
}
