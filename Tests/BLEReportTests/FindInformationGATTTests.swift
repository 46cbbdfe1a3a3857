import Foundation
import Testing
import TestSupport
import BLEAnalysis
import BLECore
import BLETimeline
@testable import BLEReport

/// Databases a client learned by walking every handle with Find Information (Core v5.4 Vol 3
/// Part F 3.4.3.1/3.4.3.2) and reading each characteristic declaration (Vol 3 Part G 3.3.1),
/// rather than by Discover All Characteristics: the timeline's tables, `gatt` and `gatt --json`
/// agree on the characteristics, their descriptors and the declarations never read.
@Suite("GATT learned by Find Information")
struct FindInformationGATTTests {
    static func rows(_ store: TimelineStore, _ sql: String) throws -> [String] {
        // Integers in hex, as handles are written.
        try store.database.rows(sql).map { $0.map { $0.int.map { String(format: "%X", $0) } ?? $0.string ?? "NULL" }.joined(separator: " ") }
    }

    /// `blegen.scenarios`' find-information-discovery.btsnoop (its database is laid out in
    /// Scripts/blegen/scenarios.py): Find Information over every handle, Read Requests of the
    /// declarations, Battery also by Read By Type, the read of declaration 0x0015 refused.
    @Test func theGeneratedFindInformationDiscovery() throws {
        let dir = Support.scratch()
        defer { Support.remove(dir) }
        try BlegenSessions.run("scenarios", [dir])
        let store = try Support.timeline([dir + "/find-information-discovery.btsnoop"], at: dir + "/t.db")
        let nus = "6E400001-B5A3-F393-E0A9-E50E24DCCA9E"
        let tx = "6E400003-B5A3-F393-E0A9-E50E24DCCA9E", rx = "6E400002-B5A3-F393-E0A9-E50E24DCCA9E"
        // Hex handles and properties.
        #expect(try Self.rows(store, "SELECT service_uuid, uuid, declaration_handle, value_handle, properties FROM gatt_characteristics ORDER BY declaration_handle") == [
            "1800 2A00 2 3 2", "1800 2A01 4 5 2", "180F 2A19 7 8 12", "\(nus) \(tx) C D 10", "\(nus) \(rx) 10 11 C",
            "180A 2A29 13 14 2",
        ])
        // 0x0016 is the value after the declaration whose read was refused (Vol 3 Part G 3.3.2).
        #expect(try Self.rows(store, "SELECT characteristic_uuid, uuid, handle FROM gatt_descriptors ORDER BY handle") == [
            "2A19 2902 9", "2A19 2904 A", "\(tx) 2902 E", "\(tx) 2901 F",
        ])
        let devices = try DeviceGATT.load(store)
        let d = try #require(devices.first)
        #expect(devices.count == 1)
        #expect(d.undiscoveredHandles == [])
        #expect(d.database.unreadDeclarations == [0x0015])
        let text = GATTRenderer.lines(d, severalLocal: false)
        #expect(text.contains("    Characteristic 2A19 Battery Level value 0x0008 [read, notify]"))
        #expect(text.contains { $0.hasPrefix("      Descriptor 2904 Characteristic Presentation Format 0x000A") })
        #expect(text.contains("    Characteristic declaration 0x0015 never read: properties unknown; value 0x0016 2A24 Model Number String (Find Information)"))
        #expect(!text.contains { $0.contains("never discovered") })
        try Self.expectAgreement(store, d)
    }

    /// The Sniffle air capture in which the central walks every handle with Find Information and
    /// reads each declaration. The characteristics are what tshark 4.x decodes from the Read
    /// Responses to declarations (`tshark -r sniffle-gatt.pcap -Y "btatt.opcode==0x0b &&
    /// btatt.characteristic_properties" -T fields -e btatt.handle -e
    /// btatt.characteristic_properties -e btatt.uuid16 -e btatt.uuid128`; tshark shows the 128-bit
    /// ones as 444d0001 48656d6c6f636b21f09fa4aa, the UUID 444D0001-4865-6D6C-6F63-6B21F09FA4AA).
    /// Declaration 0x0002 is never read (the client reads 0x0003 onwards): Find Information types
    /// 0x0003 2A05, so its CCCD 0x0004 is Service Changed's.
    @Test func theSniffleCaptureOfAFindInformationWalk() throws {
        let dir = Support.scratch()
        defer { Support.remove(dir) }
        let store = try Support.timeline([Support.shared("sniffle-gatt.pcap")], at: dir + "/t.db")
        func v(_ n: Int) -> String { "444D00\(String(format: "%02X", n))-4865-6D6C-6F63-6B21F09FA4AA" }
        // declaration, value, UUID, properties (hex), from tshark.
        let tshark = [
            "5 6 2B29 A", "7 8 2B2A 2", "A B 2A00 A", "C D 2A01 2", "E F 2A04 2", "11 12 2A19 12", "16 17 2A24 2",
            "18 19 2A29 2", "1B 1C \(v(0x01)) 2", "1D 1E \(v(0x02)) 8", "1F 20 \(v(0x10)) 22", "23 24 \(v(0x12)) A",
            "25 26 \(v(0x13)) A", "27 28 \(v(0x11)) 2", "29 2A \(v(0x20)) 2", "2B 2C \(v(0x21)) 2", "2D 2E \(v(0x22)) 2",
            "30 31 2ABD 2", "32 33 2ABE A", "34 35 2ABF 2", "36 37 2AC0 2", "38 39 2AC3 2", "3A 3B 2AC4 2", "3C 3D 2AC5 28",
            "3F 40 2AC6 28",
        ]
        #expect(try Self.rows(store, "SELECT declaration_handle, value_handle, uuid, properties FROM gatt_characteristics ORDER BY declaration_handle") == tshark)
        // The Find Information entries that are neither declarations nor values.
        #expect(try Self.rows(store, "SELECT characteristic_uuid, uuid, handle FROM gatt_descriptors ORDER BY handle") == [
            "2A05 2902 4", "2A19 2902 13", "2A19 2904 14", "\(v(0x10)) 2901 21", "\(v(0x10)) 2902 22", "2AC5 2902 3E", "2AC6 2902 41",
        ])
        let d = try #require(try DeviceGATT.load(store).first)
        #expect(d.undiscoveredHandles == [])
        #expect(d.database.unreadDeclarations == [0x0002])
        try Self.expectAgreement(store, d)
    }

    /// The tables, the text and the JSON name the same characteristics and descriptors.
    static func expectAgreement(_ store: TimelineStore, _ d: DeviceGATT) throws {
        let tableCharacteristics = try rows(store, "SELECT uuid, value_handle FROM gatt_characteristics ORDER BY value_handle")
        let tableDescriptors = try rows(store, "SELECT uuid, handle FROM gatt_descriptors ORDER BY handle")
        let text = GATTRenderer.lines(d, severalLocal: false).joined(separator: "\n")
        for c in d.database.characteristics {
            #expect(text.contains("Characteristic \(GATTRenderer.uuidText(c.uuid)) value \(hex(c.valueHandle, width: 4))"))
        }
        for desc in d.database.descriptors {
            #expect(text.contains("Descriptor \(GATTRenderer.uuidText(desc.uuid)) \(hex(desc.handle, width: 4))"), "\(desc)")
        }
        #expect(d.database.characteristics.map { "\($0.uuid.uuidString) \(String(format: "%X", $0.valueHandle))" } == tableCharacteristics)
        #expect(d.database.descriptors.map { "\($0.uuid.uuidString) \(String(format: "%X", $0.handle))" } == tableDescriptors)
        let json = try #require(try JSONSerialization.jsonObject(with: Data(GATTRenderer.deviceJSON(d).serialized().utf8)) as? [String: Any])
        let services = try #require(json["services"] as? [[String: Any]])
        let characteristics = services.flatMap { ($0["characteristics"] as? [[String: Any]]) ?? [] }
        let unread = services.flatMap { ($0["unread_declarations"] as? [[String: Any]]) ?? [] }
        #expect(characteristics.count == tableCharacteristics.count)
        let jsonDescriptors = (characteristics + unread).flatMap { ($0["descriptors"] as? [[String: Any]]) ?? [] }
            + ((json["descriptors_outside_characteristics"] as? [[String: Any]]) ?? [])
        #expect(jsonDescriptors.compactMap { $0["handle"] as? Int }.sorted() == d.database.descriptors.map { Int($0.handle) })
        #expect(unread.compactMap { $0["declaration_handle"] as? Int } == d.database.unreadDeclarations.map(Int.init))
    }
}
