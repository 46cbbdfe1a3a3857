import Foundation
import Testing
import TestSupport
import BLEAnalysis
import BLEReport
import BLETimeline

/// A pcapng of two Bluetooth adapters (what Wireshark writes when it captures two at once, or
/// `mergecap` joins two captures): one interface per adapter (draft-ietf-opsawg-pcapng 4.2),
/// each Enhanced Packet Block naming its interface (4.3). Each adapter numbers its own handles
/// (Core v5.4 Vol 4 Part E 5.4.2), so 0x0040 on interface 0 and on interface 1 are two links.
/// Read as one controller, interface 1's packets landed on interface 0's link.
///
/// The captures come from the generator (`blegen.shapes`: two-interfaces-201.pcapng and
/// two-interfaces-187.pcapng), the session of btmon-two-controllers.btsnoop laid out as pcapng;
/// tshark 4.0 gives frames 1, 3, 6, 7, 9, 11, 14, 15 interface 0 and the rest interface 1.
@Suite("pcapng interfaces as controllers")
struct PcapngInterfacesTests {
    static let interfaces = [0, 1, 0, 1, 1, 0, 0, 1, 0, 1, 0, 1, 1, 0, 0]

    static func shapes() throws -> String {
        let dir = Support.scratch()
        try BlegenSessions.run("shapes", [dir])
        return dir
    }

    /// controller, handle, peer, disconnect reason, ATT PDUs: per connection in id order.
    static func links(_ store: TimelineStore) throws -> [String] {
        try store.database.rows("""
            SELECT c.controller_index, c.handle, c.peer_address, c.disconnect_reason,
                   (SELECT count(*) FROM att_pdu a WHERE a.connection_id = c.id)
            FROM connection c ORDER BY c.id
            """).map { r in r.map { $0.string ?? $0.int.map(String.init) ?? "nil" }.joined(separator: " ") }
    }

    @Test(arguments: ["two-interfaces-201.pcapng", "two-interfaces-187.pcapng"])
    func eachInterfaceIsItsOwnController(_ name: String) throws {
        let dir = try Self.shapes()
        defer { Support.remove(dir) }
        let store = try Support.timeline([dir + "/" + name], at: dir + "/t.db")
        let controllers = try store.database.rows("SELECT controller_index FROM packet ORDER BY rowid").map { $0[0].int ?? -1 }
        #expect(controllers == Self.interfaces)
        let links = try Self.links(store)
        #expect(links == ["0 64 C4:7A:3B:12:9E:51 19 5", "1 64 D1:22:33:44:55:66 8 4"])
        // The same session recorded by btmon as two controllers gives the same links.
        let btmon = try Support.timeline([dir + "/btmon-two-controllers.btsnoop"], at: dir + "/m.db")
        #expect(try Self.links(btmon) == links)
        let text = DiagnosisRenderer.text(try DiagnosisLoader.load(store))
        #expect(text.contains("handle 0x0040 on interface 0"), "\(text)")
        #expect(text.contains("handle 0x0040 on interface 1"), "\(text)")
        #expect(!text.contains("still open"), "\(text)")
    }

    /// A file cut inside interface 1's last block still gives every packet before it, each on its
    /// interface, and the truncation with its offset.
    @Test func aTruncatedFileKeepsItsInterfacesUpToTheDamage() throws {
        let dir = try Self.shapes()
        defer { Support.remove(dir) }
        let bytes = try Data(contentsOf: URL(fileURLWithPath: dir + "/two-interfaces-201.pcapng"))
        try bytes.dropLast(6).write(to: URL(fileURLWithPath: dir + "/cut.pcapng"))
        let store = try Support.timeline([dir + "/cut.pcapng"], at: dir + "/t.db")
        let controllers = try store.database.rows("SELECT controller_index FROM packet ORDER BY rowid").map { $0[0].int ?? -1 }
        #expect(controllers == Array(Self.interfaces.dropLast()))
        let warnings = try store.database.rows("SELECT warnings FROM capture").first?[0].string ?? ""
        #expect(warnings.contains("truncated record at byte"), "\(warnings)")
    }
}
