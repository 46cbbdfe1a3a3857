#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// Who a process is, in a form that survives pid reuse: this boot's id
/// (`/proc/sys/kernel/random/boot_id`), the pid, and the process start time in clock ticks
/// since boot (`/proc/PID/stat` field 22, proc(5)).
///
/// A pid alone names a different process once its owner has exited and the kernel has handed
/// the number out again; the pair (pid, start time) within one boot does not.
public struct ProcessIdentity: Sendable, Hashable {
    /// The first eight hex digits of the boot id ("?" when /proc does not tell).
    public var boot: String
    public var pid: Int32
    /// Clock ticks since boot when the process started (0 when unknown).
    public var startTime: UInt64

    public init(boot: String, pid: Int32, startTime: UInt64) {
        self.boot = boot
        self.pid = pid
        self.startTime = startTime
    }

    /// The calling process.
    public static func current() -> ProcessIdentity {
        let pid = getpid()
        return ProcessIdentity(boot: shortBootID() ?? "?", pid: pid, startTime: startTime(of: pid) ?? 0)
    }

    /// `BOOT.PID.START`: no '-' or '/', so it can sit inside a file name before a SQLite
    /// suffix (`-journal`, `-wal`).
    public var token: String { "\(boot).\(pid).\(startTime)" }

    /// Parses `token`; nil when it is not of that form.
    public init?(token: some StringProtocol) {
        let parts = token.split(separator: ".", omittingEmptySubsequences: false)
        guard parts.count == 3, !parts[0].isEmpty, let pid = Int32(parts[1]), pid > 0,
              let start = UInt64(parts[2]) else { return nil }
        self.init(boot: String(parts[0]), pid: pid, startTime: start)
    }

    /// True when this process runs now, on this machine, in this boot.
    public var isRunning: Bool {
        guard let boot = Self.shortBootID(), boot == self.boot else { return false }
        return Self.startTime(of: pid) == startTime
    }

    /// The full boot id, without whitespace.
    public static func bootID() -> String? {
        readSmallFile("/proc/sys/kernel/random/boot_id")?.filter { !$0.isWhitespace }
    }

    static func shortBootID() -> String? {
        bootID().map { String($0.filter { $0 != "-" }.prefix(8)) }
    }

    /// Field 22 of `/proc/PID/stat` (after the parenthesised command, which may hold spaces).
    public static func startTime(of pid: Int32) -> UInt64? {
        guard let stat = readSmallFile("/proc/\(pid)/stat"), let close = stat.lastIndex(of: ")") else { return nil }
        let fields = stat[stat.index(after: close)...].split(separator: " ")
        // fields[0] is field 3 (state); field 22 is fields[19].
        return fields.count > 19 ? UInt64(fields[19]) : nil
    }

    /// True when some process has this pid (kill(2) with signal 0; EPERM means it exists).
    public static func pidExists(_ pid: Int32) -> Bool {
        guard pid > 0 else { return false }
        return kill(pid, 0) == 0 || errno == EPERM
    }

    private static func readSmallFile(_ path: String) -> String? {
        guard let f = fopen(path, "r") else { return nil }
        defer { fclose(f) }
        var out = [UInt8]()
        var buffer = [UInt8](repeating: 0, count: 1024)
        while true {
            let n = buffer.withUnsafeMutableBytes { fread($0.baseAddress, 1, 1024, f) }
            if n <= 0 { break }
            out += buffer[0..<n]
            if out.count > 1 << 16 { break }
        }
        return String(decoding: out, as: UTF8.self)
    }
}
