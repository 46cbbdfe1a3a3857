import Foundation
import Testing
@testable import BLEReport

/// The report's figures on real and sample captures, against counts made by hand with tshark:
///
///     tshark -r F -Y "bthci_evt.code == 0x05" -T fields -e bthci_evt.reason          # disconnect reasons
///     tshark -r F -Y "btatt.opcode == 0x01" -T fields -e btatt.error_code -e btatt.req_opcode_in_error
///     tshark -r F -Y "btsmp.opcode == 0x05" -T fields -e btsmp.reason
///
/// android-lock-pairing: disconnect 0x16 ×1, 0x3E ×1; ATT errors 0x0A ×13 (Read By Type ×11, Find By
/// Type Value ×1, Read By Group Type ×1), 0x05 ×1 (on a Write Request); no SMP Pairing Failed;
/// Command Complete status 0x0C ×2 for 0x2040; vendor 0xFC17's Command Complete returns 0x01
/// (the vendor's byte, which the Broadcom dissector reads as a status);
/// five LE Enhanced Connection Complete with status 0x02 after LE Create Connection Cancel.
/// android-yeelock: disconnect 0x13 ×2; ATT errors 0x0A ×14 (Read By Type ×12, Read By Group Type ×2);
/// one cancelled attempt (status 0x02).
@Suite struct FleetReportTests {
    static let pair = [Support.shared("android-lock-pairing.btsnoop"), Support.shared("android-yeelock.btsnoop")]

    @Test func disconnectReasonsAndATTErrorsOfTwoAndroidCaptures() throws {
        let s = try Support.statistics(Self.pair)
        #expect(s.captures.count == 2)
        let reasons = Dictionary(uniqueKeysWithValues: (s.counts[.disconnect] ?? []).map { ($0.key.code, $0) })
        #expect(reasons.mapValues(\.count) == [0x16: 1, 0x3E: 1, 0x13: 2])
        #expect(reasons[0x13]?.name == "Remote User Terminated Connection")
        #expect(reasons[0x13]?.cbError == "CBError.peripheralDisconnected")
        #expect(reasons[0x3E]?.name == "Connection Failed to be Established")
        #expect(reasons[0x3E]?.cbError == "CBError.connectionFailed")
        #expect(reasons[0x16]?.name == "Connection Terminated By Local Host")
        #expect(reasons[0x16]?.cbError == nil)   // the app's own cancel: no error

        let att = Dictionary(uniqueKeysWithValues: (s.counts[.att] ?? []).map { ($0.key.code, $0) })
        #expect(att.mapValues(\.count) == [0x0A: 27, 0x05: 1])
        #expect(att[0x05]?.cbError == "CBATTError.insufficientAuthentication")
        #expect(att[0x05]?.name == "Insufficient Authentication")
        #expect(att[0x0A]?.cbError == "CBATTError.attributeNotFound")
        #expect(att[0x05]?.parts["request"]?.map(\.label) == ["0x12 Write Request"])
        let requests = Dictionary(uniqueKeysWithValues: (att[0x0A]?.parts["request"] ?? []).map { ($0.id, $0.count) })
        #expect(requests == ["0x08": 23, "0x10": 3, "0x06": 1])
        #expect(att[0x0A]?.parts["sender"]?.map(\.id) == ["peer"])

        #expect(s.counts[.smp] == nil)
        let commands = Dictionary(uniqueKeysWithValues: (s.counts[.hciCommand] ?? []).map { ($0.key.code, $0) })
        #expect(commands.mapValues(\.count) == [0x0C: 2])
        #expect(commands[0x0C]?.parts["command"]?.first?.id == "0x2040")
        // Vendor 0xFC17's Command Complete byte 0x01 is the vendor's (Vol 4 Part E 5.4.1), counted apart.
        let vendor = Dictionary(uniqueKeysWithValues: (s.counts[.vendorCommand] ?? []).map { ($0.key.code, $0) })
        #expect(vendor.mapValues(\.count) == [0x01: 1])
        #expect(vendor[0x01]?.parts["command"]?.first?.id == "0xFC17")
        #expect(s.total(.connectionCancelled) == 6)
        // 4 LE Connection Completes with status 0; one of them (android-lock-pairing) ended 0x3E
        // (MANIFEST: disc 0x3e:1), so it never came up: 3 established.
        #expect(s.attempts == 10 && s.established == 3)
    }

    @Test func jsonHasTheDocumentedKeysAndFigures() throws {
        let dir = Support.scratch()
        defer { Support.remove(dir) }
        let s = try Support.statistics(Self.pair)
        _ = try ReportWriter.write(s, to: dir, formats: [.json])
        let json = try Support.json(dir + "/report.json")
        for key in ["schema_version", "captures", "inputs", "connections", "disconnect_reasons", "connection_failures",
                    "hci_command_errors", "vendor_command_statuses", "att_errors", "att_timeouts", "smp_failures", "att_latency",
                    "by_device", "by_firmware", "by_capture", "by_period"] {
            #expect(json[key] != nil, "missing \(key)")
        }
        #expect(json["captures"] as? Int == 2)
        let reasons = try #require(json["disconnect_reasons"] as? [[String: Any]])
        let byCode = Dictionary(uniqueKeysWithValues: reasons.map { ($0["code"] as? Int ?? -1, $0) })
        #expect(byCode[0x13]?["count"] as? Int == 2)
        #expect(byCode[0x13]?["cb_error"] as? String == "CBError.peripheralDisconnected")
        #expect(byCode[0x3E]?["cb_error"] as? String == "CBError.connectionFailed")
        #expect(byCode[0x16]?["cb_error"] is NSNull)
        for list in ["disconnect_reasons", "att_errors", "smp_failures", "hci_command_errors"] {
            for item in json[list] as? [[String: Any]] ?? [] {
                #expect(item["code"] is Int && item["name"] is String && item["count"] is Int && item.keys.contains("cb_error"), "\(list)")
            }
        }
        let att = try #require(json["att_errors"] as? [[String: Any]])
        #expect(att.first?["code"] as? Int == 0x0A && att.first?["count"] as? Int == 27)
        let connections = try #require(json["connections"] as? [String: Any])
        #expect(connections["attempts"] as? Int == 10 && connections["established"] as? Int == 3)
        #expect(connections["cancelled"] as? Int == 6 && connections["failed_to_establish"] as? Int == 1)
    }

    /// The seven samples, against the counts table of Captures/README.md (measured with tshark).
    @Test func sampleCaptures() throws {
        let s = try Support.statistics([Support.packageRoot.appendingPathComponent("Captures").path])
        #expect(s.captures.count == 7)
        #expect(Dictionary(uniqueKeysWithValues: (s.counts[.disconnect] ?? []).map { ($0.key.code, $0.count) })
                == [0x16: 5, 0x3E: 2, 0x08: 2, 0x13: 2])
        // One 0x08 ends a central link (CBError 6), the other heart-rate-peripheral's local-peripheral link.
        #expect(Set(s.count(.disconnect, 0x08)?.cbErrors.map { "\($0.cbError ?? "none") ×\($0.count)" } ?? [])
                == ["CBError.connectionTimeout ×1", "CBPeripheralManager: no disconnect callback (didUnsubscribeFrom if subscribed) ×1"])
        #expect(Dictionary(uniqueKeysWithValues: (s.counts[.att] ?? []).map { ($0.key.code, $0.count) })
                == [0x0A: 73, 0x05: 2, 0x03: 1, 0x0F: 1, 0x80: 1])
        #expect(s.count(.att, 0x80)?.cbError == nil)   // no CBATTError above 0x11
        #expect(s.count(.smp, 0x04)?.count == 1)
        #expect(s.count(.smp, 0x04)?.parts["sender"]?.map(\.id) == ["peer"])
        let timeout = try #require(s.counts[.attTimeout]?.first)
        #expect(timeout.count == 1 && timeout.key.code == 0x12)
        #expect(timeout.parts["characteristic"]?.first?.id == "7A3E0002-52C1-4B8E-9E4A-2F6C3B1D0E55")
        #expect(timeout.parts["device"]?.first?.id == "D2:19:77:4B:0C:A0")
        #expect(s.total(.connectionCancelled) == 1)
        // 11 with status 0; two of them are failed-to-establish.btsnoop's 0x3E (Captures/README.md:
        // 0x3E×2), which never came up: 9 established (2 of them heart-rate-peripheral.btsnoop's).
        #expect(s.attempts == 12 && s.established == 9)
        // One table: disconnect 0x08 per connection hour, by firmware revision.
        let rows = s.groups[.firmware] ?? []
        let hrm = try #require(rows.first { $0.key == ["Acme Sensors", "HRM-200", "2.1.0"] })
        #expect(hrm.events[EventKey(kind: .disconnect, code: 0x08)] == 1)
        #expect(hrm.connections == 3 && hrm.captures == 2)
        #expect(hrm.connectedTime > 100_000_000 && hrm.connectedTime < 102_000_000)
        let table = ReportTables.make(s).first { $0.id == "events_by_firmware" }
        let line = try #require(table?.rows.first { row in
            row.map(\.display).starts(with: ["Acme Sensors", "HRM-200", "2.1.0"]) && row.contains { $0.display == "disconnect" }
                && row.contains { $0.display == "0x08" }
        })
        let perHour = Double(try #require(line[line.count - 2].display)) ?? 0
        #expect(abs(perHour - 1 / hrm.connectionHours) < 0.01)
        #expect(s.period == "hour")
        #expect((s.groups[.time] ?? []).map(\.key[0]) == (10...16).map { "2026-03-01 \($0):00" })
    }

    @Test func directoryWithAGarbageFileStillGivesAReport() throws {
        let dir = Support.scratch(), out = Support.scratch()
        defer { Support.remove(dir); Support.remove(out) }
        try FileManager.default.createDirectory(atPath: dir + "/nested", withIntermediateDirectories: true)
        try FileManager.default.copyItem(atPath: Support.sample("pairing-failed.btsnoop"), toPath: dir + "/nested/a.btsnoop")
        try Data("this is not a capture\n".utf8).write(to: URL(fileURLWithPath: dir + "/garbage.bin"))
        try Data("# notes\n".utf8).write(to: URL(fileURLWithPath: dir + "/README.md"))   // skipped in directories
        let s = try Support.statistics([dir])
        #expect(s.captures.count == 1)
        #expect(s.inputs.count == 2)
        let garbage = try #require(s.inputs.first { $0.path.hasSuffix("garbage.bin") })
        #expect(garbage.status == .failed)
        #expect(garbage.reason?.contains("not a capture") == true || garbage.reason?.contains("garbage.bin") == true)
        let written = try ReportWriter.write(s, to: out, formats: Set(ReportFormat.allCases))
        #expect(written.contains(out + "/report.html") && written.contains(out + "/report.md") && written.contains(out + "/report.json"))
        #expect(written.filter { $0.hasSuffix(".csv") }.count == ReportTables.make(s).count)
        let html = String(decoding: Support.read(out + "/report.html"), as: UTF8.self)
        #expect(html.contains("garbage.bin"))
        #expect(!html.contains("http://") || !html.contains("src=\"http"))
        #expect(!html.contains("<link") && !html.contains("src="))
    }

    @Test func sameCaptureTwiceIsCountedOnce() throws {
        let dir = Support.scratch()
        defer { Support.remove(dir) }
        try FileManager.default.copyItem(atPath: Support.sample("pairing-failed.btsnoop"), toPath: dir + "/copy.btsnoop")
        let s = try Support.statistics([Support.sample("pairing-failed.btsnoop"), dir + "/copy.btsnoop"])
        #expect(s.captures.count == 1)
        #expect(s.inputs.filter { $0.status == .duplicate }.count == 1)
        #expect(s.count(.disconnect, 0x13)?.count == 1)
    }

    /// Timelines are inputs too; a timeline holding a capture already given counts it once.
    @Test func timelineInputsMixWithCaptures() throws {
        let dir = Support.scratch()
        defer { Support.remove(dir) }
        _ = try Support.timeline([Support.sample("heart-rate-healthy.btsnoop"), Support.sample("att-timeout.btsnoop")], at: dir + "/t.db")
        let s = try Support.statistics([dir + "/t.db", Support.sample("att-timeout.btsnoop"), Support.sample("pairing-failed.btsnoop")])
        #expect(s.captures.count == 3)
        #expect(s.captures.map(\.label).contains(dir + "/t.db (heart-rate-healthy.btsnoop)"))
        #expect(s.count(.attTimeout, 0x12)?.count == 1)
    }

    @Test func outputsAreTheSameWhateverTheNumberOfJobs() throws {
        let a = Support.scratch(), b = Support.scratch()
        defer { Support.remove(a); Support.remove(b) }
        let inputs = Self.pair + [Support.packageRoot.appendingPathComponent("Captures").path]
        let one = try ReportWriter.write(try Support.statistics(inputs, jobs: 1), to: a, formats: Set(ReportFormat.allCases))
        let four = try ReportWriter.write(try Support.statistics(inputs, jobs: 4), to: b, formats: Set(ReportFormat.allCases))
        #expect(one.count == four.count)
        for (x, y) in zip(one, four) {
            #expect(Support.read(x) == Support.read(y), "\(x) differs")
        }
    }
}
