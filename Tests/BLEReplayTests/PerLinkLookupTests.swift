import BLECore
import Testing
@testable import BLEReplay
import BLETimeline

/// The loader's per-connection lookups (issue 17: per-link lookups must be constant time): which
/// connection request a connection answers (`CreateConnectionClaims`), and which buffer returns
/// of its handle fall in its life (`RecordedCompletions`). Each gives what looking at every
/// request or return gave, on seeded random captures, for work that grows with the connections
/// and not with their square. The work is counted, not timed.
@Suite("per-connection lookups of the recording loader")
struct PerLinkLookupTests {
    /// Times in frame order on the capture's clock: never decreasing, ties included.
    static func clockTimes(_ count: Int, _ rng: inout SplitMix64) -> [Int64] {
        var t: Int64 = 1_000_000
        return (0..<count).map { _ in
            t += rng.inRange(0...3) == 0 ? 0 : rng.inRange(1...20_000)
            return t
        }
    }

    /// The claim as the loader made it before: the latest unclaimed request at or before `origin`,
    /// every request looked at.
    static func referenceClaims(_ times: [Int64], origins: [Int64]) -> [Int64?] {
        var used = Set<Int>()
        return origins.map { origin in
            guard let i = times.indices.last(where: { times[$0] <= origin && !used.contains($0) }) else { return nil }
            used.insert(i)
            return times[i]
        }
    }

    @Test(arguments: [1, 2, 3, 4, 5, 6, 7, 8] as [UInt64])
    func claimsAreTheLatestUnclaimedRequestAtOrBefore(seed: UInt64) {
        var rng = SplitMix64(seed: seed)
        let times = Self.clockTimes(Int(rng.inRange(0...300)), &rng)
        // Origins in any order, before, among and after the requests; more or fewer than them.
        let origins = (0..<Int(rng.inRange(0...400))).map { _ in rng.inRange(0...(times.last ?? 0) + 50_000) }
        var claims = CreateConnectionClaims(times: times)
        #expect(origins.map { claims.claim(atOrBefore: $0) } == Self.referenceClaims(times, origins: origins))
    }

    @Test func claimingIsLinearInTheConnections() {
        // Every connection after its request, on a host that asked for each (the common case),
        // and origins that all fall after every request (the longest paths to follow).
        for n in [1_000, 8_000] {
            var rng = SplitMix64(seed: 17)
            let times = Self.clockTimes(n, &rng)
            var inOrder = CreateConnectionClaims(times: times), late = CreateConnectionClaims(times: times)
            for t in times { _ = inOrder.claim(atOrBefore: t &+ 1_000) }
            for _ in times { _ = late.claim(atOrBefore: .max) }
            #expect(inOrder.visited <= 4 * n && late.visited <= 4 * n, "\(n) connections: \(inOrder.visited), \(late.visited) requests looked at")
        }
    }

    static func connection(id: Int64, handle: UInt16, origin: Int64, end: Int64) -> RecordedConnection {
        RecordedConnection(id: id, handle: handle, peer: nil, peerLabel: "peer \(id)", role: "central", status: 0, origin: origin,
                           offset: origin, beganBeforeCapture: false, createOffset: nil, completePacketID: nil, parameters: nil,
                           parameterUpdates: [], pdus: [], disconnect: nil, localDisconnect: nil, end: end, clientRxMTU: nil,
                           serverRxMTU: nil, encrypted: false, smpPackets: 0)
    }

    /// `count` connections one after another on each of two handles (a controller hands out the
    /// same handle again), with buffer returns of 1-3 packets through each one's life and between.
    static func reusedHandles(_ count: Int, seed: UInt64) -> ([RecordedConnection], [ControllerHandle: [(time: Int64, count: Int)]]) {
        var rng = SplitMix64(seed: seed)
        var connections: [RecordedConnection] = []
        var returns: [ControllerHandle: [(time: Int64, count: Int)]] = [:]
        for handle: UInt16 in [0x0040, 0x0041] {
            var t: Int64 = 0
            for _ in 0..<count {
                let origin = t + rng.inRange(0...5_000), end = rng.inRange(0...50_000)
                connections.append(connection(id: Int64(connections.count + 1), handle: handle, origin: origin, end: end))
                t = origin
                while t < origin + end + 10_000 {
                    returns[ControllerHandle(controller: 0, handle: handle), default: []].append((t, Int(rng.inRange(1...3))))
                    t += rng.inRange(0...4_000)
                }
            }
        }
        return (connections, returns)
    }

    @Test(arguments: [1, 2, 3] as [UInt64])
    func completionsAreTheReturnsInTheConnectionsLife(seed: UInt64) {
        var (connections, returns) = Self.reusedHandles(60, seed: seed)
        var times: [Int64] = []
        RecordedCompletions.assign(returns, to: &connections, times: &times)
        for c in connections {
            let expected = returns[ControllerHandle(controller: c.controller, handle: c.handle), default: []].filter { $0.time >= c.origin && $0.time <= c.origin + c.end }
                .flatMap { Array(repeating: $0.time - c.origin, count: $0.count) }
            #expect(Array(times[Int(c.completionRange.lowerBound)..<Int(c.completionRange.upperBound)]) == expected, "connection \(c.id)")
        }
    }

    @Test func assigningIsLinearInTheReturns() {
        var perConnection: [Double] = []
        for n in [200, 1_600] {
            var (connections, returns) = Self.reusedHandles(n, seed: 9)
            let total = returns.values.map(\.count).reduce(0, +)
            var times: [Int64] = []
            let visited = RecordedCompletions.assign(returns, to: &connections, times: &times)
            // Each return looked at once or twice, plus a binary search per connection.
            #expect(visited <= 2 * total + connections.count * 16, "\(n) connections per handle: \(visited) returns looked at of \(total)")
            perConnection.append(Double(visited) / Double(connections.count))
        }
        #expect(perConnection[1] < 2 * perConnection[0], "returns looked at per connection: \(perConnection)")
    }
}
