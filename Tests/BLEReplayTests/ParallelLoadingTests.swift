import Foundation
import Testing
import BLETimeline
@testable import BLEReplay

/// Loading a recording on several threads gives what loading it on one gives (issue 12): the
/// connections' details are read by `WorkerPool`'s threads, each through a connection of its own
/// (`RecordingLoader.loadDetails`), and the peers' behaviours are extracted on them
/// (`ModelBuilder.forEachExtracted`); both hand their results back in connection order.
@Suite("recordings loaded on several threads")
struct ParallelLoadingTests {
    /// Every sample and every shared HCI capture, and a generated one of 2 x 96 links.
    static func inputs() throws -> [String] {
        let dir = try GeneratedSession.temporaryDirectory("parallel-loading")
        let links = dir.appendingPathComponent("links.btsnoop").path
        try GeneratedSession.runPython(["python3", "-m", "blegen.adversarial", "--links", "2", "96", links])
        return TestCaptures.samples.map(TestCaptures.sample) + TestCaptures.sharedHCI.map(TestCaptures.shared) + [links]
    }

    /// A recorded central as text, its answer table (a dictionary) in key order.
    static func describe(_ c: RecordedCentral) -> String {
        let answers = c.answers.answers.map { "\($0.key): \($0.value)" }.sorted()
        return "\(c.connectionID) \(c.steps) \(answers)"
    }

    @Test func sameSessionsAndModelsOnOneThreadAndOnFour() throws {
        var connections = 0, pdus = 0
        for path in try Self.inputs() {
            let source = try TimelineSource(path: path)
            let one = try RecordingLoader.load(source.store, jobs: 1)
            let four = try RecordingLoader.load(source.store, jobs: 4)
            #expect(one.count == four.count, "\(path)")
            for (a, b) in zip(one, four) {
                #expect(String(describing: a.connections) == String(describing: b.connections), "\(path): connections differ")
                #expect(a.classicConnections == b.classicConnections, "\(path)")
                connections += a.connections.count
                pdus += a.connections.reduce(0) { $0 + $1.pdus.count }
                let serial = ModelBuilder.build(a, jobs: 1), parallel = ModelBuilder.build(a, jobs: 4)
                #expect(serial.peripherals.map(\.key) == parallel.peripherals.map(\.key), "\(path)")
                #expect(serial.peripherals.map(\.behaviours.count) == parallel.peripherals.map(\.behaviours.count), "\(path)")
                #expect(serial.centrals.keys.sorted() == parallel.centrals.keys.sorted(), "\(path)")
                for (id, central) in serial.centrals {
                    #expect(Self.describe(central) == parallel.centrals[id].map(Self.describe), "\(path): connection \(id)")
                    #expect(serial.behaviourOf[id]?.model == parallel.behaviourOf[id]?.model
                            && serial.behaviourOf[id]?.behaviour == parallel.behaviourOf[id]?.behaviour, "\(path): connection \(id)")
                }
            }
        }
        // The inputs hold many connections and PDUs, so the comparison compared something.
        #expect(connections > 200 && pdus > 1_000, "\(connections) connections, \(pdus) PDUs")
    }

    /// Long PDUs held by reference (`PDUSource`) are the same read on several threads: the same
    /// rows, read back to the same bytes.
    @Test func longPDUsSpilledTheSameOnOneThreadAndOnFour() throws {
        let dir = try GeneratedSession.temporaryDirectory("parallel-loading-long")
        let capture = dir.appendingPathComponent("huge-att.pklg").path
        try GeneratedSession.runPython(["python3", "-m", "blegen.adversarial", "--huge-att", "24", capture])
        func load(jobs: Int) throws -> [RecordedSession] {
            let source = try TimelineSource(path: capture)
            let pdus = PDUSource()
            let sessions = try RecordingLoader.load(source.store, pduSource: pdus, jobs: jobs)
            pdus.keep(source)
            return sessions
        }
        let one = try load(jobs: 1), four = try load(jobs: 4)
        let a = one.flatMap(\.connections).flatMap(\.pdus), b = four.flatMap(\.connections).flatMap(\.pdus)
        #expect(a.count == b.count && a.count >= 24)
        #expect(a.filter(\.data.isReference).count >= 24, "the long PDUs are held by reference")
        for (x, y) in zip(a, b) {
            #expect(x.packetID == y.packetID && x.data.isReference == y.data.isReference && x.data == y.data)
            #expect(x.data.bytes == y.data.bytes && x.data.bytes.count == x.data.count, "packet \(x.packetID): read back differently")
        }
    }
}
