import BLEReport

/// Copies of one log taken as it grew (`CaptureBytes`): the longest copy ingested is the one the
/// warehouse counts. A capture being stored replaces every stored capture that is a byte prefix
/// of it (same head digest, shorter, and the SHA-256 of this capture's first `size_bytes` bytes
/// equal to its `sha256`), in the same transaction; so ingesting a folder again after its logs
/// grew counts each connection once, as `report` over the folder does.
///
/// The other way round (a shorter copy ingested after the longer one) is decided from the longer
/// one's bytes when they are still where it was ingested from (its `capture_path`, hashing to its
/// `sha256`): the shorter copy is then not stored. Elsewhere the warehouse, which keeps no bytes,
/// cannot decide: the shorter copy is stored and the user told.
enum GrownCaptures {
    /// Serialises the workers storing copies of one log (same head digest): a two-int key, a key
    /// space apart from `WarehouseSchema.lockKey`'s (PostgreSQL 9.27.10, advisory locks).
    static func lock(_ bytes: CaptureBytes, _ db: PostgresConnection) throws(WarehouseError) {
        try db.execute("SELECT pg_advisory_xact_lock(74265873, hashtext($1))", [bytes.headDigest])
    }

    /// Removes the stored captures `facts` (stored as `id`) extends, keeping their phone identity
    /// where this copy has none. Returns what to tell the user.
    static func replaceShorterCopies(_ facts: CaptureFacts, bytes: CaptureBytes, id: String,
                                     in db: PostgresConnection) throws(WarehouseError) -> [String] {
        let shorter = try shorterCandidates(bytes, id: id, in: db)
        guard !shorter.isEmpty else { return [] }
        let digests = bytes.digests(ofPrefixes: shorter.compactMap { $0.int64(2) })
        var notes: [String] = []
        for row in shorter {
            guard let old = row.text(0), let size = row.int64(2), let sha = row.text(1), digests[size] == sha else { continue }
            let phone = ["phone_manufacturer", "phone_model", "android_version", "build_fingerprint"]
            try db.execute("""
                UPDATE blereplay.capture n SET \(phone.map { "\($0) = coalesce(n.\($0), o.\($0))" }.joined(separator: ", "))
                FROM blereplay.capture o WHERE n.id = $1::bigint AND o.id = $2::bigint
                """, [id, old])
            try db.execute("DELETE FROM blereplay.capture WHERE id = $1::bigint", [old])
            try WarehouseInputs.replaced(sha, by: facts.sha256, in: db)
            notes.append("\(facts.label): replaces the \(size)-byte copy of this log stored from \(row.text(3) ?? "?"), "
                         + "which it extends (the log grew); its facts are counted once, from this copy")
        }
        return notes
    }

    /// The stored captures that may be shorter copies of the capture stored as `id` (rows of id,
    /// sha256, size_bytes, label, by size): those whose bytes up to their own last checkpoint
    /// (`CaptureBytes.checkpoints`, one of this capture's) are this capture's, the digest there
    /// the same. A fleet's captures share their head (one phone's logs: one header, a first record
    /// alike), so without the checkpoint every capture stored before came back for every capture
    /// stored, and this capture's bytes were read again to compare them: 159,708 rows and 800
    /// reads over 800 captures of Scripts/make_fleet_corpus.py.
    static func shorterCandidates(_ bytes: CaptureBytes, id: String, in db: PostgresConnection) throws(WarehouseError) -> [[String?]] {
        try db.execute("""
            SELECT id, sha256, size_bytes, label FROM blereplay.capture
            WHERE head_sha256 = $1 AND size_bytes < $2::bigint AND id <> $3::bigint
              AND prefix_sha256[array_length(prefix_sha256, 1)] = ($4::text[])[array_length(prefix_sha256, 1)]
            ORDER BY size_bytes, id
            """, [bytes.headDigest, String(bytes.size), id, "{" + bytes.prefixDigests.joined(separator: ",") + "}"])
    }

    /// What the stored longer copies of `facts`' log say of it.
    enum Longer {
        /// One of them, whose bytes this worker could read again, begins with all of this
        /// capture's bytes: it is in the warehouse already.
        case containedIn(String, label: String, sha256: String)
        /// Longer captures whose first bytes, up to the last checkpoint this one reaches (more than
        /// half of it, `CaptureBytes.checkpoints`), are this one's, but whose bytes are not here
        /// to compare the rest: what to tell the user.
        case unverified([String])
    }

    static func longerCopies(_ facts: CaptureFacts, bytes: CaptureBytes, in db: PostgresConnection) throws(WarehouseError) -> Longer {
        let checkpoint = bytes.prefixDigests.count, covered = CaptureBytes.checkpoints(bytes.size).last ?? 0
        let rows = try db.execute("""
            SELECT label, size_bytes, capture_path, sha256 FROM blereplay.capture
            WHERE head_sha256 = $1 AND size_bytes > $2::bigint AND prefix_sha256[$3::integer] = $4 ORDER BY size_bytes DESC, id
            """, [bytes.headDigest, String(bytes.size), String(checkpoint), bytes.prefixDigests[checkpoint - 1]])
        for row in rows {
            guard let path = row.text(2), let sha = row.text(3),
                  let longer = CaptureBytes.locate(capturePath: path, sha256: sha) else { continue }
            if longer.digests(ofPrefixes: [bytes.size])[bytes.size] == facts.sha256 {
                return .containedIn("\(facts.label): an earlier copy of the log stored from \(row.text(0) ?? "?") "
                                    + "(its bytes begin that capture), already counted from it", label: row.text(0) ?? "?", sha256: sha)
            }
        }
        return .unverified(rows.map { row in
            "\(facts.label): its first \(covered) of \(bytes.size) bytes are those of \(row.text(0) ?? "?") (\(row.text(1) ?? "?") bytes, "
                + "already stored): if it is an older copy of that log, its connections are now counted twice "
                + "(that capture's bytes are not here to compare the rest)"
        })
    }
}
