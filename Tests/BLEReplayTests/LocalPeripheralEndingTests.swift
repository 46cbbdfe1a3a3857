import BLECore
import Foundation
import Testing
import TestSupport
@testable import BLEReplay

/// The recorded ending a faithful replay prints (`peripheral:` / `peripheral_ending`) names the
/// sides as they were. On a link where the local device was the peripheral (LE Connection
/// Complete role 0x01, Core v5.4 Vol 4 Part E 7.7.65.1) the model's "central" is the local
/// peripheral and its "peripheral" the remote central: a link the local peripheral ended read
/// "the central disconnected", and one the remote central ended "peripheral: ended with 0x13".
@Suite struct LocalPeripheralEndingTests {
    func verdict(shape: String, seed: Int) throws -> ConnectionVerdict {
        let dir = scratchDirectory()
        defer { try? FileManager.default.removeItem(atPath: dir) }
        let s = try #require(try BlegenSessions.generate(seed: seed, shape: shape, into: dir).first)
        let session = try #require(try ReplaySource.load(path: s.path).sessions.first)
        let (result, _) = FaithfulReplay.run(session, configuration: ReplayConfiguration())
        let v = try #require(result.verdicts.first)
        #expect(v.reproduced)
        return v
    }

    @Test(arguments: [1, 2])
    func theLocalPeripheralDisconnected(_ seed: Int) throws {
        let v = try verdict(shape: "peripheral-local-disconnect", seed: seed)
        #expect(v.endingRule == "the local peripheral disconnected")
    }

    @Test(arguments: [1, 2])
    func theRemoteCentralEndedIt(_ seed: Int) throws {
        let v = try verdict(shape: "peripheral-peer-disconnect", seed: seed)
        #expect(v.endingRule?.hasPrefix("the remote central ended with 0x1") == true, "\(v.endingRule ?? "nil")")
    }

    /// A link where the local device was the central reads as before.
    @Test func aLocalCentralsLinkIsToldAsBefore() throws {
        let v = try verdict(shape: "write-burst", seed: 1)
        #expect(v.endingRule == "the central disconnected")
    }
}

private func scratchDirectory() -> String {
    let url = FileManager.default.temporaryDirectory.appendingPathComponent("blereplay-bumble-qa-\(UUID().uuidString)")
    try? FileManager.default.createDirectory(at: url, withIntermediateDirectories: true)
    return url.path
}
