import BLECore
import BLEReport
import BLEWarehouse

/// `blereplay ingest INPUT... --warehouse URL [--jobs N]`
///
/// Reads captures, timelines and directories as `report` does and stores each capture's facts
/// in the PostgreSQL warehouse (BLEWarehouse). Exit 0 when every input was read and stored (or
/// already there); 65 when an input was unreadable or corrupt (the rest is stored) or the
/// warehouse's schema is newer; 69 when the warehouse is unreachable, naming host and port
/// (what was committed stays, nothing half-stored; running again stores the rest); 2 on a
/// usage error.
enum IngestCommand {
    static let usage = "usage: blereplay ingest INPUT... --warehouse URL [--jobs N]"

    static func run(_ argv: [String]) throws -> ExitCode {
        let args = try Arguments(argv, valued: ["warehouse", "jobs"], flagNames: ["quiet"])
        guard !args.positionals.isEmpty else {
            throw Arguments.UsageError(message: "give at least one capture, timeline or directory (\(usage))")
        }
        guard let url = try WarehouseOptions.url(args) else {
            throw Arguments.UsageError(message: "give --warehouse URL or set \(WarehouseURL.environmentVariable) (\(usage))")
        }
        let jobs = try args.int("jobs") ?? WorkerPool.processorCount
        guard jobs >= 1 else { throw Arguments.UsageError(message: "--jobs takes a number of at least 1") }
        FleetReader.raiseOpenFileLimit()
        let results: [WarehouseIngest.FileResult]
        do throws(WarehouseError) {
            results = try WarehouseIngest.run(args.positionals, url: url, jobs: jobs)
        } catch {
            return WarehouseOptions.fail("ingest", error)
        }
        var stored = 0, already = 0, replaced = 0, refused = 0, damaged: [String] = []
        var lost: WarehouseError?
        for r in results {
            stored += r.stored
            already += r.alreadyStored
            replaced += r.replaced
            if let e = r.error {
                if e.kind == .unreachable {
                    lost = lost ?? e
                    continue
                }
                // The warehouse refused a statement (the connection still up): a data error.
                Err.line("blereplay ingest: \(r.outcome.path): not stored: \(e.message)")
                refused += 1
            }
            if r.outcome.status == .failed {
                Err.line("blereplay ingest: not read: \(r.outcome.reason ?? r.outcome.path)")
                damaged.append(r.outcome.path)
            } else if ReportCommand.isCorrupt(r.outcome) {
                Err.line("blereplay ingest: corrupt, read up to the damage: \(r.outcome.reason ?? r.outcome.path)")
                damaged.append(r.outcome.path)
            }
            for w in r.outcome.warnings { Err.line("warning: \(w)") }
        }
        if !args.flag("quiet") {
            Out.line("blereplay ingest: \(stored) capture(s) stored"
                     + (replaced == 0 ? "" : " (\(replaced) replacing a shorter copy of their log)")
                     + ", \(already) already in the warehouse"
                     + (damaged.isEmpty ? "" : ", \(damaged.count) file(s) unreadable or corrupt"))
        }
        if let lost {
            let skipped = results.filter { $0.error?.kind == .unreachable && $0.stored == 0 }.count
            Err.line("blereplay ingest: \(lost.message)")
            Err.line("blereplay ingest: \(stored) capture(s) stored before that; \(skipped) input(s) not stored: run the same ingest again to store them (what is stored is never stored twice)")
            return .unavailable
        }
        if refused > 0 { return .dataError }
        return damaged.isEmpty ? .success : .dataError
    }
}
