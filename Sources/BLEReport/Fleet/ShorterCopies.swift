/// Captures that are byte prefixes of another capture read with them: copies of one log taken
/// while it was being written (Android's `btsnoop_hci.log`, `btmon -w`) and later. Counting both
/// counts the connections of the shorter one twice, so the longer copy alone is counted, as the
/// same capture given twice is (`FleetReader.read`); the warehouse does the same across ingests
/// (BLEWarehouse `GrownCaptures`).
///
/// Captures are grouped by the digest of their first `groupLength` bytes (read alone), and those
/// shorter than that by the digest of their first bytes (`CaptureBytes.headDigest`) with every
/// capture that shares it; only within a group of two or more are the whole bytes read again,
/// each capture once. A fleet's distinct captures share their first 64 bytes often (one phone's
/// logs: the same header, records a second apart) but not their first 4 KiB, so a fleet with no
/// copies reads 4 KiB a capture more, not every capture again.
enum ShorterCopies {
    static let groupLength: Int64 = 4096

    /// For each capture that is a byte prefix of another, the index of the longest one that
    /// extends it.
    static func find(_ captures: [CaptureFacts]) -> [Int: Int] {
        var heads: [String: [Int]] = [:]
        for (i, f) in captures.enumerated() {
            if let head = CaptureBytes.headDigest(f) { heads[head, default: []].append(i) }
        }
        var groups: [[Int]] = []
        for members in heads.values where members.count > 1 {
            // A copy shorter than `groupLength` is compared with its whole head group; longer
            // ones only with those that share their first `groupLength` bytes.
            var long: [String: [Int]] = [:]
            var short: [Int] = []
            for i in members {
                guard let prefix = CaptureBytes.prefixDigest(captures[i], length: groupLength) else { continue }
                if prefix.whole { long[prefix.digest, default: []].append(i) } else { short.append(i) }
            }
            if short.isEmpty {
                groups += long.values.filter { $0.count > 1 }
            } else {
                groups.append(members)
            }
        }
        var extendedBy: [Int: (index: Int, size: Int64)] = [:]
        for members in groups {
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
