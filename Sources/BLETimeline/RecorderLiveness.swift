#if canImport(Glibc)
import Glibc
#endif

/// Tells whether the process recording a capture is still running, so a capture left in status
/// `recording` by a recorder that was killed (SIGKILL, power loss) is analysed instead of waiting
/// for an end that will never come.
///
/// The recorder stores a token in `capture.recorder`: this boot's id (`/proc/sys/kernel/random/
/// boot_id`), its pid, and its start time in clock ticks since boot (`/proc/PID/stat` field 22),
/// so a reused pid or a timeline copied from another machine or boot reads as not running.
public enum RecorderLiveness {
    /// The token of the calling process.
    public static func currentToken() -> String {
        let pid = getpid()
        return "\(bootID() ?? "?"):\(pid):\(startTime(of: pid) ?? 0)"
    }

    /// True when the process named by `token` runs now on this machine, in this boot.
    public static func isRunning(_ token: String) -> Bool {
        let parts = token.split(separator: ":", omittingEmptySubsequences: false)
        guard parts.count == 3, let boot = bootID(), parts[0] == boot,
              let pid = Int32(parts[1]), let start = UInt64(parts[2]) else { return false }
        return startTime(of: pid) == start
    }

    static func bootID() -> String? {
        read("/proc/sys/kernel/random/boot_id")?.filter { !$0.isWhitespace }
    }

    /// Field 22 of `/proc/PID/stat` (after the parenthesised command, which may hold spaces).
    static func startTime(of pid: Int32) -> UInt64? {
        guard let stat = read("/proc/\(pid)/stat"), let close = stat.lastIndex(of: ")") else { return nil }
        let fields = stat[stat.index(after: close)...].split(separator: " ")
        // fields[0] is field 3 (state); field 22 is fields[19].
        return fields.count > 19 ? UInt64(fields[19]) : nil
    }

    private static func read(_ path: String) -> String? {
        guard let f = fopen(path, "r") else { return nil }
        defer { fclose(f) }
        var out = [UInt8]()
        var buffer = [UInt8](repeating: 0, count: 1024)
        while true {
            let n = buffer.withUnsafeMutableBytes { fread($0.baseAddress, 1, 1024, f) }
            if n <= 0 { break }
            out += buffer[0..<n]
        }
        return String(decoding: out, as: UTF8.self)
    }
}
