import Foundation
import Testing
import BLECore
import BLETimeline
import Synchronization

/// What a writer leaves on disk and what a timeline's open says: temporary files are removed
/// by the next run once their owner is gone (and only then), writers of one new timeline take
/// turns instead of replacing each other's file, and a foreign SQLite file is named as such.
@Suite("Timeline files: leftovers, locks, foreign files", .serialized)
struct TimelineFileSafetyTests {
    static let yeelock = TestPaths.sharedCapture("android-yeelock.btsnoop")      // tshark: 690 frames
    static let pongbot = TestPaths.sharedCapture("android-pongbot.btsnoop")      // tshark: 1741 frames

    static func directory() -> String {
        let url = FileManager.default.temporaryDirectory.appendingPathComponent("relstore-\(UUID().uuidString)")
        try? FileManager.default.createDirectory(at: url, withIntermediateDirectories: true)
        return url.path
    }

    static func names(_ dir: String) -> [String] {
        ((try? FileManager.default.contentsOfDirectory(atPath: dir)) ?? []).sorted()
    }

    /// A process that ran and exited: its pid names nobody now (or somebody else).
    static func deadProcess() throws -> Int32 {
        let p = Process()
        p.executableURL = URL(fileURLWithPath: "/bin/true")
        try p.run()
        p.waitUntilExit()
        return p.processIdentifier
    }

    static func write(_ path: String, _ text: String = "half a timeline") {
        FileManager.default.createFile(atPath: path, contents: Data(text.utf8))
    }

    @Test func leftoversOfAKilledImportAreRemovedByTheNextImport() throws {
        let dir = Self.directory()
        defer { try? FileManager.default.removeItem(atPath: dir) }
        let db = dir + "/t.db"
        let dead = try Self.deadProcess()
        let boot = ProcessIdentity.current().boot
        // What a SIGKILLed import left: the form with an owner token (and SQLite's journal
        // beside it), the older `DB.tmp-PID` form, and a lock file.
        Self.write("\(db).tmp-\(boot).\(dead).4242")
        Self.write("\(db).tmp-\(boot).\(dead).4242-journal")
        Self.write("\(db).tmp-\(dead)")
        Self.write("\(db).lock", "")
        let results = try Importer.importCaptures([Self.yeelock], into: db)
        #expect(results.map(\.status) == [.imported])
        #expect(Self.names(dir) == ["t.db"])
        #expect(try SQLiteDatabase(path: db).scalarInt("SELECT count(*) FROM packet") == 690)
    }

    @Test func aLeftoverWhoseOwnerRunsIsKept() throws {
        let dir = Self.directory()
        defer { try? FileManager.default.removeItem(atPath: dir) }
        let db = dir + "/t.db"
        let sleeper = Process()
        sleeper.executableURL = URL(fileURLWithPath: "/bin/sleep")
        sleeper.arguments = ["30"]
        try sleeper.run()
        defer { kill(sleeper.processIdentifier, SIGKILL); sleeper.waitUntilExit() }
        let pid = sleeper.processIdentifier
        let owner = try #require(ProcessIdentity.startTime(of: pid).map { ProcessIdentity(boot: ProcessIdentity.current().boot, pid: pid, startTime: $0) })
        #expect(owner.isRunning)
        let alive = "\(db).tmp-\(owner.token)"
        Self.write(alive)
        // Same pid, another start time: the pid was reused, the owner is gone.
        let reused = "\(db).tmp-\(owner.boot).\(pid).\(owner.startTime + 1)"
        Self.write(reused)
        // A dead owner's name but a lock still held (an owner in another pid namespace).
        let locked = "\(db).tmp-\(owner.boot).\(try Self.deadProcess()).1"
        Self.write(locked)
        let fd = open(locked, O_RDONLY)
        #expect(flock(fd, LOCK_EX | LOCK_NB) == 0)
        defer { close(fd) }
        #expect(TemporaryFile.isStale(reused))
        #expect(!TemporaryFile.isStale(alive))
        #expect(!TemporaryFile.isStale(locked))
        _ = try Importer.importCaptures([Self.yeelock], into: db)
        #expect(Self.names(dir) == ["t.db", "t.db.tmp-\(owner.token)", "t.db.tmp-\(owner.boot).\(try #require(Int32(locked.split(separator: ".").dropLast().last ?? ""))).1"].sorted())
    }

    /// Two imports into a timeline that does not exist yet used to both print "imported" while
    /// the second rename replaced the first file. Now the second waits for the first's lock,
    /// finds the timeline, and imports into it.
    @Test func twoImportsIntoANewTimelineAtOnceKeepBoth() throws {
        let dir = Self.directory()
        defer { try? FileManager.default.removeItem(atPath: dir) }
        let db = dir + "/t.db"
        let captures = [Self.yeelock, Self.pongbot]
        let statuses = Mutex<[CaptureImportResult.Status]>([])
        DispatchQueue.concurrentPerform(iterations: 2) { i in
            let r = (try? Importer.importCaptures([captures[i]], into: db)) ?? []
            statuses.withLock { $0 += r.map(\.status) }
        }
        #expect(statuses.withLock { $0 } == [.imported, .imported])
        let store = try TimelineStore(path: db)
        #expect(try store.captures().map(\.records).sorted() == [690, 1741])
        #expect(try store.database.scalarInt("SELECT count(*) FROM packet") == 690 + 1741)
        #expect(Self.names(dir) == ["t.db"])
    }

    /// One process may write the same file from two threads (reports, JUnit): each write has
    /// its own temporary file, and the file ends up one of the two texts, whole.
    @Test func twoWritesOfOneFileAtOnceBothComplete() throws {
        let dir = Self.directory()
        defer { try? FileManager.default.removeItem(atPath: dir) }
        let path = dir + "/report.md"
        let texts = [String(repeating: "a", count: 1 << 20), String(repeating: "b", count: 1 << 20)]
        let failures = Mutex<[String]>([])
        DispatchQueue.concurrentPerform(iterations: 8) { i in
            do { try TextFile.write(texts[i % 2], to: path) } catch { failures.withLock { $0.append("\(error)") } }
        }
        #expect(failures.withLock { $0 } == [])
        let written = String(decoding: try TextFile.read(path), as: UTF8.self)
        #expect(texts.contains(written))
        #expect(Self.names(dir) == ["report.md"])
    }

    @Test func theLockMakesASecondHolderWaitAndIsRemovedAfterwards() throws {
        let dir = Self.directory()
        defer { try? FileManager.default.removeItem(atPath: dir) }
        let target = dir + "/t.db"
        let first = try FileLock.acquire(for: target)
        let order = Mutex<[String]>([])
        let waited = Mutex(false)
        let thread = Thread {
            let second = try? FileLock.acquire(for: target) { waited.withLock { $0 = true } }
            order.withLock { $0.append("second") }
            second?.release()
        }
        thread.start()
        usleep(200_000)
        order.withLock { $0.append("first released") }
        first.release()
        while order.withLock({ $0.count }) < 2 { usleep(10_000) }
        #expect(order.withLock { $0 } == ["first released", "second"])
        #expect(waited.withLock { $0 })
        usleep(10_000)
        #expect(Self.names(dir) == [])
    }

    @Test func aForeignSQLiteFileIsNotATimelineWhateverItsVersion() throws {
        let dir = Self.directory()
        defer { try? FileManager.default.removeItem(atPath: dir) }
        let path = dir + "/other.sqlite"
        try SQLiteDatabase(path: path).execute("CREATE TABLE notes (id INTEGER PRIMARY KEY, text TEXT); PRAGMA user_version = 7;")
        #expect {
            _ = try TimelineStore(path: path)
        } throws: { error in
            let text = "\(error)"
            return text.contains("not a blereplay timeline") && !text.contains("newer")
        }
        #expect(throws: Importer.Failure.self) { _ = try Importer.importCaptures([Self.yeelock], into: path) }
        // Nothing was written into it.
        #expect(try SQLiteDatabase(path: path).scalarInt("SELECT count(*) FROM sqlite_master") == 1)
    }

    @Test func applicationIDMarksNewTimelinesAndOldOnesGetIt() throws {
        let dir = Self.directory()
        defer { try? FileManager.default.removeItem(atPath: dir) }
        let db = dir + "/t.db"
        _ = try Importer.importCaptures([Self.yeelock], into: db)
        #expect(try SQLiteDatabase(path: db).scalarInt("PRAGMA application_id") == Int64(TimelineSchema.applicationID))
        // As a blereplay before the application id wrote it.
        try SQLiteDatabase(path: db).execute("PRAGMA application_id = 0")
        _ = try TimelineStore(path: db, readOnly: true)
        #expect(try SQLiteDatabase(path: db).scalarInt("PRAGMA application_id") == 0)
        _ = try TimelineStore(path: db)
        #expect(try SQLiteDatabase(path: db).scalarInt("PRAGMA application_id") == Int64(TimelineSchema.applicationID))
        // Ours, but newer: that one is "written by a newer blereplay".
        try SQLiteDatabase(path: db).execute("PRAGMA user_version = 99")
        #expect { _ = try TimelineStore(path: db) } throws: { "\($0)".contains("written by a newer blereplay") }
    }

    /// The bulk insert path used to read `sqlite3_errmsg` after the unbinding calls that follow
    /// the step, which reset it: "SQLite error 19: not an error".
    @Test func aFailedInsertSaysWhatFailed() throws {
        let dir = Self.directory()
        defer { try? FileManager.default.removeItem(atPath: dir) }
        let db = try SQLiteDatabase(path: dir + "/x.db")
        try db.execute("CREATE TABLE t (a TEXT NOT NULL, b BLOB)")
        let insert = try db.prepare("INSERT INTO t VALUES (?1, ?2)")
        #expect { try insert.run(borrowing: nil, at: 1, [1, 2], at: 2) } throws: { error in
            let e = error as? SQLiteError
            return e?.primaryCode == 19 && e?.message.contains("NOT NULL constraint failed: t.a") == true
                && !"\(error)".contains("not an error")
        }
    }
}
