import Foundation
import Testing
import BLETimeline

/// LINKTYPE_PPI (192) around LE link-layer packets (251), as Ubertooth and crackle's tests write
/// them, read into the air-capture pipeline (`PPIHeader`). The captures come from
/// Scripts/blegen/air.py: the same session as PPI and as plain LINKTYPE 251, with its counts
/// known by construction. Both must give the same timeline, equal to tshark's counts of the PPI
/// file (tshark dissects it as ppi:pcap_pktdata:bluetooth:btle).
@Suite("PPI-wrapped LE air captures", .serialized)
struct PPICrossCheckTests {
    static func generate() throws -> URL {
        let dir = URL(fileURLWithPath: TestPaths.temporaryFile("ppi-air"))
        try? FileManager.default.removeItem(at: dir)
        let p = Process()
        p.executableURL = URL(fileURLWithPath: "/usr/bin/env")
        p.arguments = ["python3", "-m", "blegen.air", dir.path]
        p.currentDirectoryURL = TestPaths.packageRoot.appendingPathComponent("Scripts")
        try p.run()
        p.waitUntilExit()
        #expect(p.terminationStatus == 0, "python3 -m blegen.air")
        return dir
    }

    @Test func ppiCountsEqualTheUnwrappedCaptureAndTshark() throws {
        let dir = try Self.generate()
        defer { try? FileManager.default.removeItem(at: dir) }
        let ppi = dir.appendingPathComponent("ppi-ubertooth.pcap").path
        let plain = dir.appendingPathComponent("le-ll.pcap").path
        var counts: [OurCounts] = []
        for (name, path) in [("ppi", ppi), ("plain", plain)] {
            let db = dir.appendingPathComponent("\(name).db").path
            let results = try Importer.importCaptures([path], into: db)
            #expect(results.first?.status == .imported, "\(name) imported")
            #expect(results.first?.malformedPackets == 0, "\(name) malformed")
            counts.append(try OurCounts(database: db))
        }
        let theirs = try AirTsharkCounts(capture: ppi)
        // By construction (Scripts/blegen/air.py).
        #expect(counts[0].packets == 15)
        #expect(counts[0].connectionCompletes == 1)
        #expect(counts[0].disconnectReasons == [0x13: 1])
        #expect(counts[0].attOpcodes == [0x02: 1, 0x03: 1, 0x10: 2, 0x11: 1, 0x01: 1, 0x0A: 1, 0x0B: 1, 0x1B: 1, 0x12: 1])
        #expect(counts[0].attErrors == [0x0A: 1])
        // The PPI header changes nothing the LE packet says.
        #expect(counts[0].packets == counts[1].packets && counts[0].attOpcodes == counts[1].attOpcodes
                && counts[0].disconnectReasons == counts[1].disconnectReasons && counts[0].attErrors == counts[1].attErrors)
        // tshark agrees.
        #expect(counts[0].packets == theirs.packets, "packets")
        #expect(counts[0].connectionCompletes == theirs.connectInds, "CONNECT_IND")
        #expect(counts[0].disconnectReasons == theirs.terminateCodes, "LL_TERMINATE_IND error codes")
        #expect(counts[0].attOpcodes == theirs.attOpcodes, "ATT PDUs by opcode")
        #expect(counts[0].attErrors == theirs.attErrors, "ATT error codes")
    }
}
