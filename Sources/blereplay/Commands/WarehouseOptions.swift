#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif
import BLETimeline
import BLEWarehouse

/// `--warehouse URL` (or `$BLEREPLAY_WAREHOUSE`), `--since`, `--until`, shared by `ingest` and
/// `report`, and how warehouse errors become exit codes.
enum WarehouseOptions {
    /// The URL given, or the environment's; nil when neither.
    static func url(_ args: Arguments) throws -> WarehouseURL? {
        let text = args.value("warehouse") ?? getenv(WarehouseURL.environmentVariable).map { String(cString: $0) }
        guard let text, !text.isEmpty else { return nil }
        do throws(WarehouseError) {
            return try WarehouseURL(text)
        } catch {
            throw Arguments.UsageError(message: error.message)
        }
    }

    /// `--since` / `--until` as microseconds since the epoch (UTC times only: the warehouse
    /// spans many captures, so there is no time origin to count seconds from).
    static func bound(_ args: Arguments, _ name: String) throws -> Int64? {
        guard let text = args.value(name) else { return nil }
        guard case .absolute(let us)? = TimeBound(parsing: text) else {
            throw Arguments.UsageError(message: "--\(name) takes a UTC time (2026-03-01T10:00:00Z), not '\(text)'")
        }
        return us
    }

    /// Prints the error (never the URL's password: `WarehouseError` messages are redacted) and
    /// gives the exit code: 69 unreachable, 65 otherwise.
    static func fail(_ command: String, _ error: WarehouseError) -> ExitCode {
        Err.line("blereplay \(command): \(error.message)")
        return error.kind == .unreachable ? .unavailable : .dataError
    }
}
