import BLECore

/// When each link the controller reported lost (0x08 Connection Timeout) went silent, for
/// finding the links lost at the same moment without comparing every pair.
///
/// The controller reports 0x08 one supervision timeout after the last packet it received
/// (Core v5.4 Vol 6 Part B 4.5.2), so a link's silence began at the report's time less the
/// timeout in force. Built once per capture, sorted by that onset: a link's neighbours are a
/// binary search away, so a capture of tens of thousands of lost links stays linear.
struct LinkLossOnsets {
    struct Loss {
        var connection: ConnectionFacts
        var frame: Int
        var at: Int64
        var onset: Int64
        var timeoutMs: Int
        var intervalUs: Int
    }

    /// Sorted by onset.
    private(set) var losses: [Loss] = []
    /// The longest connection interval among them: it bounds every pair's tolerance.
    private var widestIntervalUs = 0

    init(_ connections: CaptureConnections, engine: FindingsEngine) throws {
        var losses: [Loss] = []
        var widest = 0
        try connections.forEach { c in
            guard c.disconnectReason == 0x08 && c.transport == "le", let frame = c.disconnectPacketID,
                  let at = c.disconnectedAt, let p = try engine.parametersInForce(c, before: frame) else { return }
            let onset = at.saturatingSubtracting(Int64(p.supervisionTimeoutMs).saturatingMultiplied(by: 1000))
            losses.append(Loss(connection: c, frame: frame, at: at, onset: onset, timeoutMs: p.supervisionTimeoutMs,
                               intervalUs: p.intervalUs))
            widest = max(widest, p.intervalUs)
        }
        self.losses = losses.sorted { ($0.onset, $0.connection.id) < ($1.onset, $1.connection.id) }
        widestIntervalUs = widest
    }

    /// Slack between two onsets still taken as one moment: four connection events of the
    /// slower link, at least 50 ms (host timestamps and the controller's event timing).
    static func tolerance(_ a: Int, _ b: Int) -> Int64 {
        Int64(max(50_000, 4 * max(a, b)))
    }

    /// The other lost links whose silence began within tolerance of `onset` (a link of
    /// interval `intervalUs`): at most `limit` of them, nearest first, and how many lost links
    /// in all went silent within the widest tolerance of it (a count, so that a capture of
    /// thousands of links lost at once is not compared pair by pair). The asking link must be
    /// one of the losses: a 0x08 LE link whose parameters are known.
    func sharing(onset: Int64, intervalUs: Int, except id: Int64, limit: Int) -> (nearest: [Loss], count: Int) {
        let window = Self.tolerance(intervalUs, widestIntervalUs)
        let lo = firstIndex(notBelow: onset.saturatingSubtracting(window))
        let hi = onset.saturatingAdding(window) == .max ? losses.count : firstIndex(notBelow: onset.saturatingAdding(window) + 1)
        // The link asking is one of the losses (its onset is `onset`): it is not counted.
        let count = max(0, hi - lo - 1)
        func distance(_ i: Int) -> Int64 { losses[i].onset.saturatingSubtracting(onset).saturatingMagnitude }
        var left = firstIndex(notBelow: onset) - 1, right = left + 1
        var nearest: [Loss] = []
        var steps = 0
        while nearest.count < limit, steps < 64 * limit, left >= lo || right < hi {
            steps += 1
            let takeLeft = right >= hi || (left >= lo && distance(left) <= distance(right))
            let i = takeLeft ? left : right
            if takeLeft { left -= 1 } else { right += 1 }
            let o = losses[i]
            guard o.connection.id != id, distance(i) <= Self.tolerance(intervalUs, o.intervalUs) else { continue }
            nearest.append(o)
        }
        return (nearest, count)
    }

    private func firstIndex(notBelow value: Int64) -> Int {
        var lo = 0, hi = losses.count
        while lo < hi {
            let mid = (lo + hi) / 2
            if losses[mid].onset < value { lo = mid + 1 } else { hi = mid }
        }
        return lo
    }
}
