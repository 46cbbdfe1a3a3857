/// Captures that are byte prefixes of another capture read with them: copies of one log taken
/// while it was being written (Android's `btsnoop_hci.log`, `btmon -w`) and later. Counting both
/// counts the connections of the shorter one twice, so the longer copy alone is counted, as the
/// same capture given twice is (`FleetReader.read`); the warehouse does the same across ingests
/// (BLEWarehouse `GrownCaptures`).
///
/// Captures are grouped by the digest of their first bytes (`CaptureBytes.headDigest`, read
/// alone); only within a group of two or more are the bytes read again, each capture once.
enum ShorterCopies {
    /// For each capture that is a byte prefix of another, the index of the longest one that
    /// extends it.
    static func find(_ captures: [CaptureFacts]) -> [Int: Int] {
        var groups: [String: [Int]] = [:]
        for (i, f) in captures.enumerated() {
            if let head = CaptureBytes.headDigest(f) { groups[head, default: []].append(i) }
        }
        var extendedBy: [Int: (index: Int, size: Int64)] = [:]
        for members in groups.values where members.count > 1 {
            let located = members.compactMap { i in CaptureBytes.locate(captures[i]).map { (index: i, bytes: $0) } }
            for longer in located {
                let shorter = located.filter { $0.bytes.size < longer.bytes.size }
                guard !shorter.isEmpty else { continue }
                let digests = longer.bytes.digests(ofPrefixes: shorter.map(\.bytes.size))
                for s in shorter where digests[s.bytes.size] == captures[s.index].sha256 {
                    if (extendedBy[s.index]?.size ?? 0) < longer.bytes.size { extendedBy[s.index] = (longer.index, longer.bytes.size) }
                }
            }
        }
        return extendedBy.mapValues(\.index)
    }
}
