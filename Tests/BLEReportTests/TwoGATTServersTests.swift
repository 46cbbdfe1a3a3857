import TestSupport
import Foundation
import Testing
import BLEAnalysis
import BLECore
import BLEDecode
import BLETimeline
@testable import BLEReport

/// A central-role link on which both sides are GATT servers with the same handles
/// (SpecCapture.twoServers): who is client and who is server is decided per ATT direction
/// (Core v5.4 Vol 3 Part G 2.2), so the timeline, `gatt` and the diagnosis keep the peer's
/// database and the phone's apart.
@Suite("Two GATT servers on one link")
struct TwoGATTServersTests {
    static let bike = "F1:B1:6E:20:00:42"

    func timeline(confirmed: Bool = true) throws -> (TimelineStore, String) {
        let dir = Support.scratch()
        let file = dir + "/two-servers.btsnoop"
        try SpecCapture.twoServers(confirmed: confirmed).write(to: file)
        return (try Support.timeline([file], at: dir + "/t.db"), dir)
    }

    @Test func theTimelineFilesEachDatabaseUnderItsServer() throws {
        let (store, dir) = try timeline()
        defer { Support.remove(dir) }
        try Analyzer.analyze(store)
        let db = store.database
        func rows(_ sql: String) throws -> [String] {
            try db.rows(sql).map { $0.map { $0.string ?? $0.int.map(String.init) ?? "NULL" }.joined(separator: " ") }
        }
        #expect(try rows("SELECT server, uuid, start_handle, end_handle FROM gatt_services ORDER BY server, start_handle") == [
            "local 1800 1 3", "local 1801 4 7", "local 1805 8 11", "local \(SpecCapture.ancsService) 12 15",
            "remote FFE0 6 9",
        ])
        #expect(try rows("SELECT server, service_uuid, uuid, declaration_handle, value_handle, properties FROM gatt_characteristics ORDER BY server, declaration_handle") == [
            "local 1800 2A00 2 3 2", "local 1801 2A05 5 6 32", "local 1805 2A2B 9 10 18",
            "local \(SpecCapture.ancsService) \(SpecCapture.ancsNotificationSource) 13 14 16",
            "remote FFE0 FFE1 7 8 24",
        ])
        #expect(try rows("SELECT server, characteristic_uuid, uuid, handle FROM gatt_descriptors ORDER BY server, handle") == [
            "local 2A05 2902 7", "local 2A2B 2902 11", "local \(SpecCapture.ancsNotificationSource) 2902 15",
            "remote FFE1 2902 9",
        ])
        // Handle 0x0008 is FFE1 on the bike (its last notification, 05) and the Current Time CCCD on
        // the phone (never written); 0x000A is the phone's Current Time, notified by the phone.
        #expect(try rows("SELECT server, handle, hex(value), source FROM gatt_value WHERE handle IN (8, 10) ORDER BY server, handle") == [
            "local 10 EA070C01120001020000 notification", "remote 8 05 notification",
        ])
        // The Device Name the bike read is the phone's: it is not the bike's name, in the timeline
        // or in `report`'s per-device facts.
        #expect(try db.rows("SELECT name FROM devices WHERE address = ?1", [.text(Self.bike)]).first?[0].string == nil)
        let facts = try CaptureFactsLoader.load(store, input: "two-servers.btsnoop")
        #expect(facts.flatMap(\.connections).map(\.identity) == [DeviceIdentity()])
    }

    @Test func gattShowsTheBikesServiceUnderTheBikeAndThePhonesAsTheLocalServer() throws {
        let (store, dir) = try timeline()
        defer { Support.remove(dir) }
        let devices = try DeviceGATT.load(store)
        #expect(devices.map(\.isLocalServer) == [false, true])
        #expect(devices[0].address == Self.bike)
        #expect(devices[0].database.services.map(\.uuid.uuidString) == ["FFE0"])
        #expect(devices[1].clients == [DeviceGATT.Client(address: Self.bike, role: "peripheral")])
        #expect(devices[1].database.services.map(\.uuid.uuidString) == ["1800", "1801", "1805", SpecCapture.ancsService])
        let text = GATTRenderer.text(devices)
        #expect(!text.contains("outside any discovered service"))
        let lines = text.split(separator: "\n").map(String.init)
        let local = try #require(lines.firstIndex(of: "Local GATT server (this device), read by remote peripheral \(Self.bike)"))
        let bike = try #require(lines.firstIndex { $0.hasPrefix("Device \(Self.bike)") })
        #expect(bike < local)
        #expect(Array(lines[bike..<local]).filter { $0.hasPrefix("  Service") } == ["  Service FFE0 [0x0006–0x0009]"])
        #expect(lines[bike..<local].contains("    Characteristic FFE1 value 0x0008 [write, notify] notifying"))
        #expect(lines[local...].filter { $0.hasPrefix("  Service") }.map { String($0.prefix(14)) } == [
            "  Service 1800", "  Service 1801", "  Service 1805", "  Service 7905",
        ])
        let json = GATTRenderer.json(devices).serialized()
        #expect(json.contains("\"clients\":[{\"address\":\"\(Self.bike)\",\"role\":\"peripheral\"}]"))
    }

    /// Two captures are two local devices as far as anyone knows: their servers are not merged.
    @Test func eachCapturesLocalServerIsItsOwn() throws {
        let dir = Support.scratch()
        defer { Support.remove(dir) }
        try SpecCapture.twoServers(confirmed: true).write(to: dir + "/a.btsnoop")
        try SpecCapture.twoServers(confirmed: false).write(to: dir + "/b.btsnoop")
        let store = try Support.timeline([dir + "/a.btsnoop", dir + "/b.btsnoop"], at: dir + "/t.db")
        let devices = try DeviceGATT.load(store)
        #expect(devices.map(\.isLocalServer) == [false, true, true])
        #expect(devices[0].connectionIDs.count == 2)
        #expect(devices.filter(\.isLocalServer).map(\.captureFileName) == ["a.btsnoop", "b.btsnoop"])
        let text = GATTRenderer.text(devices)
        #expect(text.contains("Local GATT server (this device in a.btsnoop), read by remote peripheral \(Self.bike)\n"))
        #expect(text.contains("Local GATT server (this device in b.btsnoop), read by remote peripheral \(Self.bike)\n"))
    }

    /// A peer that reads the phone's Device Name by UUID (Read Using Characteristic UUID, Vol 3
    /// Part G 4.8.2) and discovers nothing: the local server is listed with that value, not dropped.
    //  rx 08 01 00 FF FF 00 2A       Read By Type Request 0x0001-0xFFFF, type 2A00
    //  tx 09 08 03 00 75 62 75 6E 74 75   Response: length 8, handle 0x0003, "ubuntu"
    @Test func aValueReadByTypeWithoutDiscoveryIsListed() throws {
        var c = SpecCapture()
        c.connectionComplete(100, handle: 0x40, role: 0, peer: SpecCapture.twoServersPeer)
        c.att(200, handle: 0x40, [0x08, 0x01, 0x00, 0xFF, 0xFF, 0x00, 0x2A], received: true)
        c.att(210, handle: 0x40, [0x09, 0x08, 0x03, 0x00] + Array("ubuntu".utf8), received: false)
        let dir = Support.scratch()
        defer { Support.remove(dir) }
        try c.write(to: dir + "/by-type.btsnoop")
        let devices = try DeviceGATT.load(try Support.timeline([dir + "/by-type.btsnoop"], at: dir + "/t.db"))
        let local = try #require(devices.first { $0.isLocalServer })
        #expect(local.undiscoveredHandles == [0x0003])
        #expect(GATTRenderer.text([local]).contains("    0x0003: 75 62 75 6e 74 75 \"ubuntu\" (read, packet 3)"))
        #expect(devices.first { !$0.isLocalServer }?.database.values.isEmpty == true)
    }

    @Test func theLocalServersServiceChangedIsNotThePeers() throws {
        let (store, dir) = try timeline()
        defer { Support.remove(dir) }
        let connection = try #require(try DiagnosisLoader.load(store).flatMap { $0.connections }.first)
        let codes = connection.findings.map(\.finding.code)
        #expect(!codes.contains("gatt-out-of-sync"))
        let local = try #require(connection.findings.first { $0.finding.code == "local-service-changed" })
        #expect(local.finding.severity == .info)
        #expect(local.finding.title == "The local GATT server indicated Service Changed")
        #expect(local.finding.detail.contains("(0x0008–0x000B)"))
        // The indication is frame 42, as tshark numbers it.
        #expect(local.finding.evidence == [42])
    }

    /// The SQL form of the rule agrees with the Swift one for every opcode and both directions.
    @Test func theSQLRuleIsTheSwiftRule() throws {
        let db = try SQLiteDatabase(path: ":memory:")
        for direction in [Direction.sent, .received, .unknown] {
            for opcode in 0...255 {
                let side = try db.rows("SELECT \(GATTServerSide.sql(direction: "?1", opcode: "?2"))",
                                       [.text(direction.rawValue), .integer(Int64(opcode))]).first?[0].string
                #expect(side == GATTServerSide(direction: direction, opcode: ATTOpcode(UInt8(opcode))).rawValue, "\(direction) \(opcode)")
            }
        }
    }
}
