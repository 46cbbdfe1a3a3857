import BLECore
import BLEDecode
import BLETimeline

/// The packet filters `timeline` and `diagnose` share: `--connection N`, `--address A`,
/// `--conn-handle H`, `--controller N`, `--handle H`, `--opcode OP`, `--since T`, `--until T`, `--severity S`.
enum PacketFilterOptions {
    static let valued: Set<String> = ["connection", "address", "conn-handle", "controller", "handle", "opcode", "since", "until", "severity"]

    static func filter(_ args: Arguments) throws(Arguments.UsageError) -> PacketFilter {
        var f = PacketFilter()
        f.connectionID = try args.int("connection").map(Int64.init)
        if let a = args.value("address") {
            guard let address = BluetoothAddress(a) else {
                throw Arguments.UsageError(message: "--address takes AA:BB:CC:DD:EE:FF, not '\(a)'")
            }
            f.address = address.description
        }
        if let h = args.value("conn-handle") {
            guard let v = number(h), (0...0x0EFF).contains(v) else {
                throw Arguments.UsageError(message: "--conn-handle takes an HCI connection handle 0x0000–0x0EFF, not '\(h)'")
            }
            f.connectionHandle = v
        }
        if let c = args.value("controller") {
            // The monitor header's index is 16 bits; 0xFFFF (HCI_DEV_NONE) marks btmon's own notes.
            guard let v = number(c), (0...0xFFFF).contains(v) else {
                throw Arguments.UsageError(message: "--controller takes a controller (adapter) index, 0 for hci0, 0–65535, not '\(c)'")
            }
            f.controllerIndex = v
        }
        if let h = args.value("handle") {
            guard let v = number(h), (0...0xFFFF).contains(v) else {
                throw Arguments.UsageError(message: "--handle takes an ATT attribute handle 0x0000–0xFFFF, not '\(h)'")
            }
            f.attributeHandle = v
        }
        if let o = args.value("opcode") {
            guard let op = attOpcode(o) else {
                throw Arguments.UsageError(message: "--opcode takes an ATT opcode (0x1B, 27, 'Handle Value Notification' or handle-value-notification), not '\(o)'")
            }
            f.attOpcode = Int(op.rawValue)
        }
        for (name, keyPath) in [("since", \PacketFilter.since), ("until", \PacketFilter.until)] {
            guard let t = args.value(name) else { continue }
            guard let bound = TimeBound(parsing: t) else {
                throw Arguments.UsageError(message: "--\(name) takes seconds from the time origin (12.5) or a UTC time (2026-05-04T08:00:01Z), not '\(t)'")
            }
            f[keyPath: keyPath] = bound
        }
        try checkWindow(since: f.since, until: f.until)
        if let s = args.value("severity") {
            guard ["info", "warning", "error"].contains(s) else {
                throw Arguments.UsageError(message: "--severity takes info, warning or error, not '\(s)'")
            }
            f.minimumSeverity = s
        }
        return f
    }

    /// A window that ends before it begins selects nothing by construction: a usage error (2), not
    /// "no packet matches" (1). Bounds of two kinds (seconds and a UTC time) are compared only
    /// against a capture's origin, so only bounds of one kind are checked here.
    static func checkWindow(since: TimeBound?, until: TimeBound?) throws(Arguments.UsageError) {
        switch (since, until) {
        case (.relative(let s)?, .relative(let u)?) where s > u, (.absolute(let s)?, .absolute(let u)?) where s > u:
            throw Arguments.UsageError(message: "--since is after --until: the window ends before it begins")
        default:
            break
        }
    }

    /// `0x1B` or `27`.
    static func number(_ text: String) -> Int? {
        let t = text.lowercased()
        if t.hasPrefix("0x") { return Int(t.dropFirst(2), radix: 16) }
        return Int(t)
    }

    /// A number, or an opcode's name as Wireshark spells it, case and `-`/space insensitive.
    static func attOpcode(_ text: String) -> ATTOpcode? {
        if let n = number(text) { return UInt8(exactly: n).map(ATTOpcode.init(rawValue:)) }
        func key(_ s: String) -> String { s.lowercased().filter { $0.isLetter || $0.isNumber } }
        let wanted = key(text)
        return ATTOpcode.allAssigned.first { key($0.name) == wanted }
    }

    /// The filter options given, as typed (for "no packet matches …").
    static func describe(_ args: Arguments) -> String {
        let names = ["capture", "connection", "address", "conn-handle", "controller", "handle", "opcode", "since", "until", "severity", "layer"]
        var parts = names.compactMap { n in args.value(n).map { "--\(n) \($0)" } }
        if args.flag("errors") { parts.append("--errors") }
        return parts.isEmpty ? "(no filter)" : parts.joined(separator: " ")
    }
}
