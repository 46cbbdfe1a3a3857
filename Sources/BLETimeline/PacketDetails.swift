import BLECore
import BLEDecode

/// What each layer decoded in one packet, as `timeline -v` prints it and `--json` nests it
/// under `decoded`: the ATT PDU's fields, the characteristic value they carry (where the
/// handle's characteristic is known and its layout defined), SMP, advertising reports, HCI
/// link events and error codes.
public struct PacketDetails: Sendable {
    public struct ATT: Sendable {
        public var opcodeName: String
        /// Decoded fields in wire order; nil when the PDU is malformed (then `bytes` is all there is).
        public var fields: [(String, String)]?
        public var bytes: [UInt8]
    }
    public struct Value: Sendable {
        public var handle: Int
        public var value: CharacteristicValue
    }
    public struct SMP: Sendable { public var name: String; public var detail: String? }
    public struct Report: Sendable {
        public var address: String
        public var addressType: String
        public var eventType: Int
        public var rssi: Int?
        public var data: [(String, String)]
    }
    public struct Link: Sendable { public var name: String; public var status: Int?; public var detail: String? }
    public struct CodeRow: Sendable {
        public var layer: String
        public var context: String
        public var code: Int
        public var name: String
        public var cbError: String?
        /// What an Android app's BluetoothGattCallback received (`errors.android_status`, `android_name`).
        public var androidStatus: Int? = nil
        public var androidName: String? = nil
    }

    public var att: ATT?
    public var value: Value?
    public var smp: [SMP] = []
    public var reports: [Report] = []
    public var links: [Link] = []
    public var errors: [CodeRow] = []

    public init() {}

    public var isEmpty: Bool { att == nil && value == nil && smp.isEmpty && reports.isEmpty && links.isEmpty && errors.isEmpty }

    /// Indented text, a heading per layer and its fields under it.
    public func textLines(indent: String) -> [String] {
        var out: [String] = []
        let sub = indent + "  "
        if let att {
            out.append("\(indent)ATT \(att.opcodeName)" + (att.fields == nil ? " (malformed)" : ""))
            if let f = att.fields { out += f.map { "\(sub)\($0.0): \($0.1)" } } else { out.append("\(sub)bytes: \(hexString(att.bytes))") }
        }
        if let value {
            let v = value.value
            out.append("\(indent)\(v.characteristic.uuidString) \(v.name) (handle \(hex(value.handle, width: 4))): \(v.summary)")
            out += v.fields.map { "\(sub)\($0.0): \($0.1)" }
        }
        for e in smp { out.append("\(indent)SMP \(e.name)" + (e.detail.map { ": \($0)" } ?? "")) }
        for r in reports {
            out.append("\(indent)report \(r.address) (\(r.addressType)) event type \(hex(r.eventType)) RSSI \(r.rssi.map { "\($0) dBm" } ?? "n/a")")
            out += r.data.map { "\(sub)\($0.0): \($0.1)" }
        }
        for l in links {
            let rest = [l.status.map { "status \(hex($0))" }, l.detail].compactMap { $0 }.joined(separator: " ")
            out.append("\(indent)HCI \(l.name)" + (rest.isEmpty ? "" : ": \(rest)"))
        }
        for e in errors {
            out.append("\(indent)error \(e.layer) \(e.context): \(hex(e.code)) \(e.name)" + (e.cbError.map { " → \($0)" } ?? "") +
                       (e.androidStatus.map { "; Android status \($0)" + (e.androidName.map { " \($0)" } ?? "") } ?? ""))
        }
        return out
    }

    /// `{"att": {...}, "value": {...}, "smp": [...], "adv_reports": [...], "hci": [...], "errors": [...]}`,
    /// only the layers present. A field name that repeats (a Read Multiple's handles) holds an array.
    public func json() -> JSON {
        var o: [(String, JSON)] = []
        if let att {
            var a: [(String, JSON)] = [("opcode_name", .string(att.opcodeName)), ("malformed", .bool(att.fields == nil))]
            if let f = att.fields { a.append(("fields", Self.object(f))) } else { a.append(("bytes", .string(hexString(att.bytes)))) }
            o.append(("att", .object(a)))
        }
        if let value {
            let v = value.value
            o.append(("value", .object([
                ("handle", .int(Int64(value.handle))), ("characteristic", .string(v.characteristic.uuidString)),
                ("name", .string(v.name)), ("summary", .string(v.summary)), ("fields", Self.object(v.fields)),
                ("problem", JSON(v.problem?.description)),
            ])))
        }
        if !smp.isEmpty { o.append(("smp", .array(smp.map { .object([("name", .string($0.name)), ("detail", JSON($0.detail))]) }))) }
        if !reports.isEmpty {
            o.append(("adv_reports", .array(reports.map { r in
                .object([("address", .string(r.address)), ("address_type", .string(r.addressType)), ("event_type", .int(Int64(r.eventType))),
                         ("rssi", JSON(r.rssi)), ("data", Self.object(r.data))])
            })))
        }
        if !links.isEmpty {
            o.append(("hci", .array(links.map { .object([("name", .string($0.name)), ("status", JSON($0.status)), ("detail", JSON($0.detail))]) })))
        }
        if !errors.isEmpty {
            o.append(("errors", .array(errors.map { e in
                .object([("layer", .string(e.layer)), ("context", .string(e.context)), ("code", .int(Int64(e.code))),
                         ("name", .string(e.name)), ("cb_error", JSON(e.cbError)),
                         ("android_status", JSON(e.androidStatus)), ("android_name", JSON(e.androidName))])
            })))
        }
        return .object(o)
    }

    /// Fields as an object in wire order; a repeated name's values become an array at its first place.
    static func object(_ fields: [(String, String)]) -> JSON {
        var order: [String] = []
        var values: [String: [String]] = [:]
        for (k, v) in fields {
            if values[k] == nil { order.append(k) }
            values[k, default: []].append(v)
        }
        return .object(order.map { k in
            let vs = values[k] ?? []
            return (k, vs.count == 1 ? .string(vs[0]) : .array(vs.map { .string($0) }))
        })
    }
}
