#if canImport(Glibc)
import Glibc
#endif
import BLECore

/// Tells whether the process recording a capture is still running, so a capture left in status
/// `recording` by a recorder that was killed (SIGKILL, power loss) is analysed instead of waiting
/// for an end that will never come.
///
/// The recorder stores a token in `capture.recorder`: this boot's id (`/proc/sys/kernel/random/
/// boot_id`), its pid, and its start time in clock ticks since boot (`/proc/PID/stat` field 22),
/// so a reused pid or a timeline copied from another machine or boot reads as not running.
/// The /proc reading is `ProcessIdentity`'s, shared with the temporary files' owner tokens.
public enum RecorderLiveness {
    /// The token of the calling process.
    public static func currentToken() -> String {
        let pid = getpid()
        return "\(ProcessIdentity.bootID() ?? "?"):\(pid):\(ProcessIdentity.startTime(of: pid) ?? 0)"
    }

    /// True when the process named by `token` runs now on this machine, in this boot.
    public static func isRunning(_ token: String) -> Bool {
        let parts = token.split(separator: ":", omittingEmptySubsequences: false)
        guard parts.count == 3, let boot = ProcessIdentity.bootID(), parts[0] == boot,
              let pid = Int32(parts[1]), let start = UInt64(parts[2]) else { return false }
        return ProcessIdentity.startTime(of: pid) == start
    }
}
