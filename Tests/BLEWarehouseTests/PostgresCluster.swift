import Foundation
import BLEWarehouse

/// A throwaway PostgreSQL cluster for this test run (Debian's `postgresql`): `initdb` in a
/// temporary directory, listening on a Unix socket in it only (`listen_addresses=''`, `-k`), run
/// as the `postgres` user when the tests run as root (initdb refuses root). A watchdog stops it
/// and removes the directory when the test process ends, however it ends.
///
/// Local connections are trusted, except for the role `secretive`, which must give its password
/// (scram-sha-256): the tests of password redaction use it.
final class PostgresCluster: @unchecked Sendable {
    struct Failure: Error, CustomStringConvertible { var description: String }

    static let shared: Result<PostgresCluster, Failure> = Result { try PostgresCluster() }.mapError { $0 as? Failure ?? Failure(description: "\($0)") }

    static func get() throws -> PostgresCluster { try shared.get() }

    /// A cluster of the caller's own, which it may stop and start (the shared one serves every
    /// other test): stopped and removed, as the shared one is, when the test process ends.
    static func own() throws -> PostgresCluster { try PostgresCluster() }

    /// The password of the role `secretive`.
    static let secret = "pw-Tr0ub4dor&3 'quoted' \\back"

    let directory: String
    let bin: String
    let asPostgres: Bool
    let port = 5432
    let superuser = "blereplay_test"
    private let counter = NSLock()
    private var databases = 0

    private init() throws {
        let versions = (try? FileManager.default.contentsOfDirectory(atPath: "/usr/lib/postgresql")) ?? []
        guard let version = versions.filter({ FileManager.default.fileExists(atPath: "/usr/lib/postgresql/\($0)/bin/initdb") })
                .max(by: { (Int($0) ?? 0) < (Int($1) ?? 0) }) else {
            throw Failure(description: "no initdb under /usr/lib/postgresql/*/bin (install Debian's postgresql: make deps)")
        }
        bin = "/usr/lib/postgresql/\(version)/bin"
        asPostgres = getuid() == 0
        var template = Array("/tmp/blereplay-pg-XXXXXX".utf8CString)
        guard let made = mkdtemp(&template) else { throw Failure(description: "mkdtemp failed") }
        directory = String(cString: made)
        if asPostgres {
            try Self.run(["/bin/chown", "postgres:postgres", directory])
        }
        chmod(directory, 0o755)
        try runAsOwner(["\(bin)/initdb", "-D", "\(directory)/data", "-U", superuser, "-E", "UTF8", "--locale=C", "-A", "trust"])
        let hba = "local all secretive scram-sha-256\nlocal all all trust\n"
        try runAsOwner(["/bin/sh", "-c", "printf '%s' \"$1\" > \"$2\"", "sh", hba, "\(directory)/data/pg_hba.conf"])
        try start()
        startWatchdog()
        let admin = try PostgresConnection(WarehouseURL(url(database: "postgres")))
        try admin.execute("CREATE ROLE secretive LOGIN SUPERUSER PASSWORD '\(Self.secret.replacingOccurrences(of: "'", with: "''"))'")
    }

    /// Starts the server (again), waiting until it accepts connections.
    func start() throws {
        try runAsOwner(["\(bin)/pg_ctl", "-D", "\(directory)/data", "-l", "\(directory)/log", "-w", "-o",
                        "-c listen_addresses='' -k \(directory) -c fsync=off -c max_connections=60", "start"])
    }

    /// `pg_ctl stop -m MODE` (`fast`: every session is told and ended; `immediate`: the server
    /// processes quit at once, as in a crash), waiting until the server is gone.
    func stop(mode: String) throws {
        try runAsOwner(["\(bin)/pg_ctl", "-D", "\(directory)/data", "-m", mode, "-w", "stop"])
    }

    /// Waits (up to a minute) until a server stopped without waiting (`stopCommand`) is gone.
    func waitUntilStopped() {
        for _ in 0..<600 where FileManager.default.fileExists(atPath: "\(directory)/data/postmaster.pid") {
            usleep(100_000)
        }
    }

    /// The shell command that stops the server without waiting (`pg_ctl stop -W`), as the server's
    /// own user runs it (`COPY … TO PROGRAM`).
    func stopCommand(mode: String) -> String {
        "\(bin)/pg_ctl -D \(directory)/data -m \(mode) -W stop"
    }

    /// A connection string for a database of the cluster.
    func url(database: String, user: String? = nil) -> String {
        "host=\(directory) port=\(port) dbname=\(database) user=\(user ?? superuser)"
    }

    /// A new empty database; returns its connection string.
    func createDatabase() throws -> String {
        counter.lock()
        databases += 1
        let name = "t\(getpid())_\(databases)"
        counter.unlock()
        let admin = try PostgresConnection(WarehouseURL(url(database: "postgres")))
        try admin.execute("CREATE DATABASE \(name)")
        return url(database: name)
    }

    private func runAsOwner(_ argv: [String]) throws {
        try Self.run(asPostgres ? ["/usr/sbin/runuser", "-u", "postgres", "--"] + argv : argv)
    }

    /// Runs a command to its end (posix_spawn and waitpid: Foundation's Process can miss the
    /// exit of a child whose own child, the server, lives on), output discarded.
    static func run(_ argv: [String]) throws {
        var actions = posix_spawn_file_actions_t()
        posix_spawn_file_actions_init(&actions)
        defer { posix_spawn_file_actions_destroy(&actions) }
        for fd: Int32 in [0, 1, 2] { posix_spawn_file_actions_addopen(&actions, fd, "/dev/null", fd == 0 ? O_RDONLY : O_WRONLY, 0) }
        Self.closeInherited(&actions)
        var pid: pid_t = 0
        let cArgs: [UnsafeMutablePointer<CChar>?] = argv.map { strdup($0) } + [nil]
        defer { for a in cArgs { free(a) } }
        let rc = posix_spawn(&pid, argv[0], &actions, nil, cArgs, environ)
        guard rc == 0 else { throw Failure(description: "\(argv[0]): posix_spawn failed (\(rc))") }
        var status: Int32 = 0
        while waitpid(pid, &status, 0) < 0 && errno == EINTR {}
        guard status == 0 else { throw Failure(description: "\(argv.joined(separator: " ")) exited with status \(status)") }
    }

    /// Stops the server and removes the directory once this process is gone.
    private func startWatchdog() {
        let stop = (asPostgres ? "/usr/sbin/runuser -u postgres -- " : "") + "\(bin)/pg_ctl -D \(directory)/data -m immediate stop"
        let script = "while kill -0 \(getpid()) 2>/dev/null; do sleep 1; done; \(stop) >/dev/null 2>&1; rm -rf \(directory)"
        var pid: pid_t = 0
        let argv: [String] = ["/bin/sh", "-c", script]
        let cArgs: [UnsafeMutablePointer<CChar>?] = argv.map { strdup($0) } + [nil]
        defer { for a in cArgs { free(a) } }
        var actions = posix_spawn_file_actions_t()
        posix_spawn_file_actions_init(&actions)
        defer { posix_spawn_file_actions_destroy(&actions) }
        for fd: Int32 in [0, 1, 2] { posix_spawn_file_actions_addopen(&actions, fd, "/dev/null", fd == 0 ? O_RDONLY : O_WRONLY, 0) }
        Self.closeInherited(&actions)
        _ = posix_spawn(&pid, "/bin/sh", &actions, nil, cArgs, environ)
    }

    /// Closes every descriptor above 2 in the child. Other tests spawn processes at the same time
    /// (Foundation's `Process`), and a descriptor of theirs open at our fork would be inherited
    /// without O_CLOEXEC: the server and the watchdog live as long as this process, so a test
    /// reading to end-of-file on such a pipe or socket waited for ever (the watchdog in turn waits
    /// for this process to exit: a deadlock seen in `swift test`). glibc 2.34's
    /// `posix_spawn_file_actions_addclosefrom_np` does it atomically; Swift's Glibc module does
    /// not import it, so it is looked up by name.
    static func closeInherited(_ actions: inout posix_spawn_file_actions_t) {
        typealias CloseFrom = @convention(c) (UnsafeMutablePointer<posix_spawn_file_actions_t>, Int32) -> Int32
        if let symbol = dlsym(UnsafeMutableRawPointer(bitPattern: 0), "posix_spawn_file_actions_addclosefrom_np") {
            _ = unsafeBitCast(symbol, to: CloseFrom.self)(&actions, 3)
            return
        }
        // An older glibc: the descriptors open now (one opened between this and the spawn may leak).
        let open = (try? FileManager.default.contentsOfDirectory(atPath: "/proc/self/fd")) ?? []
        for fd in open.compactMap(Int32.init) where fd > 2 && fcntl(fd, F_GETFD) >= 0 {
            posix_spawn_file_actions_addclose(&actions, fd)
        }
    }
}
