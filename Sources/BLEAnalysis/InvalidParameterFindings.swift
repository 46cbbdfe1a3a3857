import BLECore
import BLETimeline

extension FindingsEngine {
    /// `invalid-parameters`: LE connection parameters a link was given that the spec does not
    /// allow (Core v5.4 Vol 6 Part B 4.5.1, 4.5.2): connInterval 7.5 ms to 4.0 s,
    /// connPeripheralLatency 0 to 499 and below connSupervisionTimeout / (connInterval × 2),
    /// connSupervisionTimeout 100 ms to 32 s and larger than (1 + latency) × connInterval × 2.
    /// Checked on the parameters the link was created with and each one applied (the controller's
    /// LE Connection Update Complete, or on a sniffer's capture the central's
    /// LL_CONNECTION_UPDATE_IND): a peer given such values may drop the link or crash (an nRF
    /// Sniffer capture of a PSoC 6 peripheral lost its link right after an update to interval 0).
    /// What a peripheral only asked for (L2CAP) is `parameters-outside-apple-guidelines`' business.
    func invalidParameterFindings(_ c: ConnectionFacts) throws -> [Finding] {
        guard c.transport == "le", c.status == 0 else { return [] }
        var sets: [(frame: Int, intervalUs: Int, latency: Int, timeoutMs: Int, what: String)] = []
        if !c.beganBeforeCapture, let i = c.intervalUs, let l = c.latency, let t = c.supervisionTimeoutMs {
            sets.append((c.completePacketID ?? c.firstPacketID, i, l, t, "the parameters the link was created with"))
        }
        for u in try db.rows("""
            SELECT packet_id, interval_us, latency, supervision_timeout_ms FROM connection_update
            WHERE connection_id = ?1 AND source = 'hci' AND coalesce(status, 0) = 0 ORDER BY packet_id
            """, [.integer(c.id)]) {
            guard let i = u[1].int, let l = u[2].int, let t = u[3].int else { continue }
            sets.append((u[0].int ?? 0, i, l, t, "the connection update applied at packet \(u[0].int ?? 0)"))
        }
        var out: [Finding] = []
        for p in sets {
            let broken = Self.specViolations(intervalUs: p.intervalUs, latency: p.latency, timeoutMs: p.timeoutMs)
            guard !broken.isEmpty else { continue }
            // A malformed PDU (a length beyond its CtrData, a cut CRC) carries its values all the same.
            let problems = try db.rows("""
                SELECT reason FROM decode_problem WHERE capture_id = ?1 AND packet_id = ?2 AND kind = 'malformed' ORDER BY file_offset
                """, [.integer(captureID), .integer(Int64(p.frame))]).compactMap { $0[0].string }
            let malformed = problems.isEmpty ? ""
                : " The PDU is itself malformed (\(problems.joined(separator: "; "))): these are the values its bytes hold, which the peer received."
            out.append(Finding(connectionID: c.id, captureID: captureID, severity: .error, code: "invalid-parameters",
                               title: "Connection parameters the spec does not allow: " + broken[0],
                               detail: "In \(p.what) (interval \(TextFormat.fixed(Double(p.intervalUs) / 1000, 2)) ms, latency \(p.latency), "
                                   + "supervision timeout \(p.timeoutMs) ms): " + broken.joined(separator: "; ")
                                   + " (Core v5.4 Vol 6 Part B 4.5.1, 4.5.2). A peer given them may refuse them, drop the link or fail outright." + malformed,
                               evidence: [p.frame]))
        }
        return out
    }

    /// What breaks the spec's ranges, each as a phrase; empty when nothing does.
    static func specViolations(intervalUs: Int, latency: Int, timeoutMs: Int) -> [String] {
        var broken: [String] = []
        if intervalUs < 7_500 || intervalUs > 4_000_000 {
            broken.append("interval \(TextFormat.fixed(Double(intervalUs) / 1000, 2)) ms outside 7.5 ms to 4 s")
        }
        if timeoutMs < 100 || timeoutMs > 32_000 {
            broken.append("supervision timeout \(timeoutMs) ms outside 100 ms to 32 s")
        }
        if latency > 499 { broken.append("latency \(latency) above 499") }
        // Only meaningful with an interval that is one.
        if intervalUs > 0 {
            let minimum = (1 + latency) * intervalUs * 2
            if timeoutMs * 1000 <= minimum {
                broken.append("supervision timeout \(timeoutMs) ms not larger than (1 + latency) × interval × 2 = \(TextFormat.fixed(Double(minimum) / 1000, 2)) ms")
            }
        }
        return broken
    }
}
