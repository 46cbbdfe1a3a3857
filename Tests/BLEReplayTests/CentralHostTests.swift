import BLECore
import BLEDecode
import Testing
@testable import BLEReplay

/// The simulated host's rules, checked against exact virtual times.
@Suite struct CentralHostTests {
    /// A world over the healthy heart-rate sensor, with an observer that records callbacks.
    final class Probe: CentralHostObserver {
        var connected: [SimulatedLink] = []
        var ready: [VirtualTime] = []
        var disconnected: [(HCIStatusCode, VirtualTime)] = []
        let world: ReplayWorld
        init(world: ReplayWorld) {
            self.world = world
            world.host.observer = self
        }
        func centralHost(_ host: CentralHost, didConnect link: SimulatedLink) { connected.append(link) }
        func centralHost(_ host: CentralHost, linkIsReadyToSendWriteWithoutResponse link: SimulatedLink) { ready.append(world.now) }
        func centralHost(_ host: CentralHost, didDisconnect link: SimulatedLink, reason: HCIStatusCode) { disconnected.append((reason, world.now)) }
    }

    func connectedWorld(_ configure: (inout ReplayConfiguration) -> Void = { _ in }) throws -> (ReplayWorld, Probe, SimulatedLink) {
        let session = try TestCaptures.session(TestCaptures.sample("heart-rate-healthy.btsnoop"))
        var c = ReplayConfiguration()
        c.keepTrace = true
        configure(&c)
        let world = ReplayWorld(peripherals: ModelBuilder.build(session).peripherals, configuration: c)
        let probe = Probe(world: world)
        let sensor = try #require(world.peripheral("C4:7A:3B:12:9E:51"))
        world.host.connect(sensor)
        world.run(until: 2_000_000)
        let link = try #require(probe.connected.first)
        return (world, probe, link)
    }

    @Test func oneRequestAtATimePerBearer() throws {
        let (world, _, link) = try connectedWorld()
        var answered: [VirtualTime] = []
        let read = ATTPDU.readRequest(ATTReadRequest(attributeHandle: 0x0018)).encoded()
        for _ in 0..<3 { world.host.send(read, on: link, completion: { _ in answered.append(world.now) }) }
        world.run(until: 4_000_000)
        let requests = link.log.filter { $0.fromCentral && $0.bytes == read }
        let responses = link.log.filter { !$0.fromCentral && $0.bytes.first == 0x0B }
        #expect(requests.count == 3 && responses.count == 3 && answered.count == 3)
        // Each request leaves only when the previous one was answered.
        for i in 1..<3 { #expect(requests[i].time >= responses[i - 1].time) }
    }

    @Test func attTimeoutClosesTheBearerAndDisconnects() throws {
        let (world, probe, link) = try connectedWorld { $0.faults = [try! FaultSpec(parsing: "drop-response:read-request#1")] }
        var results: [String] = []
        let read = ATTPDU.readRequest(ATTReadRequest(attributeHandle: 0x0018)).encoded()
        let start = world.now
        world.host.send(read, on: link, completion: { r in results.append("\(r)") })
        world.host.send(read, on: link, completion: { r in results.append("\(r)") })
        world.run(until: start + 40_000_000)
        #expect(results == ["timeout", "disconnected"])
        #expect(link.attTimedOut)
        let sent = try #require(link.log.first { $0.fromCentral && $0.bytes == read })
        // Disconnect at exactly 30 s after the request went out; the end follows the termination delay.
        let disconnectCommand = world.trace.records.first { $0.kind == .command && $0.payload.prefix(2) == [0x06, 0x04] }
        #expect(disconnectCommand.map { $0.timestamp - world.configuration.epoch } == link.establishedAt + sent.time + 30_000_000)
        #expect(probe.disconnected.first?.0.rawValue == 0x16)
        #expect(link.cbError(for: .init(0x16), mapping: .default) == 6)
    }

    /// Enhanced ATT (Core v5.4 Vol 3 Part G 5.4): each bearer is sequential on its own, so a
    /// request on bearer 0x0041 goes out while one on 0x0040 is outstanding, and each answer
    /// comes back on its request's bearer. A timeout on one EATT bearer closes that bearer only
    /// (Vol 3 Part F 3.3.3: "on this ATT bearer"): its queued request fails, the fixed channel
    /// and the other bearer go on, and the host does not disconnect, even where a fixed-channel
    /// timeout would (the test above).
    @Test func eachEATTBearerHasItsOwnTransactionAndItsOwnTimeout() throws {
        let (world, probe, link) = try connectedWorld { $0.faults = [try! FaultSpec(parsing: "drop-response:read-request#1")] }
        var results: [String] = []
        func name(_ r: ATTResult) -> String {
            switch r {
            case .response: "response"
            case .error: "error"
            case .timeout: "timeout"
            case .disconnected: "disconnected"
            }
        }
        let read = ATTPDU.readRequest(ATTReadRequest(attributeHandle: 0x0018)).encoded()
        let start = world.now
        world.host.send(read, on: link, bearer: 0x0041, completion: { r in results.append("0x0041 \(name(r))") })
        world.host.send(read, on: link, bearer: 0x0041, completion: { r in results.append("0x0041 queued \(name(r))") })
        world.host.send(read, on: link, bearer: 0x0040, completion: { r in results.append("0x0040 \(name(r))") })
        world.run(until: start + 2_000_000)
        // Both first requests went out before either was answered; the queued one waits.
        let requests = link.log.filter { $0.fromCentral && $0.bytes == read }
        #expect(requests.map(\.bearer) == [0x0041, 0x0040])
        let answers = link.log.filter { !$0.fromCentral }
        #expect(answers.map(\.bearer) == [0x0040] && results == ["0x0040 response"])
        world.run(until: start + 40_000_000)
        #expect(results == ["0x0040 response", "0x0041 timeout", "0x0041 queued disconnected"])
        #expect(link.isUp && probe.disconnected.isEmpty && !link.attTimedOut)
        // The closed bearer takes no more requests; the fixed channel and bearer 0x0040 still do.
        var later: [String] = []
        world.host.send(read, on: link, bearer: 0x0041, completion: { r in later.append("0x0041 \(name(r))") })
        world.host.send(read, on: link, completion: { r in later.append("fixed \(name(r))") })
        world.host.send(read, on: link, bearer: 0x0040, completion: { r in later.append("0x0040 \(name(r))") })
        world.run(until: start + 42_000_000)
        #expect(later == ["0x0041 disconnected", "fixed response", "0x0040 response"])
    }

    @Test func writeWithoutResponseFollowsTheControllerBuffers() throws {
        let (world, probe, link) = try connectedWorld()
        let buffers = world.configuration.aclBufferCount
        let write = ATTPDU.writeCommand(ATTWriteCommand(attributeHandle: 0x0021, attributeValue: Array(repeating: 7, count: 20))).encoded()
        let start = world.now
        var sentAt: [VirtualTime] = []
        var n = 0
        while world.host.canSendWriteWithoutResponse(link) {
            world.host.send(write, on: link, transmitted: { sentAt.append(world.now) })
            n += 1
        }
        #expect(n == buffers)   // one 27-byte fragment each
        #expect(sentAt.count == buffers && sentAt.allSatisfy { $0 == start })
        world.run(until: start + 100_000)
        // Number Of Completed Packets at the next connection event frees them, and the host says so.
        let event = link.nextConnectionEvent(after: start)
        #expect(probe.ready == [event])
        #expect(world.host.canSendWriteWithoutResponse(link))
        let nocp = world.trace.records.last { $0.kind == .event && $0.payload.first == 0x13 }
        #expect(nocp.map { $0.timestamp - world.configuration.epoch } == event)
    }

    @Test func mtuExchangeTakesTheSmallerRxMTU() throws {
        let (world, _, link) = try connectedWorld()
        let client = GATTClient(host: world.host, link: link)
        var result: Int?
        client.exchangeMTU(517) { r in result = try? r.get() }
        world.run(until: world.now + 1_000_000)
        let server = try #require(link.log.last { !$0.fromCentral && $0.bytes.first == 0x03 })
        let serverRx = Int(server.bytes[1]) | Int(server.bytes[2]) << 8
        #expect(result == min(517, serverRx))
        #expect(link.mtu == min(517, serverRx))
    }

    /// A connection attempt never times out: with advertising stopped it stays pending; it
    /// completes at the first advertising event after advertising resumes.
    @Test func connectionAttemptsWaitForAdvertising() throws {
        let session = try TestCaptures.session(TestCaptures.sample("heart-rate-healthy.btsnoop"))
        let world = ReplayWorld(peripherals: ModelBuilder.build(session).peripherals,
                                configuration: { var c = ReplayConfiguration(); c.faults = [try! FaultSpec(parsing: "stop-advertising@t=0s")]; return c }())
        let probe = Probe(world: world)
        let sensor = try #require(world.peripheral("C4:7A:3B:12:9E:51"))
        world.run(until: 1)
        world.host.connect(sensor)
        world.run(until: 600_000_000)
        #expect(probe.connected.isEmpty)
        #expect(world.host.pendingConnections.count == 1)
        sensor.setAdvertising(true)
        world.run(until: 601_000_000)
        let link = try #require(probe.connected.first)
        #expect(link.establishedAt > 600_000_000)
        #expect(link.establishedAt <= 600_000_000 + sensor.model.advertising.interval + 10_000 + CentralHost.connectionSetupDelay)
    }

    /// Several peripherals at once: the faithful replay of a capture with overlapping links keeps
    /// them up together.
    @Test func severalPeripheralsAtOnce() throws {
        let session = try TestCaptures.session(TestCaptures.shared("android-pongbot.btsnoop"))
        let (r, world) = FaithfulReplay.run(session, configuration: ReplayConfiguration())
        #expect(r.allReproduced)
        let links = world.host.allLinks
        var most = 0
        for l in links {
            let overlapping = links.filter { $0.establishedAt <= l.establishedAt && ($0.endedAt ?? .max) > l.establishedAt }
            most = max(most, overlapping.count)
        }
        #expect(most >= 2)
        #expect(Set(links.map(\.peripheral.model.key)).count >= 2)
    }
}
