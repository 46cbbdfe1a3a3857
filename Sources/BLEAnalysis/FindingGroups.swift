/// Repeated findings as one: the same failed connection attempt, over and over (an Android
/// phone paging a BR/EDR device that is away, 0x04 Page Timeout ×12), is one finding with the
/// count and every attempt's packets, not a paragraph per attempt (issue 16).
///
/// Only codes whose findings differ by nothing but the attempt are grouped; a finding stays
/// where it is when it occurs once. The group is capture-level (no connection): it covers
/// several connection rows, which the renderer lists on one line.
enum FindingGroups {
    static let groupedCodes: Set<String> = ["connection-failed"]

    static func groupRepeated(_ findings: [Finding]) -> [Finding] {
        var byKey: [String: [Int]] = [:]
        for (i, f) in findings.enumerated() where groupedCodes.contains(f.code) && f.connectionID != nil {
            byKey[f.code + "\u{1}" + f.title, default: []].append(i)
        }
        var drop = Set<Int>()
        var grouped: [Int: Finding] = [:]
        for indices in byKey.values where indices.count > 1 {
            let list = indices.map { findings[$0] }
            let first = list[0]
            let ids = list.compactMap(\.connectionID).map(String.init)
            let shown = ids.prefix(12).joined(separator: ", ") + (ids.count > 12 ? ", …" : "")
            grouped[indices[0]] = Finding(
                connectionID: nil, captureID: first.captureID, severity: first.severity, code: first.code,
                title: "\(list.count)× " + first.title,
                detail: "The first: " + first.detail + " The same attempt failed the same way \(list.count) times: connections \(shown).",
                evidence: list.flatMap(\.evidence), cbError: first.cbError)
            drop.formUnion(indices.dropFirst())
        }
        return findings.indices.compactMap { i in drop.contains(i) ? nil : grouped[i] ?? findings[i] }
    }
}
