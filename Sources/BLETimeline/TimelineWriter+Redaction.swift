import BLEDecode

/// Key material zeroed in the stored raw bytes (`DecodedPacket.secretRanges`), unless the import
/// keeps keys (`import --keep-keys`).
///
/// The record being written is zeroed before its row goes in; a range that names an earlier
/// record (a key in a fragment of a reassembled L2CAP PDU, or the other side's public key of a
/// debug-key pairing) rewrites that record's stored bytes, which are in the same transaction, with
/// `secure_delete` on so the old bytes are overwritten in the file too.
extension TimelineWriter {
    func redactEarlierRecords(_ ranges: [SecretRange], frame: Int) throws(SQLiteError) {
        let earlier = Set(ranges.map(\.frame).filter { $0 != frame })
        guard !earlier.isEmpty else { return }
        // The old bytes must not linger in the page's free space.
        try db.execute("PRAGMA secure_delete = ON")
        for other in earlier.sorted() {
            let key = SQLiteValue.integer(PacketKey.make(capture: captureID, frame: other))
            guard var raw = try db.rows("SELECT raw FROM packet WHERE rowid = ?1", [key]).first?[0].blob else { continue }
            if Redaction.zero(&raw, frame: other, ranges) {
                try db.run("UPDATE packet SET raw = ?1 WHERE rowid = ?2", [.blob(raw), key])
            }
        }
    }
}
