import Foundation
import Testing
import BLEWarehouse

/// The warehouse URL as users give it: a password is never printed, an unreachable server is
/// exit 69 naming host and port, the environment may supply it, a newer schema is refused.
@Suite(.serialized) struct WarehouseConnectionTests {
    let capture = Fixture.sample("att-timeout.btsnoop")

    @Test func unreachableServerNamesHostAndPortAndNeverThePassword() throws {
        let secret = "Sup3r-secret/pw"
        let uri = "postgresql://fleet:Sup3r-secret%2Fpw@127.0.0.1:1/facts"
        let r = try Tool.run(["ingest", capture, "--warehouse", uri])
        #expect(r.status == 69, "\(r.all)")
        #expect(r.stderr.contains("host 127.0.0.1 port 1"), "\(r.stderr)")
        #expect(!r.all.contains(secret) && !r.all.contains("Sup3r-secret%2Fpw"))

        let dir = Fixture.scratch()
        defer { Fixture.remove(dir) }
        let kv = "host=\(dir) port=5999 user=fleet password='\(secret)' dbname=facts"
        let k = try Tool.run(["report", "--warehouse", kv, "-o", dir + "/out"])
        #expect(k.status == 69, "\(k.all)")
        #expect(k.stderr.contains("host \(dir) port 5999"), "\(k.stderr)")
        #expect(!k.all.contains(secret))
        #expect(!FileManager.default.fileExists(atPath: dir + "/out"))

        let bad = try Tool.run(["ingest", capture, "--warehouse", "host=a password='\(secret)"])
        #expect(bad.status == 2)
        #expect(!bad.all.contains(secret))
    }

    @Test func aWrongPasswordIsNotPrintedAndTheRightOneWorksFromTheEnvironment() throws {
        let cluster = try PostgresCluster.get()
        _ = try cluster.createDatabase()
        let wrong = "Wr0ng-" + UUID().uuidString
        let r = try Tool.run(["ingest", capture, "--warehouse", cluster.url(database: "postgres", user: "secretive") + " password=\(wrong)"])
        #expect(r.status == 69, "\(r.all)")
        #expect(r.stderr.contains("password authentication failed"), "\(r.stderr)")
        #expect(!r.all.contains(wrong))

        let escaped = PostgresCluster.secret.replacingOccurrences(of: "\\", with: "\\\\").replacingOccurrences(of: "'", with: "\\'")
        let url = cluster.url(database: "postgres", user: "secretive") + " password='\(escaped)'"
        let env = [WarehouseURL.environmentVariable: url]
        let ok = try Tool.run(["ingest", capture], environment: env)
        #expect(ok.status == 0, "\(ok.all)")
        let out = Fixture.scratch()
        defer { Fixture.remove(out) }
        let report = try Tool.run(["report", "-o", out], environment: env)
        #expect(report.status == 0, "\(report.all)")
        #expect(report.stdout.contains("0x08 Connection Timeout") || report.stdout.contains("capture(s)"))
        for output in [ok.all, report.all] + ((try? FileManager.default.contentsOfDirectory(atPath: out)) ?? []).map({ Fixture.read(out + "/" + $0) }) {
            #expect(!output.contains(PostgresCluster.secret) && !output.contains("pw-Tr0ub4dor"))
        }
        let db = try PostgresConnection(WarehouseURL(cluster.url(database: "postgres")))
        try db.execute("DROP SCHEMA blereplay CASCADE")
    }

    @Test func aNewerSchemaIsRefusedAndLeftAlone() throws {
        let cluster = try PostgresCluster.get()
        let url = try cluster.createDatabase()
        #expect(try Tool.run(["ingest", capture, "--warehouse", url]).status == 0)
        let db = try PostgresConnection(WarehouseURL(url))
        #expect(try db.count("SELECT version FROM blereplay.schema_info") == WarehouseSchema.version)
        try db.execute("UPDATE blereplay.schema_info SET version = 99")
        let r = try Tool.run(["ingest", Fixture.sample("pairing-failed.btsnoop"), "--warehouse", url])
        #expect(r.status == 65)
        #expect(r.stderr.contains("schema version 99"), "\(r.stderr)")
        #expect(try db.count("SELECT count(*) FROM blereplay.capture") == 1)
        #expect(try Tool.run(["report", "--warehouse", url, "-o", Fixture.scratch()]).status == 65)
        #expect(try db.count("SELECT version FROM blereplay.schema_info") == 99)
    }

    @Test func reportOnAnEmptyWarehouse() throws {
        let cluster = try PostgresCluster.get()
        let url = try cluster.createDatabase()
        let r = try Tool.run(["report", "--warehouse", url, "-o", Fixture.scratch()])
        #expect(r.status == 65)
        #expect(r.stderr.contains("run blereplay ingest first"))
    }

    @Test(arguments: [["ingest", "Captures"], ["ingest", "--warehouse", "host=x"], ["report", "Captures", "--warehouse", "host=x"],
                      ["report", "Captures", "--since", "2026-01-01T00:00:00Z"], ["ingest", "Captures", "--warehouse", "host=x", "--jobs", "0"]])
    func usageErrors(_ argv: [String]) throws {
        let r = try Tool.run(argv)
        #expect(r.status == 2, "\(argv): \(r.stderr)")
    }
}
