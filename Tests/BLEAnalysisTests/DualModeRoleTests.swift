import Foundation
import Testing
import TestSupport
import BLETimeline
@testable import BLEAnalysis

/// A headset on BR/EDR and LE at once, and a phone that is central to a watch while a laptop
/// is its central (`blegen.dualrole`). A new-user pass found the BR/EDR link, whose page the
/// capture does not show, called "local peripheral" (Core v5.4 Vol 4 Part E 7.7.3 carries no
/// role): the role is unknown, while each LE link keeps the role its LE Connection Complete gives.
@Suite("dual-mode and dual-role links")
struct DualModeRoleTests {
    static let directory: URL = {
        let d = FileManager.default.temporaryDirectory.appendingPathComponent("dualrole-\(UUID().uuidString)")
        try? FileManager.default.createDirectory(at: d, withIntermediateDirectories: true)
        try? BlegenSessions.run("dualrole", [d.path])
        return d
    }()

    static func roles(_ name: String) throws -> [[String?]] {
        let db = directory.appendingPathComponent("\(name)-\(UUID().uuidString).db").path
        _ = try Importer.importCaptures([directory.appendingPathComponent("\(name).btsnoop").path], into: db)
        let store = try TimelineStore(path: db)
        return try store.database.rows("SELECT transport, role, printf('%d', disconnect_reason) FROM connection ORDER BY id")
            .map { $0.map(\.string) }
    }

    @Test func aBREDRLinkWithNoPageInTheCaptureHasNoRole() throws {
        #expect(try Self.roles("dual-mode") == [["br/edr", nil, "8"], ["le", "central", "22"]])
    }

    @Test func aPhoneCentralAndPeripheralAtOnceKeepsEachLinksRole() throws {
        #expect(try Self.roles("dual-role") == [["le", "central", "8"], ["le", "peripheral", "19"]])
    }
}
