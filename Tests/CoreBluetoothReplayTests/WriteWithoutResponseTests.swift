import BLEReplay
import CoreBluetoothReplay
import Foundation
import Testing
import TestSupport

/// Writes without response as iOS handles them (Docs/replay.md "How iOS behaves", "Write without
/// response"): flow control by `canSendWriteWithoutResponse` and
/// `peripheralIsReady(toSendWriteWithoutResponse:)`, a write to a characteristic that does not
/// allow it, and `maximumWriteValueLength(for: .withoutResponse)`.
@Suite struct WriteWithoutResponseTests {
    static func replay(properties: UInt8 = 0x0E, serverRxMTU: UInt16 = 185) throws -> CBReplay {
        let path = FileManager.default.temporaryDirectory.appendingPathComponent("fidelity-\(UUID().uuidString).btsnoop").path
        try SpecCapture.longValueRead(properties: properties, serverRxMTU: serverRxMTU).write(to: path)
        defer { try? FileManager.default.removeItem(atPath: path) }
        return try CBReplay(capture: path)
    }

    /// Write Commands (0x52) the central sent, with their virtual times (µs from the link's start).
    static func writeCommands(_ replay: CBReplay) -> [(time: Int64, bytes: [UInt8])] {
        replay.world.host.allLinks.flatMap { $0.log }.filter { $0.fromCentral && $0.bytes.first == 0x52 }.map { ($0.time, $0.bytes) }
    }

    /// Paces writes without response the two ways iOS apps do: one per
    /// `peripheralIsReady(toSendWriteWithoutResponse:)` without ever reading
    /// `canSendWriteWithoutResponse`, or `while canSendWriteWithoutResponse { write }`.
    final class Pacer: NSObject, CBPeripheralDelegate {
        let total: Int
        let loop: Bool
        var sent = 0
        var readyCalls = 0
        var canSendAfterFirstWrite: Bool?
        var writesPerBurst: [Int] = []
        init(total: Int, loop: Bool) { self.total = total; self.loop = loop }

        func start(_ p: CBPeripheral) { send(p) }

        func send(_ p: CBPeripheral) {
            guard let c = p.services?.first?.characteristics?.first(where: { $0.uuid == CBUUID(string: "FFE1") }) else { return }
            var burst = 0
            repeat {
                guard sent < total else { break }
                p.writeValue(Data([UInt8(sent)]), for: c, type: .withoutResponse)
                sent += 1
                burst += 1
                if canSendAfterFirstWrite == nil { canSendAfterFirstWrite = p.canSendWriteWithoutResponse }
            } while loop && p.canSendWriteWithoutResponse
            writesPerBurst.append(burst)
        }

        func peripheralIsReady(toSendWriteWithoutResponse peripheral: CBPeripheral) {
            readyCalls += 1
            send(peripheral)
        }
    }

    static func pace(total: Int, loop: Bool) throws -> (CBReplay, Pacer) {
        let replay = try Self.replay()
        let app = DiscoveringApp(replay: replay, target: nil)
        let pacer = Pacer(total: total, loop: loop)
        app.ready = { _, p in
            p.delegate = pacer
            pacer.start(p)
        }
        replay.run(for: 5)
        return (replay, pacer)
    }

    /// iOS: every write without response makes `canSendWriteWithoutResponse` false until the
    /// system has handed it on, then `peripheralIsReady(toSendWriteWithoutResponse:)` comes. An
    /// app that writes once per callback, never reading `canSend`, sends everything.
    @Test func oneWritePerReadyCallbackSendsEverything() throws {
        let (replay, pacer) = try Self.pace(total: 20, loop: false)
        #expect(pacer.sent == 20)
        #expect(pacer.readyCalls >= 19)
        let commands = Self.writeCommands(replay)
        #expect(commands.map { $0.bytes.last! } == (0..<20).map { UInt8($0) })
        // The controller's 8 buffers (LE Read Buffer Size): 8 writes at one instant, then 8 more at
        // the next connection event (30 ms later, where Number Of Completed Packets frees them), then 4.
        let t0 = try #require(commands.first?.time)
        #expect(commands.map { $0.time - t0 } == Array(repeating: 0, count: 8) + Array(repeating: 30_000, count: 8)
            + Array(repeating: 60_000, count: 4))
    }

    /// `while canSendWriteWithoutResponse { write }` sends one write, then waits for the callback.
    @Test func aCanSendLoopSendsOneWriteThenWaitsForTheCallback() throws {
        let (replay, pacer) = try Self.pace(total: 12, loop: true)
        #expect(pacer.canSendAfterFirstWrite == false)
        #expect(pacer.writesPerBurst.allSatisfy { $0 <= 1 })   // 0: the callback after the last write
        #expect(pacer.sent == 12)
        #expect(Self.writeCommands(replay).count == 12)
    }

    /// iOS logs "WARNING: Characteristic … does not specify the Write Without Response property -
    /// ignoring response-less write" and sends nothing.
    @Test func aWriteWithoutResponseToACharacteristicWithoutThePropertyIsDropped() throws {
        let replay = try Self.replay(properties: 0x0A)   // read, write
        let app = DiscoveringApp(replay: replay, target: nil)
        app.ready = { app, p in
            guard let c = app.characteristic("FFE1") else { return }
            p.writeValue(Data([1, 2, 3]), for: c, type: .withoutResponse)
        }
        replay.run(for: 5)
        #expect(app.log.contains { $0.contains("characteristics FFE0") })
        #expect(Self.writeCommands(replay).isEmpty)
        #expect(replay.diagnostics.contains { $0.message.contains("does not specify the Write Without Response property") })
    }

    /// A write without response longer than `maximumWriteValueLength(for: .withoutResponse)`
    /// (MTU 185 - 3 = 182) does not fit one Write Command (Core v5.4 Vol 3 Part F 3.4.5.3): as
    /// iOS does (Docs/replay.md "Write without response"), its first 182 bytes go out as one
    /// Write Command (52 | handle | 182 bytes) and the rest is dropped, which `diagnostics` says.
    @Test func aWriteWithoutResponseLongerThanTheMaximumIsCutToIt() throws {
        let replay = try Self.replay()
        let app = DiscoveringApp(replay: replay, target: nil)
        let long = Data((0..<200).map { UInt8($0) })
        app.ready = { app, p in
            guard let c = app.characteristic("FFE1") else { return }
            p.writeValue(long.prefix(182), for: c, type: .withoutResponse)
            p.writeValue(long, for: c, type: .withoutResponse)
        }
        replay.run(for: 5)
        let commands = Self.writeCommands(replay).map(\.bytes)
        #expect(commands.map(\.count) == [3 + 182, 3 + 182])
        #expect(commands.last.map { Array($0.dropFirst(3)) } == Array(long.prefix(182)))
        #expect(replay.diagnostics.filter { $0.kind == .writeNotSent }.isEmpty)
        let notes = replay.diagnostics.filter { $0.kind == .writeTruncated }
        #expect(notes.count == 1)
        #expect(notes.first?.message.contains("200-byte") == true)
        #expect(notes.first?.message.contains("maximumWriteValueLength(for: .withoutResponse) is 182") == true)
        #expect(notes.first?.message.contains("18 bytes were not sent") == true)
    }

    /// iOS caps a write without response at 512 bytes, the longest attribute value, whatever the MTU.
    @Test func maximumWriteWithoutResponseIsCappedAt512() throws {
        let replay = try Self.replay(serverRxMTU: 517)
        let app = DiscoveringApp(replay: replay, target: nil)
        var lengths: (Int, Int)?
        app.ready = { _, p in lengths = (p.maximumWriteValueLength(for: .withResponse), p.maximumWriteValueLength(for: .withoutResponse)) }
        replay.run(for: 5)
        #expect(lengths?.0 == 512)
        #expect(lengths?.1 == 512)   // MTU 517: 514 would not fit one attribute
    }
}
