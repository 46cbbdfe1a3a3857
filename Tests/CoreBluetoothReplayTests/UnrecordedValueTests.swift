import BLECore
import BLEReplay
import CoreBluetoothReplay
import Foundation
import Testing
import TestSupport

/// Reads the recording never made (Docs/replay.md "Values the recording never showed"): the
/// value this connection shows at this moment, else the database's, else an explicit policy;
/// never an empty value presented as real, never a value from later or from another connection.
@Suite struct UnrecordedValueTests {
    static func replay(_ policy: UnrecordedValues? = nil) throws -> CBReplay {
        let path = FileManager.default.temporaryDirectory.appendingPathComponent("moments-\(UUID().uuidString).btsnoop").path
        try SpecCapture.valueMoments().write(to: path)
        defer { try? FileManager.default.removeItem(atPath: path) }
        var c = ReplayConfiguration()
        if let policy { c.unrecordedValues = policy }
        return try CBReplay(capture: path, configuration: c)
    }

    /// FFF1 was notified 01 at 1 s and 03 at 3 s on connection 1, and 09 on connection 2 (the
    /// database's last known value). Read 2 s after connecting, it holds 01.
    @Test func aReadGetsTheValueOfThatMomentOfThatConnection() throws {
        let replay = try Self.replay()
        let app = DiscoveringApp(replay: replay, target: nil)
        app.ready = { app, p in
            guard let c = app.characteristic("FFF1") else { return }
            replay.clock.schedule(after: 2) { p.readValue(for: c) }
        }
        replay.run(for: 4)
        #expect(app.values["FFF1"] == [Data([0x01])])
        #expect(replay.world.unrecordedReads.isEmpty)
    }

    /// FFE2 was never read nor notified: by default Read Not Permitted (CBATTError 2), noted.
    @Test(arguments: [UnrecordedValues.error(ATTErrorCode.readNotPermitted), .empty, .strict])
    func aValueNoRecordingShowsFollowsThePolicy(policy: UnrecordedValues) throws {
        let replay = try Self.replay(policy)
        let app = DiscoveringApp(replay: replay, target: nil)
        app.ready = { app, p in if let c = app.characteristic("FFE2") { p.readValue(for: c) } }
        replay.run(for: 3)
        #expect(replay.world.unrecordedReads.count == 1)
        switch policy {
        case .error:
            #expect((app.errors["FFE2"]?.first as? CBATTError)?.code == .readNotPermitted)
            #expect(app.values["FFE2"] == nil)
        case .empty:
            #expect(app.values["FFE2"] == [Data()])
        case .strict:
            #expect(app.values["FFE2"] == nil && app.errors["FFE2"] == nil)
            #expect(replay.world.unmatchedRequests.count == 1)
        }
    }

    @Test func theDefaultIsReadNotPermitted() {
        #expect(ReplayConfiguration().unrecordedValues == .error(ATTErrorCode.readNotPermitted))
    }
}

