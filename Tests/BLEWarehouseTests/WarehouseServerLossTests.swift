import Foundation
import Testing
import BLEWarehouse

/// The warehouse's server stopped while `ingest` runs (a real server of the test's own,
/// `PostgresCluster.own`): exit 69, "service unavailable", never 65 (an input's fault); what was
/// committed is whole, and running the same ingest again stores the rest.
@Suite(.serialized) struct WarehouseServerLossTests {
    /// Per capture (by SHA-256): its rows in every fact table.
    func rowsPerCapture(_ url: String) throws -> [String: [Int]] {
        let db = try PostgresConnection(WarehouseURL(url))
        var out: [String: [Int]] = [:]
        for r in try db.execute("""
            SELECT c.sha256, (SELECT count(*) FROM blereplay.connection x WHERE x.capture_id = c.id),
                   (SELECT count(*) FROM blereplay.error x WHERE x.capture_id = c.id),
                   (SELECT count(*) FROM blereplay.att_transaction x WHERE x.capture_id = c.id),
                   (SELECT count(*) FROM blereplay.finding x WHERE x.capture_id = c.id)
            FROM blereplay.capture c
            """) {
            out[r[0] ?? ""] = r.dropFirst().map { Int($0 ?? "") ?? -1 }
        }
        return out
    }

    func expectLost(_ r: Tool.Result) {
        #expect(r.status == 69, "exit \(r.status): \(r.stderr)")
        #expect(r.stderr.contains("lost the connection to the warehouse") || r.stderr.contains("cannot reach the warehouse"), "\(r.stderr)")
        #expect(r.stderr.contains("run the same ingest again"), "\(r.stderr)")
        #expect(!r.stderr.contains(".btsnoop: not stored: "), "\(r.stderr)")
        #expect(!r.stderr.contains("WARNING:"), "\(r.stderr)")
    }

    /// Stops the server from inside the ingest's own COPY into `connection` once `committed`
    /// captures are committed (3: in the middle of the run; 11: at the last capture, after which
    /// no statement would have found the connection gone): a statement trigger has the server's user start `pg_ctl stop -m fast` and waits
    /// (`pg_sleep`, interruptible) for the shutdown to end the session. The ingest reads the
    /// server's FATAL answer to its COPY before the end of the stream: the connection still looks
    /// open at that moment.
    @Test(arguments: [3, 11])
    func theServerStoppedInTheMiddleOfACopy(committed: Int) throws {
        let cluster = try PostgresCluster.own()
        let url = try cluster.createDatabase()
        let dir = Fixture.scratch()
        defer { Fixture.remove(dir) }
        try Fixture.sessions(seed: 3100, count: 12, into: dir)
        let expected: [String: [Int]]
        do {
            let reference = try cluster.createDatabase()
            #expect(try Tool.run(["ingest", dir, "--warehouse", reference, "--jobs", "1"]).status == 0)
            expected = try rowsPerCapture(reference)
        }
        #expect(expected.count == 12)
        let db = try PostgresConnection(WarehouseURL(url))
        try WarehouseSchema.prepare(db)
        // In a session of its own (`setsid -f`): the shutdown signals the backend's process group,
        // which would end the COPY's shell with an ERROR before the session is ended. And after a
        // pause: on a loaded machine the detached pg_ctl could signal before that shell had exited,
        // and the COPY ended with "child process was terminated by signal 15" (an ERROR, exit 65,
        // seen once in CI), not with the shutdown ending the session in `pg_sleep` as meant here.
        let stop = "sleep 0.5; " + cluster.stopCommand(mode: "fast")
        let program = ("setsid -f sh -c '" + stop + "' >/dev/null 2>&1").replacingOccurrences(of: "'", with: "''")
        try db.executeScript("""
            CREATE FUNCTION public.stop_server() RETURNS trigger LANGUAGE plpgsql AS $$
            BEGIN
                IF (SELECT count(*) FROM blereplay.capture) > \(committed) THEN
                    EXECUTE 'COPY (SELECT 1) TO PROGRAM ' || quote_literal('\(program)');
                    PERFORM pg_sleep(30);
                END IF;
                RETURN NULL;
            END $$;
            CREATE TRIGGER stop_server AFTER INSERT ON blereplay.connection FOR EACH STATEMENT EXECUTE FUNCTION public.stop_server();
            """)
        let r = try Tool.run(["ingest", dir, "--warehouse", url, "--jobs", "1"])
        expectLost(r)
        cluster.waitUntilStopped()
        try cluster.start()
        let partial = try rowsPerCapture(url)
        #expect(partial.count >= committed && partial.count < 12, "\(partial.count) stored")
        for (sha, rows) in partial { #expect(rows == expected[sha], "\(sha) half-stored: \(rows)") }
        try PostgresConnection(WarehouseURL(url)).execute("DROP TRIGGER stop_server ON blereplay.connection")
        let again = try Tool.run(["ingest", dir, "--warehouse", url, "--jobs", "1"])
        #expect(again.status == 0, "\(again.stderr)")
        #expect(try rowsPerCapture(url) == expected)
    }

    /// The server stopped from outside (`pg_ctl stop`, fast or immediate) while two workers ingest.
    @Test(arguments: ["fast", "immediate"])
    func theServerStoppedWhileWorkersIngest(_ mode: String) throws {
        let cluster = try PostgresCluster.own()
        let url = try cluster.createDatabase()
        let dir = Fixture.scratch()
        defer { Fixture.remove(dir) }
        try Fixture.sessions(seed: 3200, count: 40, into: dir)
        let worker = try Tool(["ingest", dir, "--warehouse", url, "--jobs", "2"])
        try Fixture.waitForCaptures(3, in: url, tries: 1500)
        try cluster.stop(mode: mode)
        let r = worker.wait()
        try cluster.start()
        let stored = try rowsPerCapture(url).count
        #expect(stored < 40, "the ingest finished before the server was stopped")
        expectLost(r)
        let again = try Tool.run(["ingest", dir, "--warehouse", url, "--jobs", "2"])
        #expect(again.status == 0, "\(again.stderr)")
        #expect(try rowsPerCapture(url).count == 40)
    }
}
