import Foundation
import Testing
import TestSupport

/// `timeline`'s filters, `-v` and `--json` decoded fields, run as a user runs them; counts are
/// cross-checked with tshark on the same file.
@Suite("blereplay timeline filters and decoded fields", .serialized)
struct TimelineFilterCLITests {
    let healthy = CLI.sample("heart-rate-healthy.btsnoop")

    /// How many frames tshark's display filter `filter` selects in `path`.
    static func tsharkCount(_ path: String, _ filter: String) throws -> Int {
        let p = Process()
        p.executableURL = URL(fileURLWithPath: "/usr/bin/env")
        p.arguments = ["tshark", "-r", path, "-Y", filter, "-T", "fields", "-e", "frame.number"]
        let out = Pipe()
        p.standardOutput = out
        p.standardError = FileHandle.nullDevice
        try p.run()
        let text = String(decoding: out.fileHandleForReading.readDataToEndOfFile(), as: UTF8.self)
        p.waitUntilExit()
        return text.split(separator: "\n").count
    }

    static func lines(_ r: CLI.Result) -> [Substring] { r.stdout.split(separator: "\n") }

    /// `--layer ll`, the layer a sniffer's advertising, Empty and LL Control PDUs are shown with,
    /// was refused; the generator's air capture (`blegen.air`: ADV_IND, CONNECT_IND, 10 ATT PDUs,
    /// 2 Empty PDUs, LL_TERMINATE_IND) has 5 such frames, as tshark counts `btle && !btatt`.
    @Test func theLinkLayerIsALayerToFilterBy() throws {
        let dir = CLI.temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: dir) }
        try BlegenSessions.run("air", [dir.path])
        let capture = dir.appendingPathComponent("le-ll.pcap").path
        let ll = try CLI.run(["timeline", capture, "--layer", "ll"])
        #expect(ll.status == 0, "\(ll.stderr)")
        #expect(Self.lines(ll).count == 5)
        #expect(Self.lines(ll).count == (try Self.tsharkCount(capture, "btle && !btatt")))
        #expect(Self.lines(ll).allSatisfy { $0.contains(" ll ") })
        let negative = try CLI.run(["timeline", capture, "--limit", "-3"])
        #expect(negative.status == 2 && negative.stderr.contains("--limit is a count of packets"))
    }

    @Test func captureSelectsOneCaptureOfATimelineOfTwo() throws {
        let dir = CLI.temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: dir) }
        let db = dir.appendingPathComponent("two.db").path
        let imported = try CLI.run(["import", CLI.sample("att-timeout.btsnoop"), CLI.sample("auth-errors.btsnoop"), "--db", db])
        #expect(imported.status == 0)
        // 137 and 166 records (tshark counts the same frames in each file).
        let first = try CLI.run(["timeline", db, "--capture", "1"])
        let second = try CLI.run(["timeline", db, "--capture", "2"])
        #expect(first.status == 0 && second.status == 0)
        #expect(Self.lines(first).count == (try Self.tsharkCount(CLI.sample("att-timeout.btsnoop"), "frame")))
        #expect(Self.lines(second).count == (try Self.tsharkCount(CLI.sample("auth-errors.btsnoop"), "frame")))
        #expect(Self.lines(second).count == 166)
        // Each capture's frames count from 1 and its times from its own origin.
        #expect(Self.lines(second).first?.hasPrefix("      1     0.000000 ") == true)
        // And the capture's own file gives the same lines (connection ids are the timeline's, numbered across captures).
        let alone = try CLI.run(["timeline", CLI.sample("auth-errors.btsnoop")])
        func withoutConnection(_ s: String) -> String { s.replacingOccurrences(of: #" \[conn \d+\]"#, with: "", options: .regularExpression) }
        #expect(withoutConnection(alone.stdout) == withoutConnection(second.stdout))
        // A capture that is not there is the command line's mistake, said as export says it: exit 2.
        let none = try CLI.run(["timeline", db, "--capture", "3"])
        #expect(none.status == 2)
        #expect(none.stdout.isEmpty)
        #expect(none.stderr.contains("no capture 3; the timeline holds 1 "), "\(none.stderr)")
    }

    @Test("--handle selects what tshark's btatt.handle does", arguments: ["0x0011", "0x000E", "0x000F", "0x0003"])
    func handleMatchesTshark(_ handle: String) throws {
        let r = try CLI.run(["timeline", healthy, "--handle", handle])
        #expect(r.status == 0)
        #expect(Self.lines(r).count == (try Self.tsharkCount(healthy, "btatt.handle == \(handle)")))
    }

    @Test func handleOnARealCapture() throws {
        let capture = CLI.sharedCapture("android-yeelock.btsnoop")
        for handle in ["0x000C", "0x0010", "0x0012"] {
            let r = try CLI.run(["timeline", capture, "--handle", handle])
            let expected = try Self.tsharkCount(capture, "btatt.handle == \(handle)")
            #expect(Self.lines(r).count == expected, "handle \(handle)")
        }
    }

    /// Long writes (Prepare Write Requests 0x16, then Execute Write 0x18, Core v5.4 Vol 3 Part F
    /// 3.4.6) to handle 0x0008: the Execute Write Response names no handle and tshark does not
    /// match it; it was selected through the queued write's transaction. (android-pongbot's long
    /// write is not used: two links write 0x0008 at once there and tshark pairs one Write Response
    /// with the other link's request.)
    @Test(arguments: ["android-lock-long-session.btsnoop"])
    func handleLeavesOutTheExecuteWriteLikeTshark(_ name: String) throws {
        let capture = CLI.sharedCapture(name)
        let r = try CLI.run(["timeline", capture, "--handle", "0x0008"])
        #expect(r.status == 0)
        #expect(Self.lines(r).count == (try Self.tsharkCount(capture, "btatt.handle == 0x0008")))
        #expect(!r.stdout.contains("Execute Write Response"))
    }

    @Test func opcodeByNumberOrNameMatchesTshark() throws {
        let expected = try Self.tsharkCount(healthy, "btatt.opcode == 0x1b")
        #expect(expected == 60)
        for spelling in ["0x1b", "27", "handle-value-notification", "Handle Value Notification"] {
            let r = try CLI.run(["timeline", healthy, "--opcode", spelling])
            #expect(Self.lines(r).count == expected, "\(spelling)")
        }
        let bad = try CLI.run(["timeline", healthy, "--opcode", "notify-me"])
        #expect(bad.status == 2)
    }

    @Test func timeWindowMatchesTshark() throws {
        let r = try CLI.run(["timeline", healthy, "--since", "2", "--until", "3"])
        #expect(Self.lines(r).count == (try Self.tsharkCount(healthy, "frame.time_relative >= 2 && frame.time_relative <= 3")))
        // The same window in UTC: the capture's first record is at 2026-03-01T10:00:00.000000Z.
        let first = try CLI.run(["timeline", healthy, "--limit", "1", "-v"])
        #expect(first.stdout.contains("time 2026-03-01T10:00:00.000000Z"))
        let utc = try CLI.run(["timeline", healthy, "--since", "2026-03-01T10:00:02Z", "--until", "2026-03-01T10:00:03Z"])
        #expect(utc.stdout == r.stdout)
        let empty = try CLI.run(["timeline", healthy, "--since", "1000"])
        #expect(empty.status == 1)
        #expect(empty.stderr.contains("no packet matches --since 1000"))
    }

    @Test func severitySelectsTheEvidenceOfFindings() throws {
        // The README's diagnosis of this capture cites packets 122 (the last packet the peer
        // acknowledged), 123 (the Number Of Completed Packets that counted it), 144 and 145 for its one error.
        let capture = CLI.sample("heart-rate-supervision-timeout.btsnoop")
        let r = try CLI.run(["timeline", capture, "--severity", "error"])
        #expect(r.status == 0)
        #expect(Self.lines(r).map { $0.prefix(7).trimmingCharacters(in: .whitespaces) } == ["122", "123", "144", "145"])
    }

    @Test func verboseDecodesStandardCharacteristicValues() throws {
        // Frame 141: notification on 0x000E (Heart Rate Measurement) 06 4A: contact detected, 74 bpm.
        let r = try CLI.run(["timeline", healthy, "--handle", "0x000E", "--opcode", "0x1b", "--limit", "1", "-v"])
        #expect(r.stdout.contains("2A37 Heart Rate Measurement (handle 0x000E): 74 bpm, sensor contact detected"))
        // Frame 128: the Read Response to the Read Request for 0x0011 (Body Sensor Location) 01: Chest.
        let read = try CLI.run(["timeline", healthy, "--handle", "0x0011", "-v"])
        #expect(read.stdout.contains("2A38 Body Sensor Location (handle 0x0011): Chest"))
    }

    @Test func jsonCarriesTheDecodedFieldsPerLayer() throws {
        let r = try CLI.run(["timeline", healthy, "--handle", "0x000E", "--opcode", "0x1b", "--limit", "1", "--json"])
        let object = try #require(try JSONSerialization.jsonObject(with: Data(r.stdout.utf8)) as? [String: Any])
        let decoded = try #require(object["decoded"] as? [String: Any])
        let att = try #require(decoded["att"] as? [String: Any])
        let fields = try #require(att["fields"] as? [String: Any])
        #expect(fields["Attribute Handle"] as? String == "0x000E")
        #expect(fields["Attribute Value"] as? String == "064a")
        let value = try #require(decoded["value"] as? [String: Any])
        #expect(value["characteristic"] as? String == "2A37")
        #expect((value["fields"] as? [String: Any])?["Heart Rate"] as? String == "74 bpm")
        #expect(object["t_rel_us"] as? Int == 4_831_578)
        // An HCI event's link event and error code, as -v shows them.
        let disconnect = try CLI.run(["timeline", CLI.sharedCapture("android-yeelock.btsnoop"), "--errors", "--layer", "hci", "--json", "--limit", "1"])
        let d = try #require(try JSONSerialization.jsonObject(with: Data(disconnect.stdout.utf8)) as? [String: Any])
        let errors = try #require((d["decoded"] as? [String: Any])?["errors"] as? [[String: Any]])
        #expect(errors.first?["code"] as? Int == 0x13)
    }
}
