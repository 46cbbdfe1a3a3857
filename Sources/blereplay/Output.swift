import BLECore
#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// Exit codes (DESIGN.md "Command line").
enum ExitCode: Int32 {
    case success = 0
    /// The thing checked failed (replay diverged, findings over a threshold).
    case checkFailed = 1
    case usage = 2
    /// Unreadable or malformed input (sysexits EX_DATAERR).
    case dataError = 65
    /// A server (the warehouse) unreachable (sysexits EX_UNAVAILABLE).
    case unavailable = 69
}

/// Standard output. When the reader goes away (`blereplay timeline x | head`) the program ends
/// quietly with 0, as the reader asked for no more; when the output cannot be written (a full
/// disk, an I/O error) it says so and ends with 65, as a file it cannot write does (the output
/// is incomplete: never a silent 0). Either way its temporary files (a capture's scratch
/// timeline) go with it, rather than wait for the next run to clean them.
enum Out {
    static func write(_ s: String) {
        let error = StandardStreams.writeAll(s, to: 1)
        guard error != 0 else { return }
        TemporaryFile.discardAllOfThisProcess()
        if error == EPIPE { exit(ExitCode.success.rawValue) }
        Err.line("blereplay: cannot write the standard output: \(String(cString: strerror(error)))")
        exit(ExitCode.dataError.rawValue)
    }
    static func line(_ s: String = "") { write(s + "\n") }
    /// `s` as one line, its control characters escaped as tshark escapes them: for a line that
    /// holds a file name or a name from the capture (a newline or ESC in one stays visible text).
    static func line(printable s: String) { write(TextFormat.printable(s) + "\n") }
}

/// Collects many short lines and writes them in large blocks.
struct OutputBuffer {
    private var pending = ""
    /// `s` as one line: control characters from the capture (a device name's line break) escaped.
    mutating func line(_ s: String) {
        pending += TextFormat.printable(s)
        pending += "\n"
        if pending.utf8.count > 1 << 16 { flush() }
    }
    mutating func flush() {
        if !pending.isEmpty { Out.write(pending) }
        pending = ""
    }
}

/// Standard error.
enum Err {
    static func line(_ s: String) { StandardStreams.error(s) }
    /// `s` as one line, its control characters escaped (`Out.line(printable:)`).
    static func line(printable s: String) { StandardStreams.error(TextFormat.printable(s)) }
}
