import BLECore
import BLEReport

/// Every input `ingest` was given, in `blereplay.input` (schema version 4), so that the report's
/// Inputs table lists what `report` over the same files lists: the inputs a capture was stored
/// from, and those that stored nothing: unreadable (`failed`, with the reason) and `duplicate`
/// (every capture in it counted from another input: the same capture, or the longer copy of a
/// log it is an earlier copy of; `GrownCaptures`).
///
/// A row says how the input was read (`read`, `partial`, `failed`), with its warnings, and for
/// each capture read from it its label, its SHA-256 and that of the stored capture it is counted
/// in (`counted_in`). Whether it is a duplicate, of which capture, and the notes `report` adds
/// (`InputOutcome.sameCaptureNote`, `shorterCopyNote`) are decided when the report is written,
/// from what the warehouse holds then: a capture counted from another input at one ingest may be
/// counted from this one at the next (`WarehouseIngest.countFromFirstInput`), or replaced by a
/// longer copy (`counted_in` follows it: `replaced`).
enum WarehouseInputs {
    /// One capture read from an input: its label and SHA-256, and the SHA-256 of the stored
    /// capture it is counted in.
    struct Counted: Sendable {
        var label: String
        var sha256: String
        var countedIn: String
        /// The phone it came with (a bugreport's log), as read from this input.
        var phone: PhoneIdentity?
    }

    /// Stores (or replaces: the latest ingest of a path says what it is) what became of `outcome`.
    static func record(_ outcome: InputOutcome, captures: [Counted], into db: PostgresConnection) throws(WarehouseError) {
        func list(_ values: [String]) -> String { JSON.array(values.map { .string(WarehouseText.storable($0)) }).serialized() }
        func array(_ n: Int) -> String {
            "ARRAY(SELECT v FROM jsonb_array_elements_text($\(n)::jsonb) WITH ORDINALITY AS t(v, n) ORDER BY n)"
        }
        func text(_ v: String?) -> JSON { v.map { .string(WarehouseText.storable($0)) } ?? .null }
        let phones = JSON.array(captures.map { c in
            c.phone.map { p in JSON.array([text(p.buildFingerprint), text(p.manufacturer), text(p.model), text(p.androidVersion)]) } ?? .null
        }).serialized()
        try db.execute("""
            INSERT INTO blereplay.input (path, kind, status, reason, warnings, format, labels, sha256s, counted_in, phones)
            VALUES ($1, $2, $3, $4, $5::jsonb, $6, \(array(7)), \(array(8)), \(array(9)), $10::jsonb)
            ON CONFLICT (path) DO UPDATE SET kind = excluded.kind, status = excluded.status, reason = excluded.reason,
                warnings = excluded.warnings, format = excluded.format, labels = excluded.labels, sha256s = excluded.sha256s,
                counted_in = excluded.counted_in, phones = excluded.phones, ingested_at = now()
            """, [outcome.path, outcome.kind, outcome.status.rawValue, outcome.reason, list(outcome.warnings), outcome.formatDescription,
                  list(captures.map(\.label)), list(captures.map(\.sha256)), list(captures.map(\.countedIn)), phones])
    }

    /// The capture `old` was replaced by `new`, its longer copy: what was counted in it is counted in `new`.
    static func replaced(_ old: String, by new: String, in db: PostgresConnection) throws(WarehouseError) {
        try db.execute("UPDATE blereplay.input SET counted_in = array_replace(counted_in, $1, $2) WHERE counted_in @> ARRAY[$1]",
                       [old, new])
    }

    /// The inputs of the report over the selection (`WarehouseSelection`'s `sel`), sorted by path
    /// in byte order as `FleetReader.read` sorts them: each input with a selected capture, as it
    /// was read; each input whose captures are all counted in selected captures of other inputs,
    /// as `duplicate` of the first of them; and, in a report over the whole warehouse (`windowed`
    /// false), each input that could not be read. An input's captures counted from another input
    /// are noted as `report` notes them. Inputs stored by a blereplay before schema version 4 are
    /// known by their captures alone.
    static func rows(_ db: PostgresConnection, windowed: Bool) throws(WarehouseError) -> [InputOutcome] {
        var warnings: [String: [String]] = [:]
        for r in try db.execute("""
            SELECT x.input, w.value FROM (
                SELECT DISTINCT ON (c.input) c.input, c.input_warnings FROM blereplay.capture c JOIN sel s ON s.id = c.id
                ORDER BY c.input, c.id) x, jsonb_array_elements_text(x.input_warnings) WITH ORDINALITY AS w(value, n)
            ORDER BY x.input, w.n
            """) {
            if let input = r.text(0), let w = r.text(1) { warnings[input, default: []].append(w) }
        }
        var recorded: [String: [String]] = [:]
        for r in try db.execute("""
            SELECT i.path, w.value FROM blereplay.input i, jsonb_array_elements_text(i.warnings) WITH ORDINALITY AS w(value, n)
            ORDER BY i.path, w.n
            """) {
            if let path = r.text(0), let w = r.text(1) { recorded[path, default: []].append(w) }
        }
        // Each input's captures counted from another input's stored capture, with that capture's
        // label (as the report names it when it is selected) and whether it is selected; by
        // stored capture, then in path order, as `FleetReader.read` meets them: the phone each
        // copy came with merged into the counted one's, said in its note as `report` says it.
        var notesAt: [String: [(n: Int, note: String)]] = [:], shorterAt: [String: [(n: Int, note: String)]] = [:]
        var countedFrom: [String: String] = [:]
        var group: String?, kept = PhoneIdentity()
        for r in try db.execute("""
            SELECT i.path, u.label, u.sha = u.counted, coalesce(s.label, c.label), s.id IS NOT NULL, c.input = i.path, u.counted, u.n,
                   i.phones -> (u.n::integer - 1) ->> 0, i.phones -> (u.n::integer - 1) ->> 1,
                   i.phones -> (u.n::integer - 1) ->> 2, i.phones -> (u.n::integer - 1) ->> 3
            FROM blereplay.input i, unnest(i.labels, i.sha256s, i.counted_in) WITH ORDINALITY AS u(label, sha, counted, n),
                 blereplay.capture c LEFT JOIN sel s ON s.id = c.id
            WHERE c.sha256 = u.counted
            ORDER BY u.counted, NOT (c.input = i.path), i.path COLLATE "C", u.n
            """) {
            guard let path = r.text(0), let label = r.text(1), let counted = r.text(3), let sha = r.text(6) else { continue }
            let phone = PhoneIdentity(buildFingerprint: r.text(8), manufacturer: r.text(9), model: r.text(10), androidVersion: r.text(11))
            if group != sha {
                group = sha
                kept = PhoneIdentity()
            }
            let n = r.int(7) ?? 0
            if r.bool(5) {
                // The input it is counted from: its phone is the one kept first.
                if case .added(let merged) = kept.merging(phone) { kept = merged }
                continue
            }
            if r.bool(2) {
                var note = InputOutcome.sameCaptureNote(label, countedFrom: counted)
                if !phone.isEmpty {
                    switch kept.merging(phone) {
                    case .unchanged: break
                    case .added(let merged):
                        kept = merged
                        note += "; phone identity added from \(path)"
                    case .conflict:
                        note += "; its phone \(phone.summary) differs from \(kept.summary), kept that"
                    }
                }
                notesAt[path, default: []].append((n, note))
            } else {
                shorterAt[path, default: []].append((n, InputOutcome.shorterCopyNote(label, longer: counted)))
            }
            if r.bool(4) && countedFrom[path] == nil { countedFrom[path] = counted }
        }
        func notes(_ path: String) -> [String] {
            ((notesAt[path] ?? []).sorted { $0.n < $1.n } + (shorterAt[path] ?? []).sorted { $0.n < $1.n }).map(\.note)
        }
        var out: [InputOutcome] = []
        var listed: Set<String> = []
        for r in try db.execute("""
            SELECT DISTINCT ON (c.input) c.input, c.input_kind, c.input_status, c.input_reason, c.input_format,
                   count(*) OVER (PARTITION BY c.input)
            FROM blereplay.capture c JOIN sel s ON s.id = c.id ORDER BY c.input, c.id
            """) {
            guard let path = r.text(0) else { continue }
            listed.insert(path)
            out.append(InputOutcome.make(path: path, kind: r.text(1), status: r.text(2).flatMap(InputOutcome.Status.init(rawValue:)) ?? .read,
                                         reason: r.text(3), warnings: (warnings[path] ?? []) + notes(path),
                                         formatDescription: r.text(4), captures: r.int(5) ?? 0))
        }
        for r in try db.execute("SELECT path, kind, status, reason, format FROM blereplay.input") {
            guard let path = r.text(0), !listed.contains(path) else { continue }
            let status = r.text(2).flatMap(InputOutcome.Status.init(rawValue:)) ?? .read
            var input = InputOutcome.make(path: path, kind: r.text(1), status: status, reason: r.text(3),
                                          warnings: (recorded[path] ?? []) + notes(path), formatDescription: r.text(4), captures: 0)
            if status == .failed {
                guard !windowed else { continue }
            } else {
                // Read, but every capture of it is counted in another input's (or outside the window).
                guard let label = countedFrom[path] else { continue }
                input.status = .duplicate
                input.reason = InputOutcome.duplicateReason(countedFrom: label)
            }
            out.append(input)
        }
        return out.sorted { Array($0.path.utf8).lexicographicallyPrecedes(Array($1.path.utf8)) }
    }
}
