import Foundation
import Testing
import BLETimeline
import BLEDecode

/// The timeline's counts must equal what tshark (Wireshark's dissectors) counts in the same file.
///
/// tshark runs here on the real captures in `../shared/captures`; any difference is a bug in our
/// decoder or a documented disagreement (see `knownDifferences`).
@Suite("Counts cross-checked with tshark", .serialized)
struct TsharkCrossCheckTests {
    static let hciCaptures = [
        "android-classic-spp.btsnoop", "android-lock-long-session.btsnoop", "android-lock-pairing.btsnoop",
        "android-pongbot.btsnoop", "android-yeelock.btsnoop", "btmon-monitor.btsnoop", "ios-glasses.pklg",
        "ios-glasses-app-control.pklg", "scale-h4-phdr.pcap", "smartwatch-h4-phdr.pcapng",
    ]

    @Test(arguments: hciCaptures)
    func countsEqualTshark(_ name: String) throws {
        let path = TestPaths.sharedCapture(name)
        let theirs = try TsharkCounts(capture: path)
        let db = TestPaths.temporaryFile("cross-\(name).db")
        defer { try? FileManager.default.removeItem(atPath: db) }
        let results = try Importer.importCaptures([path], into: db)
        #expect(results.first?.status == .imported)
        let ours = try OurCounts(database: db)
        #expect(ours.packets == theirs.packets, "packets")
        #expect(ours.connectionCompletes == theirs.connectionCompletes, "LE connection completes")
        #expect(ours.disconnectReasons == theirs.disconnectReasons, "disconnect reasons")
        #expect(ours.advertisingReports == theirs.advertisingReports, "advertising reports")
        #expect(ours.attOpcodes == theirs.attOpcodes, "ATT PDUs by opcode")
        #expect(ours.attErrors == theirs.attErrors, "ATT error codes")
        #expect(ours.smpPDUs == theirs.smpPDUs, "SMP PDUs")
        try expectATTValuesAsDecoded(db)
    }

    /// The timeline stores an ATT value once, inside its PDU; the `att_pdus` view cuts it out. The
    /// cut must be the value the decoder reads (Core v5.4 Vol 3 Part F 3.4), or the whole PDU when
    /// the PDU is malformed.
    func expectATTValuesAsDecoded(_ path: String) throws {
        let db = try SQLiteDatabase(path: path, readOnly: true)
        let pdus = try db.rows("SELECT pdu FROM att_pdu ORDER BY rowid").map { $0[0].blob ?? [] }
        let values = try db.rows("SELECT value FROM att_pdus").map { $0[0].blob }
        #expect(pdus.count == values.count)
        for (pdu, value) in zip(pdus, values) {
            let expected = (try? ATTPDU(decoding: pdu[...])).map { $0.value } ?? pdu
            #expect(value == expected, "value of ATT PDU \(pdu.prefix(8))")
        }
    }
}

/// What our timeline counts.
struct OurCounts {
    var packets = 0
    var connectionCompletes = 0
    var disconnectReasons: [Int: Int] = [:]
    var advertisingReports = 0
    var attOpcodes: [Int: Int] = [:]
    var attErrors: [Int: Int] = [:]
    var smpPDUs = 0

    init(database: String) throws {
        let store = try TimelineStore(path: database, readOnly: true)
        let db = store.database
        packets = Int(try db.scalarInt("SELECT count(*) FROM packets") ?? 0)
        connectionCompletes = Int(try db.scalarInt("SELECT count(*) FROM connections WHERE began_before_capture = 0 AND transport = 'le'") ?? 0)
        for r in try db.rows("SELECT code, count(*) FROM errors WHERE context = 'disconnect' GROUP BY code") {
            disconnectReasons[r[0].int ?? -1] = r[1].int ?? 0
        }
        advertisingReports = Int(try db.scalarInt("SELECT count(*) FROM adv_reports") ?? 0)
        for r in try db.rows("SELECT opcode, count(*) FROM att_pdus GROUP BY opcode") {
            attOpcodes[r[0].int ?? -1] = r[1].int ?? 0
        }
        for r in try db.rows("SELECT error_code, count(*) FROM att_pdus WHERE opcode = 1 AND error_code IS NOT NULL GROUP BY error_code") {
            attErrors[r[0].int ?? -1] = r[1].int ?? 0
        }
        smpPDUs = Int(try db.scalarInt("SELECT count(*) FROM smp_events") ?? 0)
    }
}

/// What tshark counts, from one two-pass run with the fields we need.
struct TsharkCounts {
    var packets = 0
    var connectionCompletes = 0
    var disconnectReasons: [Int: Int] = [:]
    var advertisingReports = 0
    var attOpcodes: [Int: Int] = [:]
    var attErrors: [Int: Int] = [:]
    var smpPDUs = 0

    init(capture: String) throws {
        let fields = ["frame.number", "bthci_evt.code", "bthci_evt.le_meta_subevent", "bthci_evt.le_num_reports",
                      "bthci_evt.reason", "btatt.opcode", "btatt.error_code", "btsmp.opcode", "bthci_acl.chandle"]
        let output = try Tshark.run(["-2", "-r", capture, "-T", "fields", "-E", "occurrence=a", "-E", "aggregator=,"]
                                    + fields.flatMap { ["-e", $0] })
        for line in output.split(separator: "\n", omittingEmptySubsequences: false) where !line.isEmpty {
            let cols = line.split(separator: "\t", omittingEmptySubsequences: false).map(String.init)
            func ints(_ i: Int) -> [Int] {
                guard i < cols.count else { return [] }
                return cols[i].split(separator: ",").compactMap { Tshark.int(String($0)) }
            }
            packets += 1
            let code = ints(1).first
            let sub = ints(2).first
            if code == 0x3E, let sub, [0x01, 0x0A, 0x29].contains(sub) { connectionCompletes += 1 }
            if code == 0x3E, let sub, [0x02, 0x0D].contains(sub) { advertisingReports += ints(3).first ?? 0 }
            if code == 0x05, let reason = ints(4).first { disconnectReasons[reason, default: 0] += 1 }
            // ACL handle 0x0EDC is Broadcom's LM diagnostics channel, not a connection: Wireshark
            // dissects its payload as L2CAP and counts garbage ATT/SMP PDUs there (e.g. frames 244,
            // 302, 1886, 2008 and 8646 of android-lock-long-session.btsnoop). We do not.
            if ints(8).first == 0x0EDC { continue }
            for op in ints(5) { attOpcodes[op, default: 0] += 1 }
            for e in ints(6) { attErrors[e, default: 0] += 1 }
            smpPDUs += ints(7).count
        }
    }
}

enum Tshark {
    static func run(_ arguments: [String]) throws -> String {
        let p = Process()
        p.executableURL = URL(fileURLWithPath: "/usr/bin/tshark")
        p.arguments = arguments
        let out = TestPaths.temporaryFile("tshark-\(UUID().uuidString).txt")
        FileManager.default.createFile(atPath: out, contents: nil)
        defer { try? FileManager.default.removeItem(atPath: out) }
        let handle = try FileHandle(forWritingTo: URL(fileURLWithPath: out))
        p.standardOutput = handle
        p.standardError = FileHandle.nullDevice
        try p.run()
        p.waitUntilExit()
        try handle.close()
        return try String(contentsOfFile: out, encoding: .utf8)
    }

    /// tshark prints integers as decimal or `0x..` hex.
    static func int(_ s: String) -> Int? {
        s.hasPrefix("0x") ? Int(s.dropFirst(2), radix: 16) : Int(s)
    }
}

enum TestPaths {
    static let packageRoot = URL(fileURLWithPath: #filePath).deletingLastPathComponent()
        .deletingLastPathComponent().deletingLastPathComponent()
    static func sharedCapture(_ name: String) -> String {
        packageRoot.deletingLastPathComponent().appendingPathComponent("shared/captures/\(name)").path
    }
    static func sample(_ name: String) -> String {
        packageRoot.appendingPathComponent("Captures/\(name)").path
    }
    static func temporaryFile(_ name: String) -> String {
        FileManager.default.temporaryDirectory.appendingPathComponent("blereplay-\(getpid())-\(name)").path
    }
}
