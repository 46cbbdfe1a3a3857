import Foundation
import Testing
import TestSupport
import BLEWarehouse

/// A capture is known by the SHA-256 of its own bytes: a gzip file by its decompressed capture's,
/// so the warehouse stores a log given plain and gzipped once, as `report` over both counts it.
@Suite(.serialized) struct WarehouseGzipDigestTests {
    /// `gzip -c` of `capture` into `path`.
    func gzip(_ capture: String, to path: String) throws {
        let p = Process()
        p.executableURL = URL(fileURLWithPath: "/bin/sh")
        p.arguments = ["-c", "/usr/bin/gzip -c '\(capture)' > '\(path)'"]
        try p.run()
        p.waitUntilExit()
        #expect(p.terminationStatus == 0)
    }

    /// `sha256sum` of a file, hex.
    func sha256sum(_ path: String) throws -> String {
        let p = Process(), pipe = Pipe()
        p.executableURL = URL(fileURLWithPath: "/usr/bin/sha256sum")
        p.arguments = [path]
        p.standardOutput = pipe
        try p.run()
        let out = pipe.fileHandleForReading.readDataToEndOfFile()
        p.waitUntilExit()
        #expect(p.terminationStatus == 0)
        return String(String(decoding: out, as: UTF8.self).prefix(64))
    }

    @Test func aLogAndItsGzipAreOneCapture() throws {
        let cluster = try PostgresCluster.get()
        let url = try cluster.createDatabase()
        let dir = Fixture.scratch()
        defer { Fixture.remove(dir) }
        try FileManager.default.createDirectory(atPath: dir + "/plain", withIntermediateDirectories: true)
        try FileManager.default.createDirectory(atPath: dir + "/gz", withIntermediateDirectories: true)
        let plain = dir + "/plain/btsnoop_hci.log"
        try FileManager.default.copyItem(atPath: Fixture.shared("android-yeelock.btsnoop"), toPath: plain)
        try gzip(plain, to: dir + "/gz/btsnoop_hci.log.gz")
        let first = try Tool.run(["ingest", dir + "/gz", "--warehouse", url])
        #expect(first.stdout.contains("1 capture(s) stored"), "\(first.all)")
        let second = try Tool.run(["ingest", dir + "/plain", "--warehouse", url])
        #expect(second.status == 0, "\(second.all)")
        #expect(second.stdout.contains("0 capture(s) stored, 1 already"), "\(second.stdout)")
        let db = try PostgresConnection(WarehouseURL(url))
        #expect(try db.count("SELECT count(*) FROM blereplay.capture") == 1)
        #expect(try db.execute("SELECT sha256 FROM blereplay.capture").first?.first == (try sha256sum(plain)))
        let size = try FileManager.default.attributesOfItem(atPath: plain)[.size] as? Int
        #expect(try db.count("SELECT size_bytes FROM blereplay.capture") == size)
    }

    /// A warehouse an earlier build filled holds a gzip file under the digest of its compressed
    /// bytes: ingesting that file again finds it and gives it its capture's digest, by which the
    /// plain log is then found too.
    @Test func aGzipStoredUnderItsCompressedDigestTakesItsCaptureDigest() throws {
        let cluster = try PostgresCluster.get()
        let url = try cluster.createDatabase()
        let dir = Fixture.scratch()
        defer { Fixture.remove(dir) }
        try FileManager.default.createDirectory(atPath: dir + "/gz", withIntermediateDirectories: true)
        let plain = dir + "/btsnoop_hci.log", gz = dir + "/gz/btsnoop_hci.log.gz"
        try FileManager.default.copyItem(atPath: Fixture.shared("android-yeelock.btsnoop"), toPath: plain)
        try gzip(plain, to: gz)
        #expect(try Tool.run(["ingest", dir + "/gz", "--warehouse", url]).status == 0)
        let db = try PostgresConnection(WarehouseURL(url))
        let content = try sha256sum(plain), compressed = try sha256sum(gz)
        #expect(try db.execute("SELECT sha256 FROM blereplay.capture").first?.first == content)
        // What the earlier build stored: the compressed file's digest and sizes.
        _ = try db.execute("UPDATE blereplay.capture SET sha256 = $1, size_bytes = $2::bigint, head_sha256 = NULL, prefix_sha256 = NULL",
                           [compressed, String(try Data(contentsOf: URL(fileURLWithPath: gz)).count)])
        let again = try Tool.run(["ingest", dir + "/gz", "--warehouse", url])
        #expect(again.stdout.contains("0 capture(s) stored, 1 already"), "\(again.all)")
        #expect(try db.count("SELECT count(*) FROM blereplay.capture") == 1)
        #expect(try db.execute("SELECT sha256 FROM blereplay.capture").first?.first == content)
        let size = try FileManager.default.attributesOfItem(atPath: plain)[.size] as? Int
        #expect(try db.count("SELECT size_bytes FROM blereplay.capture") == size)
        #expect(try Tool.run(["ingest", plain, "--warehouse", url]).stdout.contains("0 capture(s) stored, 1 already"))
        #expect(try db.count("SELECT count(*) FROM blereplay.capture") == 1)
    }
}
