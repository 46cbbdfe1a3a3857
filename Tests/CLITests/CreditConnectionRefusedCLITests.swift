import Foundation
import Testing
import TestSupport

/// `diagnose` names an L2CAP Credit Based Connection Response (0x18) that refuses the Enhanced
/// ATT bearers asked for (Core v5.4 Vol 3 Part A 4.25, 4.26) with its result; an accepted one,
/// or a pending one, is no finding.
@Suite("blereplay diagnose: a refused credit-based connection")
struct CreditConnectionRefusedCLITests {
    /// A connection whose central asks for two EATT bearers (SPSM 0x0027) and gets `result`.
    func diagnose(result: UInt16) throws -> String {
        var c = SpecCapture()
        c.connectionComplete(0, handle: 0x0040, role: 0, peer: [0x51, 0x9E, 0x12, 0x3B, 0x7A, 0xC4])
        // Credit Based Connection Request: code 0x17, identifier 1, length 12; SPSM, MTU 64, MPS 64, credits 10, SCIDs 0x0040 0x0041.
        c.l2cap(10, handle: 0x0040, cid: 0x0005, [0x17, 0x01] + c.le16(12) + c.le16(0x0027) + c.le16(64) + c.le16(64) + c.le16(10)
                + c.le16(0x0040) + c.le16(0x0041), received: false)
        // Credit Based Connection Response: code 0x18, identifier 1, length 12; MTU, MPS, credits, result, DCIDs 0x0000 (refused) or 0x0045 0x0046.
        let dcids: [UInt16] = result == 0 ? [0x0045, 0x0046] : [0, 0]
        c.l2cap(40, handle: 0x0040, cid: 0x0005, [0x18, 0x01] + c.le16(12) + c.le16(64) + c.le16(64) + c.le16(10) + c.le16(result)
                + dcids.flatMap { c.le16($0) }, received: true)
        c.disconnectionComplete(2_000, handle: 0x0040, reason: 0x13)
        let dir = CLI.temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: dir) }
        let path = dir.appendingPathComponent("eatt.btsnoop").path
        try c.write(to: path)
        let r = try CLI.run(["diagnose", path])
        #expect(r.status == 0, "\(r.stderr)")
        return r.stdout
    }

    @Test func aRefusalIsNamedWithItsResult() throws {
        let out = try diagnose(result: 0x0005)
        #expect(out.contains("INFO    credit-connection-refused: L2CAP credit-based connection refused: result 0x0005 Insufficient Authentication"), "\(out)")
        #expect(out.split(whereSeparator: \.isWhitespace).joined(separator: " ").contains("The peer answered a credit-based connection request with result 0x0005"), "\(out)")
    }

    @Test(arguments: [UInt16(0x0000), 0x000E]) func successOrPendingIsNoFinding(result: UInt16) throws {
        let out = try diagnose(result: result)
        #expect(out.contains("Connection 1"), "\(out)")
        #expect(!out.contains("credit-connection-refused"), "\(out)")
    }
}
