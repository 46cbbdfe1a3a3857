import Foundation
import Testing
import BLETimeline
import TestSupport
@testable import BLEReport

/// A vendor command's (OGF 0x3F) return parameters are the vendor's (Core v5.4 Vol 4 Part E
/// 5.4.1): its Command Complete's first byte is kept in the timeline as layer `vendor`, counted
/// apart as a vendor command status, and never named or counted as an HCI error code. A Command
/// Status for a vendor opcode is the spec's event (7.7.15): its Status is an HCI code.
@Suite struct VendorCommandStatusTests {
    /// An Android host's APCF, Multi Advertising and an unknown vendor command, as AOSP sends them,
    /// next to a spec command that fails.
    static func capture() -> SpecCapture {
        var c = SpecCapture()
        // LE Advertising Filter (0xFD57): 01 Feature Select | 01 delete | 00 filter index;
        // Command Complete: 17 status (AOSP btm_flt_update_cb) | 01 sub-opcode | 01 action | 0D free slots
        c.cmd(0, 0xFD57, [0x01, 0x01, 0x00])
        c.evt(1, 0x0E, [0x01, 0x57, 0xFD, 0x17, 0x01, 0x01, 0x0D])
        // The same filter added: status 0x00, no row
        c.cmd(2, 0xFD57, [0x01, 0x00, 0x00])
        c.evt(3, 0x0E, [0x01, 0x57, 0xFD, 0x00, 0x01, 0x00, 0x0C])
        // Vendor 0xFC17 (OCF 0x017), no definer known: 9 parameter bytes; Command Complete 01
        c.cmd(4, 0xFC17, [0x16, 0x03, 0x02, 0x01, 0x00, 0x04, 0x02, 0x01, 0x00])
        c.evt(5, 0x0E, [0x01, 0x17, 0xFC, 0x01])
        // Multi Advertising (0xFD54) 05 Enable | 01: Command Status 0x01 Unknown HCI Command (7.7.15)
        c.cmd(6, 0xFD54, [0x05, 0x01])
        c.commandStatus(7, 0xFD54, status: 0x01)
        // LE Set Scan Enable (0x200C) 01 enable | 00: Command Complete status 0x0C Command Disallowed
        c.cmd(8, 0x200C, [0x01, 0x00])
        c.evt(9, 0x0E, [0x01, 0x0C, 0x20, 0x0C])
        return c
    }

    @Test func timelineKeepsVendorBytesApartFromHCIErrors() throws {
        let (dir, store) = try Support.timeline(of: Self.capture())
        defer { Support.remove(dir) }
        let hci = try store.database.rows("SELECT opcode, code, name FROM error WHERE layer = 'hci' ORDER BY packet_id")
        #expect(hci.map { [$0[0].int, $0[1].int] } == [[0xFD54, 0x01], [0x200C, 0x0C]])
        #expect(hci.map { $0[2].string } == ["Unknown HCI Command", "Command Disallowed"])
        let vendor = try store.database.rows("SELECT opcode, context, code, name FROM error WHERE layer = 'vendor' ORDER BY packet_id")
        #expect(vendor.map { $0[0].int } == [0xFD57, 0xFC17])
        #expect(vendor.map { $0[1].string } == ["status", "return"])
        #expect(vendor.map { $0[2].int } == [0x17, 0x01])
        #expect(vendor.map { $0[3].string } == ["vendor status 0x17", "vendor-defined return 0x01"])
        // No vendor byte is a command's HCI status; the spec's are.
        let commands = try store.database.rows("SELECT opcode, name, status FROM command ORDER BY packet_id")
        #expect(commands.map { $0[1].string } == ["Android LE Advertising Filter", "Android LE Advertising Filter",
                                                "Vendor 0xFC17 (OCF 0x017)", "Android LE Multi Advertising", "LE Set Scan Enable"])
        #expect(commands.map { $0[2].int } == [nil, nil, nil, 0x01, 0x0C])
        // Android's callback view is not given to vendor rows.
        #expect(try store.database.scalarInt("SELECT count(*) FROM error WHERE layer = 'vendor' AND android_status IS NOT NULL") == 0)
    }

    @Test func reportCountsVendorStatusesApart() throws {
        let dir = Support.scratch()
        defer { Support.remove(dir) }
        try Self.capture().write(to: dir + "/vendor.btsnoop")
        let s = try Support.statistics([dir + "/vendor.btsnoop"])
        let hci = Dictionary(uniqueKeysWithValues: (s.counts[.hciCommand] ?? []).map { ($0.key.code, $0) })
        #expect(hci.mapValues(\.count) == [0x01: 1, 0x0C: 1])
        #expect(hci[0x01]?.parts["command"]?.map(\.id) == ["0xFD54"])
        let vendor = Dictionary(uniqueKeysWithValues: (s.counts[.vendorCommand] ?? []).map { ($0.key.code, $0) })
        #expect(vendor.mapValues(\.count) == [0x17: 1, 0x01: 1])
        #expect(vendor[0x17]?.parts["command"]?.map(\.label) == ["0xFD57 Android LE Advertising Filter, status per its definer"])
        #expect(vendor[0x01]?.parts["command"]?.map(\.label) == ["Vendor 0xFC17 (OCF 0x017), vendor-defined"])

        let tables = ReportTables.make(s)
        let hciTable = try #require(tables.first { $0.id == "hci_command_errors" })
        #expect(hciTable.rows.count == 2)
        let vendorTable = try #require(tables.first { $0.id == "vendor_command_statuses" })
        #expect(vendorTable.rows.count == 2)
        let summary = ReportSummary.headlines(s).joined(separator: "\n")
        #expect(summary.contains("HCI command failures (2): "))
        #expect(summary.contains("vendor command statuses, not HCI codes (2): "))
        #expect(!summary.contains("Repeated Attempts"))
    }
}
