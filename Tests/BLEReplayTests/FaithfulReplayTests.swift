import BLECore
import BLETimeline
import Testing
@testable import BLEReplay

/// Faithful replay of every HCI capture reproduces it (Docs/replay.md "What reproduced means").
@Suite struct FaithfulReplayTests {
    func replay(_ path: String, faults: [String] = []) throws -> (FaithfulReplayResult, ReplayWorld, RecordedSession) {
        let session = try TestCaptures.session(path)
        var c = ReplayConfiguration()
        c.unmatched = .strict
        c.faults = try faults.map { try FaultSpec(parsing: $0) }
        c.keepTrace = true
        let (result, world) = FaithfulReplay.run(session, configuration: c)
        return (result, world, session)
    }

    @Test(arguments: TestCaptures.samples)
    func sampleCapturesReproduce(_ name: String) throws {
        let (r, _, session) = try replay(TestCaptures.sample(name))
        #expect(!r.verdicts.isEmpty)
        for v in r.verdicts {
            #expect(v.reproduced, "\(name) connection \(v.connectionID): \(v.divergence.map { "\($0.kind): expected \($0.expected), got \($0.got)" } ?? "")")
        }
        #expect(r.verdicts.count == session.connections.count)
    }

    @Test(arguments: TestCaptures.sharedHCI)
    func sharedHCICapturesReproduce(_ name: String) throws {
        let (r, _, _) = try replay(TestCaptures.shared(name))
        for v in r.verdicts {
            #expect(v.reproduced, "\(name) connection \(v.connectionID): \(v.divergence.map { "\($0.kind): expected \($0.expected), got \($0.got)" } ?? "")")
            #expect(v.maxTimingError <= ReplayComparison.tolerance)
        }
    }

    /// A timeline holding an air capture beside an HCI one replays both (the air one was left out
    /// with a note, and a timeline of air captures only refused).
    @Test func anAirCaptureBesideAnHCIOneIsReplayedToo() throws {
        let directory = try TemporaryDirectory(prefix: "air-beside-hci")
        let db = directory.path + "/mix.db"
        _ = try Importer.importCaptures([TestCaptures.shared("sniffle-gatt.pcap"), TestCaptures.sample("auth-errors.btsnoop")], into: db)
        let loaded = try ReplaySource.load(path: db)
        #expect(Set(loaded.sessions.map(\.fileName)) == ["sniffle-gatt.pcap", "auth-errors.btsnoop"])
        #expect(!loaded.messages.contains { $0.contains("not replayed") })
        for session in loaded.sessions {
            let (r, _) = FaithfulReplay.run(session, configuration: ReplayConfiguration())
            #expect(!r.verdicts.isEmpty && r.verdicts.allSatisfy(\.reproduced), "\(session.fileName)")
        }
    }

    /// A capture with nothing to replay (BR/EDR links without ATT) simulates nothing: no events,
    /// no span (it said "0 events, 3382.836419 s simulated").
    @Test func nothingToReplaySimulatesNothing() throws {
        let (r, _, _) = try replay(TestCaptures.shared("android-classic-spp.btsnoop"))
        #expect(r.connectionCount == 0 && r.eventsRun == 0 && r.simulatedSpan == 0)
        #expect(r.notes.contains { $0.contains("nothing to replay") })
    }

    /// The sensor goes silent after the subscription and the controller reports 0x08 one
    /// supervision timeout later: the model says so, and the replay ends at the recorded instant.
    @Test func supervisionTimeoutIsAnchoredToTheSubscription() throws {
        let (r, world, session) = try replay(TestCaptures.sample("heart-rate-supervision-timeout.btsnoop"))
        let first = try #require(session.connections.first { $0.isEstablished })
        let models = ModelBuilder.build(session)
        let b = try #require(models.behaviourOf[first.id])
        let behaviour = models.peripherals[b.model].behaviours[b.behaviour]
        guard case .linkLoss(let anchor, let delay, let detection) = behaviour.ending else {
            Issue.record("expected a link loss, got \(behaviour.ending)")
            return
        }
        let cccdWrite = try #require(first.pdus.first { $0.fromCentral && $0.bytes.first == 0x12 && $0.bytes.count == 5 && $0.bytes[3] == 1 })
        let cccd = UInt16(cccdWrite.bytes[1]) | UInt16(cccdWrite.bytes[2]) << 8
        #expect(anchor == .received(.writeRequest(cccd), 1))
        #expect(detection == nil)
        let recorded = try #require(first.disconnect)
        let timeout = try #require(first.parameters?.supervisionTimeout)
        #expect(cccdWrite.time + delay + timeout == recorded.time)

        let link = try #require(world.host.allLinks.first)
        #expect(link.endReason == .connectionTimeout)
        #expect(link.endedAt.map(link.relative) == recorded.time)
        #expect(r.allReproduced)
    }

    /// Slowing the peripheral's answers moves the subscription later; the failure, anchored to
    /// the subscription, moves with it.
    @Test func failuresFollowTheirAnchorWhenTimingChanges() throws {
        let path = TestCaptures.sample("heart-rate-supervision-timeout.btsnoop")
        let (_, world, session) = try replay(path, faults: ["latency-scale:3.0"])
        let first = try #require(session.connections.first { $0.isEstablished })
        let recordedWrite = try #require(first.pdus.first { $0.fromCentral && $0.bytes.first == 0x12 && $0.bytes.count == 5 && $0.bytes[3] == 1 })
        let link = try #require(world.host.allLinks.first)
        let simulatedWrite = try #require(link.log.first { $0.fromCentral && $0.bytes == recordedWrite.bytes })
        #expect(simulatedWrite.time > recordedWrite.time)
        let recordedEnd = try #require(first.disconnect?.time)
        let simulatedEnd = try #require(link.endedAt.map(link.relative))
        #expect(simulatedEnd - simulatedWrite.time == recordedEnd - recordedWrite.time)
        #expect(link.endReason == .connectionTimeout)
    }

    /// `max_timing_error_us` is the largest shift over the PDUs that are the recorded ones, not
    /// the first late one's: slowing every answer twice shifts each later PDU further (it said
    /// 97,222 µs for a link whose PDUs ended up over 2 s late).
    @Test func theTimingErrorIsTheLargestShiftNotTheFirst() throws {
        let path = TestCaptures.sample("heart-rate-healthy.btsnoop")
        let (r, world, session) = try replay(path, faults: ["latency-scale:2.0"])
        let recorded = try #require(session.connections.first { $0.isEstablished })
        let link = try #require(world.host.allLinks.first)
        let verdict = try #require(r.verdicts.first { $0.connectionID == recorded.id })
        #expect(verdict.divergence?.kind == "timing")
        var largest: Int64 = 0
        for (a, b) in zip(recorded.pdus, link.log) {
            guard a.fromCentral == b.fromCentral, a.data == b.data, a.bearer == b.bearer else { break }
            largest = max(largest, abs(b.time - a.time))
        }
        let first = try #require(zip(recorded.pdus, link.log).map { abs($1.time - $0.time) }.first { $0 > ReplayComparison.tolerance })
        #expect(largest > first)
        #expect(verdict.maxTimingError == largest)
    }

    /// A fault that slows the answers can move the recorded ending past the recording's end: in
    /// att-timeout.btsnoop the host disconnects 30 s after its unanswered write (Core v5.4 Vol 3
    /// Part F 3.3.3), a write that twice slower answers send ~3 s later. The replay runs on past
    /// the recording's end (FaultOverrun) rather than call the link still connected.
    @Test func anEndingSlowedPastTheRecordingsEndStillHappens() throws {
        let path = TestCaptures.sample("att-timeout.btsnoop")
        let (_, world, session) = try replay(path, faults: ["latency-scale:2.0"])
        let recorded = try #require(session.connections.first { $0.isEstablished })
        let recordedEnd = try #require(recorded.disconnect?.time)
        let link = try #require(world.host.allLinks.first)
        let simulatedEnd = try #require(link.endedAt.map(link.relative))
        #expect(link.endReason?.rawValue == recorded.disconnect?.reason.rawValue)
        #expect(simulatedEnd > recordedEnd)
        #expect(world.now > session.end)
        // Without the fault the replay stops at the recording's end, as before.
        let (_, plain, _) = try replay(path)
        #expect(plain.now == session.end)
    }

    /// `disconnect:0x08@after=write-request:H#1` on the healthy sensor: silence at that write,
    /// Connection Timeout one supervision timeout (from the recorded parameters) later.
    @Test func injectedLinkLossEndsOneSupervisionTimeoutAfterTheMatch() throws {
        let path = TestCaptures.sample("heart-rate-healthy.btsnoop")
        let session = try TestCaptures.session(path)
        let c = try #require(session.connections.first)
        let write = try #require(c.pdus.first { $0.fromCentral && $0.bytes.first == 0x12 })
        let handle = UInt16(write.bytes[1]) | UInt16(write.bytes[2]) << 8
        let (r, world, _) = try replay(path, faults: ["disconnect:0x08@after=write-request:\(hex(handle, width: 4))#1"])
        let link = try #require(world.host.allLinks.first)
        #expect(link.endReason == .connectionTimeout)
        let timeout = try #require(c.parameters?.supervisionTimeout)
        #expect(link.endedAt.map(link.relative) == write.time + timeout)
        #expect(!r.allReproduced)
        let d = try #require(r.verdicts.first?.divergence)
        #expect(d.kind == "missing-pdu")
        #expect(d.expected.hasPrefix("peripheral -> Write Response"))
    }

    /// Same inputs, byte-identical outputs: the written capture and the JSON report.
    @Test func replayIsDeterministic() throws {
        let path = TestCaptures.shared("android-lock-long-session.btsnoop")
        let faults = ["latency-scale:1.5", "delay-response:read-request#3:+250ms"]
        let (a, wa, _) = try replay(path, faults: faults)
        let (b, wb, _) = try replay(path, faults: faults)
        #expect(FaithfulReport.json(a).serialized() == FaithfulReport.json(b).serialized())
        #expect(wa.trace.records.count == wb.trace.records.count)
        #expect(zip(wa.trace.records, wb.trace.records).allSatisfy { $0.payload == $1.payload && $0.timestamp == $1.timestamp })
    }
}
