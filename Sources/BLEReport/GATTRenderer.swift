import BLECore
import BLEDecode
import BLEAnalysis

/// Renders `blereplay gatt`: the attribute tree per device.
public enum GATTRenderer {
    /// Characteristic Properties bits (Core v5.4 Vol 3 Part G 3.3.1.1).
    static let propertyNames: [(UInt8, String)] = [
        (0x01, "broadcast"), (0x02, "read"), (0x04, "write-without-response"), (0x08, "write"),
        (0x10, "notify"), (0x20, "indicate"), (0x40, "signed-write"), (0x80, "extended"),
    ]

    public static func properties(_ p: UInt8) -> [String] {
        propertyNames.filter { p & $0.0 != 0 }.map(\.1)
    }

    static func uuidText(_ u: BluetoothUUID) -> String {
        u.uuidString + (AssignedNumbers.uuidName(u).map { " \($0)" } ?? "")
    }

    static func valueText(_ v: GATTDatabase.Value, uuid: BluetoothUUID? = nil) -> String {
        // Text without its NUL padding (GATTStringValue); a lone byte is a number, not a letter.
        var text = v.bytes.count >= 2 ? GATTStringValue.text(v.bytes).map { " \"\($0)\"" } ?? "" : ""
        // A standard characteristic's value, decoded (GATT Specification Supplement).
        if let uuid, let decoded = CharacteristicValueDecoder.decode(v.bytes, uuid: uuid) { text = " = \(decoded.summary)" }
        let hexText = v.bytes.prefix(32).map(hex2).joined(separator: " ").lowercased() + (v.bytes.count > 32 ? " …" : "")
        return "\(hexText)\(text) (\(v.source), packet \(v.packetID))"
    }

    /// The first line of a server's entry: the peer device it belongs to, or the local device's
    /// own server with the peers that were its clients (whatever the link-layer roles were).
    /// When the timeline holds several captures' local servers, each names its capture.
    static func heading(_ d: DeviceGATT, severalLocal: Bool = false) -> String {
        if d.isLocalServer {
            let clients = d.clients.map { c in c.role == "unknown" ? c.address : "remote \(c.role) \(c.address)" }
            let readBy = ", read by " + (clients.isEmpty ? "an unknown client" : clients.joined(separator: ", "))
            if d.isAirCapture { return "The central's GATT server (air capture" + (severalLocal ? " \(d.captureFileName ?? "")" : "") + ")" + readBy }
            return "Local GATT server (" + (severalLocal ? "this device in \(d.captureFileName ?? "its capture")" : "this device") + ")" + readBy
        }
        var head = "Device \(d.address ?? "unknown address")" + (d.addressType.map { " (\($0))" } ?? "")
        if let n = d.name { head += " \"\(n)\"" }
        if let c = d.companyID { head += " — \(d.companyName ?? "company") (\(hex(c, width: 4)))" }
        return head
    }

    /// What `text` says of a timeline with no GATT server.
    public static let noDatabase = "No LE connection in this timeline: no GATT database to show."

    public static func text(_ devices: [DeviceGATT]) -> String {
        var out: [String] = []
        if devices.isEmpty { out.append(noDatabase) }
        let severalLocal = devices.filter(\.isLocalServer).count > 1
        for d in devices { out += lines(d, severalLocal: severalLocal) }
        return out.joined(separator: "\n")
    }

    /// One server's entry, ending with an empty line; `severalLocal` when the timeline holds
    /// several captures' local servers.
    public static func lines(_ d: DeviceGATT, severalLocal: Bool) -> [String] {
        var out: [String] = []
        out.append(heading(d, severalLocal: severalLocal))
        let identity = [("manufacturer", d.manufacturer), ("model", d.model), ("firmware", d.firmwareRevision),
                        ("hardware", d.hardwareRevision), ("software", d.softwareRevision), ("serial", d.serialNumber)]
            .compactMap { k, v in v.map { "\(k) \($0)" } }
        if !identity.isEmpty { out.append("  " + identity.joined(separator: ", ")) }
        if let a = d.appearance {
            out.append("  appearance \(hex(a, width: 4))" + (AssignedNumbers.appearanceName(UInt16(truncatingIfNeeded: a)).map { " \($0)" } ?? ""))
        }
        out.append("  connections: " + d.connectionIDs.map(String.init).joined(separator: ", "))
        let g = d.database
        if g.isEmpty {
            out.append("  no discovery in the capture" + (d.ciphertextFrom.isEmpty ? "" : "'s plaintext"))
        }
        // Core v5.4 Vol 6 Part E 1: what an encrypted link carried is not known without its key.
        for (connection, packet) in d.ciphertextFrom {
            out.append("  connection \(connection): encrypted from packet \(packet) on, and the sniffer did not decrypt it: its GATT traffic from there is not known")
        }
        let cccd = g.clientConfigurations
        for s in g.services {
            out.append("  \(s.isPrimary ? "Service" : "Secondary service") \(uuidText(s.uuid)) [\(hex(s.startHandle, width: 4))–\(hex(s.endHandle, width: 4))]")
            for i in g.includes where s.startHandle <= i.declarationHandle && i.declarationHandle <= s.endHandle {
                out.append("    Include \(i.uuid.map(uuidText) ?? "") [\(hex(i.startHandle, width: 4))–\(hex(i.endHandle, width: 4))]")
            }
            let inService = { (h: UInt16) in s.startHandle <= h && h <= s.endHandle }
            var declarations: [(UInt16, GATTDatabase.Characteristic?)] = g.characteristics.filter { inService($0.declarationHandle) }
                .map { ($0.declarationHandle, $0) }
            declarations += g.unreadDeclarations.filter(inService).map { ($0, nil) }
            for (handle, characteristic) in declarations.sorted(by: { $0.0 < $1.0 }) {
                guard let c = characteristic else {
                    out += unreadLines(handle, g, cccd: cccd, indent: "    ")
                    continue
                }
                var line = "    Characteristic \(uuidText(c.uuid)) value \(hex(c.valueHandle, width: 4)) [\(properties(c.properties).joined(separator: ", "))]"
                if let state = cccd[c.valueHandle] { line += subscription(state) }
                out.append(line)
                if let v = g.values[c.valueHandle] { out.append("      value: \(valueText(v, uuid: c.uuid))") }
                out += descriptorLines(of: c.declarationHandle, g)
            }
        }
        let orphans = g.characteristics.filter { g.service(containing: $0.declarationHandle) == nil }
        for c in orphans {
            out.append("  Characteristic outside any discovered service: \(uuidText(c.uuid)) value \(hex(c.valueHandle, width: 4))")
            out += descriptorLines(of: c.declarationHandle, g)
        }
        for h in g.unreadDeclarations where g.service(containing: h) == nil {
            out += unreadLines(h, g, cccd: cccd, indent: "  ", outside: true)
        }
        for desc in g.descriptors where g.declaration(owning: desc.handle) == nil {
            out.append("  Descriptor outside any known characteristic: \(uuidText(desc.uuid)) \(hex(desc.handle, width: 4))" +
                       (g.values[desc.handle].map { " = \(valueText($0))" } ?? ""))
        }
        if !d.undiscoveredHandles.isEmpty {
            out.append("  handles used but never discovered: " + d.undiscoveredHandles.map { hex($0, width: 4) }.joined(separator: ", "))
            for h in d.undiscoveredHandles {
                if let v = g.values[h] { out.append("    \(hex(h, width: 4)): \(valueText(v))") }
            }
        }
        out.append("")
        return out
    }

    static func subscription(_ state: UInt16) -> String {
        state & 1 != 0 ? " notifying" : state & 2 != 0 ? " indicating" : " notifications off"
    }

    /// The descriptors under the characteristic declared at `declaration` (decoded or never read).
    static func descriptorLines(of declaration: UInt16, _ g: GATTDatabase) -> [String] {
        g.descriptors.filter { g.declaration(owning: $0.handle) == declaration }.map { desc in
            "      Descriptor \(uuidText(desc.uuid)) \(hex(desc.handle, width: 4))" + (g.values[desc.handle].map { " = \(valueText($0))" } ?? "")
        }
    }

    /// A characteristic declaration Find Information listed but no read returned (Core v5.4 Vol 3
    /// Part G 3.3.1): its properties are unknown; its value handle and UUID are those of the
    /// attribute Find Information listed right after it (3.3.2), when it did.
    static func unreadLines(_ handle: UInt16, _ g: GATTDatabase, cccd: [UInt16: UInt16], indent: String, outside: Bool = false) -> [String] {
        var line = indent + "Characteristic declaration \(hex(handle, width: 4))" + (outside ? " outside any discovered service" : "") + " never read: "
        guard let value = g.valueAttribute(afterUnread: handle) else {
            return [line + "properties, value handle and UUID unknown"] + descriptorLines(of: handle, g)
        }
        line += "properties unknown; value \(hex(value.handle, width: 4)) \(uuidText(value.type)) (Find Information)"
        if let state = cccd[value.handle] { line += subscription(state) }
        var out = [line]
        if let v = g.values[value.handle] { out.append("      value: \(valueText(v, uuid: value.type))") }
        return out + descriptorLines(of: handle, g)
    }

    public static func json(_ devices: [DeviceGATT]) -> JSON { .array(devices.map(deviceJSON)) }

    /// One server's entry of the JSON array.
    public static func deviceJSON(_ d: DeviceGATT) -> JSON {
        let g = d.database
        let cccd = g.clientConfigurations
        func value(_ h: UInt16) -> JSON {
            g.values[h].map { .object([("hex", .string(hexString($0.bytes))), ("source", .string($0.source)),
                                       ("packet_id", .int(Int64($0.packetID)))]) } ?? .null
        }
        func descriptor(_ desc: GATTDatabase.Descriptor) -> JSON {
            .object([("uuid", .string(desc.uuid.uuidString)), ("name", JSON(AssignedNumbers.uuidName(desc.uuid))),
                     ("handle", .int(Int64(desc.handle))), ("value", value(desc.handle))])
        }
        func descriptors(_ declaration: UInt16) -> JSON {
            .array(g.descriptors.filter { g.declaration(owning: $0.handle) == declaration }.map(descriptor))
        }
        // A declaration never read: properties unknown (null); value handle and UUID from the
        // attribute Find Information listed after it, or null (Core v5.4 Vol 3 Part G 3.3.2).
        func unread(_ h: UInt16) -> JSON {
            let v = g.valueAttribute(afterUnread: h)
            return .object([("declaration_handle", .int(Int64(h))), ("properties", .null),
                            ("value_handle", JSON(v.map { Int($0.handle) })), ("uuid", JSON(v?.type.uuidString)),
                            ("name", JSON(v.flatMap { AssignedNumbers.uuidName($0.type) })),
                            ("cccd", JSON(v.flatMap { cccd[$0.handle] }.map { Int($0) })), ("value", v.map { value($0.handle) } ?? .null),
                            ("descriptors", descriptors(h))])
        }
        return .object([
            ("address", JSON(d.address)), ("address_type", JSON(d.addressType)), ("local_server", .bool(d.isLocalServer)),
            ("capture", JSON(d.isLocalServer ? d.captureFileName : nil)), ("centrals", .array(d.centrals.map { .string($0) })),
            ("clients", .array(d.clients.map { .object([("address", .string($0.address)), ("role", .string($0.role))]) })),
            ("name", JSON(d.name)),
            ("manufacturer", JSON(d.manufacturer)), ("model", JSON(d.model)), ("firmware_revision", JSON(d.firmwareRevision)),
            ("hardware_revision", JSON(d.hardwareRevision)), ("software_revision", JSON(d.softwareRevision)),
            ("serial_number", JSON(d.serialNumber)), ("company_id", JSON(d.companyID)), ("company_name", JSON(d.companyName)),
            ("appearance", JSON(d.appearance)), ("connections", .array(d.connectionIDs.map { .int($0) })),
            ("services", .array(g.services.map { s in
                .object([
                    ("uuid", .string(s.uuid.uuidString)), ("name", JSON(AssignedNumbers.uuidName(s.uuid))),
                    ("primary", .bool(s.isPrimary)), ("start_handle", .int(Int64(s.startHandle))), ("end_handle", .int(Int64(s.endHandle))),
                    ("characteristics", .array(g.characteristics.filter { s.startHandle <= $0.declarationHandle && $0.declarationHandle <= s.endHandle }.map { c in
                        .object([
                            ("uuid", .string(c.uuid.uuidString)), ("name", JSON(AssignedNumbers.uuidName(c.uuid))),
                            ("declaration_handle", .int(Int64(c.declarationHandle))), ("value_handle", .int(Int64(c.valueHandle))),
                            ("properties", .array(properties(c.properties).map { .string($0) })),
                            ("cccd", JSON(cccd[c.valueHandle].map { Int($0) })), ("value", value(c.valueHandle)),
                            ("descriptors", descriptors(c.declarationHandle)),
                        ])
                    })),
                    ("unread_declarations", .array(g.unreadDeclarations.filter { s.startHandle <= $0 && $0 <= s.endHandle }.map(unread))),
                ])
            })),
            ("characteristics_outside_services", .array(g.characteristics.filter { g.service(containing: $0.declarationHandle) == nil }.map { c in
                .object([("uuid", .string(c.uuid.uuidString)), ("name", JSON(AssignedNumbers.uuidName(c.uuid))),
                         ("declaration_handle", .int(Int64(c.declarationHandle))), ("value_handle", .int(Int64(c.valueHandle))),
                         ("properties", .array(properties(c.properties).map { .string($0) })), ("value", value(c.valueHandle)),
                         ("descriptors", descriptors(c.declarationHandle))])
            })),
            ("unread_declarations_outside_services", .array(g.unreadDeclarations.filter { g.service(containing: $0) == nil }.map(unread))),
            ("descriptors_outside_characteristics", .array(g.descriptors.filter { g.declaration(owning: $0.handle) == nil }.map(descriptor))),
            ("undiscovered_handles", .array(d.undiscoveredHandles.map { .int(Int64($0)) })),
        ])
    }
}
