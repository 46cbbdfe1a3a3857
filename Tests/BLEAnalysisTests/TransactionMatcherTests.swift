import Testing
import BLECore
import BLEDecode
@testable import BLEAnalysis

/// ATT transaction pairing (Core v5.4 Vol 3 Part F 3.3.2-3.3.3) on PDUs built from their wire bytes.
@Suite("ATT transaction matching")
struct TransactionMatcherTests {
    /// One stored PDU from its wire bytes.
    static func pdu(_ id: Int, _ t: Int64, _ d: Direction, _ bytes: [UInt8]) -> StoredATTPDU {
        StoredATTPDU(packetID: id, timestamp: t, direction: d, opcode: ATTOpcode(bytes[0]),
                     pdu: try? ATTPDU(decoding: bytes[...]), bytes: bytes)
    }

    // 0A 21 00            Read Request, handle 0x0021
    // 0B 64               Read Response, value 0x64
    // 12 25 00 01 00      Write Request, handle 0x0025, value 01 00
    // 01 12 25 00 05      Error Response to Write Request, handle 0x0025, Insufficient Authentication
    // 1D 2A 00 07         Handle Value Indication, handle 0x002A, value 07
    // 1E                  Handle Value Confirmation
    @Test func pairsRequestsResponsesAndErrors() {
        var m = TransactionMatcher()
        m.add(Self.pdu(10, 1_000_000, .sent, [0x0A, 0x21, 0x00]))
        m.add(Self.pdu(11, 1_045_000, .received, [0x0B, 0x64]))
        m.add(Self.pdu(12, 2_000_000, .sent, [0x12, 0x25, 0x00, 0x01, 0x00]))
        m.add(Self.pdu(13, 2_090_000, .received, [0x01, 0x12, 0x25, 0x00, 0x05]))
        m.finish(disconnectedAt: nil, captureEnd: 3_000_000)
        let t = m.transactions
        #expect(t.count == 2)
        #expect(t[0].outcome == .ok && t[0].latency == 45_000 && t[0].handle == 0x21 && t[0].responsePacketID == 11)
        #expect(t[1].outcome == .error && t[1].errorCode == .insufficientAuthentication && t[1].latency == 90_000)
    }

    @Test func bothSidesCanBeClientAtOnce() {
        var m = TransactionMatcher()
        m.add(Self.pdu(1, 0, .sent, [0x0A, 0x21, 0x00]))          // local client reads
        m.add(Self.pdu(2, 10, .received, [0x0A, 0x03, 0x00]))      // peer client reads too
        m.add(Self.pdu(3, 20, .sent, [0x0B, 0x41]))                // local server answers the peer
        m.add(Self.pdu(4, 30, .received, [0x0B, 0x64]))            // peer server answers us
        m.finish(disconnectedAt: nil, captureEnd: 40)
        #expect(m.transactions.map(\.requestPacketID) == [1, 2])
        #expect(m.transactions.map(\.responsePacketID) == [4, 3])
    }

    /// Enhanced ATT (Core v5.4 Vol 3 Part G 5.4): each bearer carries its own transaction, so a
    /// client may have one request outstanding per channel, answered in any order.
    @Test func enhancedATTBearersEachHaveARequestOutstanding() {
        var m = TransactionMatcher()
        var read = Self.pdu(1, 0, .sent, [0x0A, 0x21, 0x00])            // Read on bearer 0x0040
        read.bearer = 0x0040
        var write = Self.pdu(2, 10, .sent, [0x12, 0x25, 0x00, 0x01])    // Write on bearer 0x0041
        write.bearer = 0x0041
        var written = Self.pdu(3, 20, .received, [0x13])                 // Write Response on 0x0041
        written.bearer = 0x0041
        var value = Self.pdu(4, 30, .received, [0x0B, 0x64])             // Read Response on 0x0040
        value.bearer = 0x0040
        for p in [read, write, written, value] { m.add(p) }
        m.finish(disconnectedAt: nil, captureEnd: 40)
        #expect(m.transactions.map(\.requestPacketID) == [1, 2])
        #expect(m.transactions.map(\.responsePacketID) == [4, 3])
        #expect(m.transactions.allSatisfy { $0.outcome == .ok })
        #expect(m.unmatchedResponses == 0)
    }

    @Test func indicationsPairWithConfirmations() {
        var m = TransactionMatcher()
        m.add(Self.pdu(5, 100, .received, [0x1D, 0x2A, 0x00, 0x07]))
        m.add(Self.pdu(6, 150, .sent, [0x1E]))
        m.finish(disconnectedAt: nil, captureEnd: 200)
        #expect(m.transactions.first?.outcome == .ok)
        #expect(m.transactions.first?.latency == 50)
    }

    @Test func unansweredRequestsEndAsTimeoutDisconnectedOrPending() {
        // Unanswered for 30 s before the capture ended: timeout (Vol 3 Part F 3.3.3).
        var a = TransactionMatcher()
        a.add(Self.pdu(1, 0, .sent, [0x12, 0x25, 0x00, 0x01]))
        a.finish(disconnectedAt: nil, captureEnd: 31_000_000)
        #expect(a.transactions.first?.outcome == .timeout)
        // The link dropped first: disconnected.
        var b = TransactionMatcher()
        b.add(Self.pdu(1, 0, .sent, [0x12, 0x25, 0x00, 0x01]))
        b.finish(disconnectedAt: 4_000_000, captureEnd: 40_000_000)
        #expect(b.transactions.first?.outcome == .disconnected)
        // The capture ended first: pending.
        var c = TransactionMatcher()
        c.add(Self.pdu(1, 0, .sent, [0x12, 0x25, 0x00, 0x01]))
        c.finish(disconnectedAt: nil, captureEnd: 2_000_000)
        #expect(c.transactions.first?.outcome == .pending)
    }

    // 16 30 00 00 00 41 42    Prepare Write Request handle 0x0030 offset 0 "AB"
    // 17 30 00 00 00 41 42    Prepare Write Response (echo)
    // 16 30 00 02 00 43       Prepare Write Request offset 2 "C"
    // 17 30 00 02 00 43       Prepare Write Response
    // 18 01                   Execute Write Request, write
    // 19                      Execute Write Response
    @Test func aQueuedWriteIsOneProcedure() {
        var m = TransactionMatcher()
        m.add(Self.pdu(1, 0, .sent, [0x16, 0x30, 0x00, 0x00, 0x00, 0x41, 0x42]))
        m.add(Self.pdu(2, 30, .received, [0x17, 0x30, 0x00, 0x00, 0x00, 0x41, 0x42]))
        m.add(Self.pdu(3, 60, .sent, [0x16, 0x30, 0x00, 0x02, 0x00, 0x43]))
        m.add(Self.pdu(4, 90, .received, [0x17, 0x30, 0x00, 0x02, 0x00, 0x43]))
        m.add(Self.pdu(5, 120, .sent, [0x18, 0x01]))
        m.add(Self.pdu(6, 150, .received, [0x19]))
        m.finish(disconnectedAt: nil, captureEnd: 200)
        #expect(m.transactions.count == 1)
        let t = m.transactions[0]
        #expect(t.requestPacketID == 1 && t.responsePacketID == 6 && t.latency == 150)
        #expect(t.opcode == .executeWriteRequest && t.handle == 0x30 && t.outcome == .ok)
    }

    @Test func aQueuedWriteTakesTheFirstError() {
        var m = TransactionMatcher()
        m.add(Self.pdu(1, 0, .sent, [0x16, 0x30, 0x00, 0x00, 0x00, 0x41]))
        m.add(Self.pdu(2, 10, .received, [0x01, 0x16, 0x30, 0x00, 0x09]))   // Prepare Queue Full
        m.add(Self.pdu(3, 20, .sent, [0x18, 0x00]))                       // cancel
        m.add(Self.pdu(4, 30, .received, [0x19]))
        m.finish(disconnectedAt: nil, captureEnd: 40)
        #expect(m.transactions.count == 1)
        #expect(m.transactions[0].outcome == .error && m.transactions[0].errorCode == .prepareQueueFull)
    }

    @Test func aResponseThatAnswersNothingIsCountedNotPaired() {
        var m = TransactionMatcher()
        m.add(Self.pdu(1, 0, .received, [0x0B, 0x64]))
        m.add(Self.pdu(2, 5, .sent, [0x0A, 0x21, 0x00]))
        m.add(Self.pdu(3, 9, .received, [0x13]))    // Write Response does not answer a Read Request
        m.finish(disconnectedAt: nil, captureEnd: 10)
        #expect(m.unmatchedResponses == 2)
        #expect(m.transactions.first?.outcome == .pending)
    }
}

@Suite("GATT reconstruction")
struct GATTReconstructorTests {
    // 10 01 00 FF FF 00 28             Read By Group Type Request 0x0001-0xFFFF, Primary Service
    // 11 06 01 00 05 00 0D 18          Response: length 6, handles 0x0001-0x0005, UUID 180D
    // 08 01 00 05 00 03 28             Read By Type Request 0x0001-0x0005, Characteristic
    // 09 07 02 00 10 03 00 37 2A       Response: length 7, decl 0x0002, props notify, value 0x0003, UUID 2A37
    // 04 04 00 05 00                   Find Information Request 0x0004-0x0005
    // 05 01 04 00 02 29                Response: format 16-bit, handle 0x0004 UUID 2902
    // 12 04 00 01 00                   Write Request CCCD 0x0004 = 01 00 (notifications on)
    // 1B 03 00 06 48                   Notification handle 0x0003: flags 06, 72 bpm
    @Test func rebuildsServicesCharacteristicsDescriptorsAndValues() {
        let p = TransactionMatcherTests.pdu
        var g = GATTReconstructor()
        g.add(p(1, 0, .sent, [0x10, 0x01, 0x00, 0xFF, 0xFF, 0x00, 0x28]))
        g.add(p(2, 1, .received, [0x11, 0x06, 0x01, 0x00, 0x05, 0x00, 0x0D, 0x18]))
        g.add(p(3, 2, .sent, [0x08, 0x01, 0x00, 0x05, 0x00, 0x03, 0x28]))
        g.add(p(4, 3, .received, [0x09, 0x07, 0x02, 0x00, 0x10, 0x03, 0x00, 0x37, 0x2A]))
        g.add(p(5, 4, .sent, [0x04, 0x04, 0x00, 0x05, 0x00]))
        g.add(p(6, 5, .received, [0x05, 0x01, 0x04, 0x00, 0x02, 0x29]))
        g.add(p(7, 6, .sent, [0x12, 0x04, 0x00, 0x01, 0x00]))
        g.add(p(8, 7, .received, [0x13]))
        g.add(p(9, 8, .received, [0x1B, 0x03, 0x00, 0x06, 0x48]))
        let db = g.database(.remote)
        #expect(g.database(.local).isEmpty && g.database(.local).values.isEmpty)
        #expect(db.services == [.init(uuid: BluetoothUUID(uint16: 0x180D), startHandle: 1, endHandle: 5, isPrimary: true)])
        #expect(db.characteristics == [.init(uuid: BluetoothUUID(uint16: 0x2A37), declarationHandle: 2, valueHandle: 3, properties: 0x10)])
        #expect(db.descriptors == [.init(uuid: BluetoothUUID(uint16: 0x2902), handle: 4)])
        #expect(db.characteristic(owning: 4)?.valueHandle == 3)
        #expect(db.clientConfigurations == [3: 0x0001])
        #expect(db.values[3]?.bytes == [0x06, 0x48])
        #expect(db.values[3]?.source == "notification")
        #expect(db.undiscoveredHandles(used: [3, 4, 0x30]) == [0x30])
    }

    // The same handles each way on one link (Core v5.4 Vol 3 Part G 2.2):
    // rx 10 01 00 FF FF 00 28           the peer asks the local server for primary services
    // tx 10 01 00 FF FF 00 28           the local host asks the peer's
    // tx 11 06 01 00 05 00 05 18        local answer: 0x0001-0x0005 1805 Current Time
    // rx 11 06 01 00 05 00 E0 FF        peer answer: 0x0001-0x0005 FFE0
    // tx 1B 03 00 AA                    local notification on 0x0003
    // rx 1B 03 00 BB                    peer notification on 0x0003
    // rx 52 04 00 01                    the peer writes the local 0x0004 (Write Command)
    @Test func keepsTheDatabasesOfBothSidesApart() {
        let p = TransactionMatcherTests.pdu
        var g = GATTReconstructor()
        g.add(p(1, 0, .received, [0x10, 0x01, 0x00, 0xFF, 0xFF, 0x00, 0x28]))
        g.add(p(2, 1, .sent, [0x10, 0x01, 0x00, 0xFF, 0xFF, 0x00, 0x28]))
        g.add(p(3, 2, .sent, [0x11, 0x06, 0x01, 0x00, 0x05, 0x00, 0x05, 0x18]))
        g.add(p(4, 3, .received, [0x11, 0x06, 0x01, 0x00, 0x05, 0x00, 0xE0, 0xFF]))
        g.add(p(5, 4, .sent, [0x1B, 0x03, 0x00, 0xAA]))
        g.add(p(6, 5, .received, [0x1B, 0x03, 0x00, 0xBB]))
        g.add(p(7, 6, .received, [0x52, 0x04, 0x00, 0x01]))
        #expect(g.database(.remote).services == [.init(uuid: BluetoothUUID(uint16: 0xFFE0), startHandle: 1, endHandle: 5, isPrimary: true)])
        #expect(g.database(.local).services == [.init(uuid: BluetoothUUID(uint16: 0x1805), startHandle: 1, endHandle: 5, isPrimary: true)])
        #expect(g.database(.remote).values[3]?.bytes == [0xBB])
        #expect(g.database(.local).values[3]?.bytes == [0xAA])
        #expect(g.database(.remote).values[4] == nil && g.database(.local).values[4]?.bytes == [0x01])
        #expect(g.usedHandles(.local) == [4] && g.usedHandles(.remote).isEmpty)
    }

    /// Client-to-server opcodes address the other side's server; server-to-client ones come from the sender's.
    @Test(arguments: [
        (Direction.sent, UInt8(0x0A), GATTServerSide.remote), (.received, 0x0B, .remote), (.received, 0x1B, .remote),
        (.received, 0x1D, .remote), (.sent, 0x1E, .remote), (.sent, 0x52, .remote),
        (.received, 0x0A, .local), (.sent, 0x0B, .local), (.sent, 0x01, .local), (.sent, 0x1D, .local),
        (.received, 0x1E, .local), (.received, 0xD2, .local), (.unknown, 0x0B, .remote), (.sent, 0x30, .remote),
    ])
    func sideOfAPDU(_ direction: Direction, _ opcode: UInt8, _ side: GATTServerSide) {
        #expect(GATTServerSide(direction: direction, opcode: ATTOpcode(opcode)) == side)
    }
}

@Suite("Percentiles")
struct PercentileTests {
    @Test func nearestRank() {
        let v: [Int64] = [10, 20, 30, 40, 50, 60, 70, 80, 90, 100]
        #expect(Percentiles.value(v, 0.5) == 50)
        #expect(Percentiles.value(v, 0.95) == 100)
        #expect(Percentiles.value([7], 0.99) == 7)
        #expect(Percentiles.value([], 0.5) == 0)
    }
}
