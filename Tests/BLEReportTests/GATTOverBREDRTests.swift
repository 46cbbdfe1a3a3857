import TestSupport
import Foundation
import Testing
@testable import BLEReport
import BLEAnalysis
import BLETimeline

/// GATT over BR/EDR (Core v5.4 Vol 3 Part G 2.1, 5.1): ATT on an L2CAP channel opened for PSM
/// 0x001F with Connection Request/Response on the BR/EDR signalling channel (Vol 3 Part A 4.2,
/// 4.3) over a classic ACL link (HCI Connection Complete, Vol 4 Part E 7.7.3). Built from spec
/// bytes; the ATT count is cross-checked with tshark, which decodes such channels.
@Suite("GATT over BR/EDR")
struct GATTOverBREDRTests {
    static let phone: [UInt8] = [0x5C, 0xF3, 0x70, 0x11, 0x22, 0x33]
    static let handle: UInt16 = 0x000C

    /// One BR/EDR link: Connection Complete, the ATT channel (our CID 0x0040, the peer's 0x0041),
    /// primary service discovery, characteristic discovery, a read, an Error Response, then
    /// Disconnection Complete. `ertm` asks for Enhanced Retransmission mode in the Configuration
    /// Request (option 0x04, mode 0x03, Vol 3 Part A 5.4).
    static func capture(ertm: Bool = false) -> SpecCapture {
        var c = SpecCapture()
        // 03 0B | 00 Status | 0C 00 Connection_Handle | BD_ADDR | 01 Link_Type ACL | 00 Encryption
        c.evt(100, 0x03, [0x00] + c.le16(handle) + phone.reversed() + [0x01, 0x00])
        // Signalling on CID 0x0001: Connection Request 02 | id 01 | len 04 00 | PSM 1F 00 | SCID 40 00
        c.l2cap(110, handle: handle, cid: 0x0001, [0x02, 0x01, 0x04, 0x00, 0x1F, 0x00, 0x40, 0x00], received: false)
        // Connection Response 03 | 01 | 08 00 | DCID 41 00 | SCID 40 00 | result 00 00 | status 00 00
        c.l2cap(120, handle: handle, cid: 0x0001, [0x03, 0x01, 0x08, 0x00, 0x41, 0x00, 0x40, 0x00, 0x00, 0x00, 0x00, 0x00],
                received: true)
        // Configuration Request 04 | 02 | len | DCID 41 00 | flags 00 00 | MTU option 01 02 00 02 (512)
        var options: [UInt8] = [0x01, 0x02, 0x00, 0x02]
        // Retransmission and Flow Control option 04 09 | mode 03 ERTM | TxWindow, MaxTransmit,
        // Retransmission/Monitor timeouts, MPS
        if ertm { options += [0x04, 0x09, 0x03, 0x3F, 0x03, 0xD0, 0x07, 0xE0, 0x2E, 0xF4, 0x01] }
        c.l2cap(130, handle: handle, cid: 0x0001, [0x04, 0x02, UInt8(4 + options.count), 0x00, 0x41, 0x00, 0x00, 0x00] + options,
                received: false)
        // Configuration Response 05 | 02 | 06 00 | SCID 40 00 | flags 00 00 | result 00 00
        c.l2cap(140, handle: handle, cid: 0x0001, [0x05, 0x02, 0x06, 0x00, 0x40, 0x00, 0x00, 0x00, 0x00, 0x00], received: true)
        // Read By Group Type Request 10 | 0001-FFFF | 2800, to the peer's CID 0x0041
        c.l2cap(200, handle: handle, cid: 0x0041, [0x10, 0x01, 0x00, 0xFF, 0xFF, 0x00, 0x28], received: false)
        // Read By Group Type Response 11 | length 06 | 0001-0005 1800 | 0006-0009 180F, to our 0x0040
        c.l2cap(230, handle: handle, cid: 0x0040, [0x11, 0x06, 0x01, 0x00, 0x05, 0x00, 0x00, 0x18, 0x06, 0x00, 0x09, 0x00, 0x0F, 0x18],
                received: true)
        c.l2cap(240, handle: handle, cid: 0x0041, [0x10, 0x0A, 0x00, 0xFF, 0xFF, 0x00, 0x28], received: false)
        // Error Response 01 | request 10 | handle 000A | 0A Attribute Not Found
        c.l2cap(260, handle: handle, cid: 0x0040, [0x01, 0x10, 0x0A, 0x00, 0x0A], received: true)
        // Read By Type Request 08 | 0006-0009 | 2803 (characteristic declarations)
        c.l2cap(270, handle: handle, cid: 0x0041, [0x08, 0x06, 0x00, 0x09, 0x00, 0x03, 0x28], received: false)
        // Read By Type Response 09 | length 07 | 0007: properties 12, value handle 0008, UUID 2A19
        c.l2cap(300, handle: handle, cid: 0x0040, [0x09, 0x07, 0x07, 0x00, 0x12, 0x08, 0x00, 0x19, 0x2A], received: true)
        // Read Request 0A | 0008; Read Response 0B | 64 (Battery Level 100 %)
        c.l2cap(310, handle: handle, cid: 0x0041, [0x0A, 0x08, 0x00], received: false)
        c.l2cap(330, handle: handle, cid: 0x0040, [0x0B, 0x64], received: true)
        c.disconnectionComplete(500, handle: handle, reason: 0x13)
        return c
    }

    func timeline(_ c: SpecCapture) throws -> (TimelineStore, String, String) {
        let dir = Support.scratch()
        let file = dir + "/bredr-att.btsnoop"
        try c.write(to: file)
        return (try Support.timeline([file], at: dir + "/t.db"), file, dir)
    }

    @Test func attOnABREDRChannelIsDecodedWithItsGATTDatabase() throws {
        let (store, file, dir) = try timeline(Self.capture())
        defer { Support.remove(dir) }
        let db = store.database
        // The link is in the connections view, as BR/EDR.
        let links = try db.rows("SELECT id, transport, peer_address, status, mtu, disconnect_reason FROM connections")
        #expect(links.count == 1)
        #expect(links.first?[1].string == "br/edr" && links.first?[2].string == "5C:F3:70:11:22:33")
        #expect(links.first?[3].int == 0 && links.first?[4].isNull == true && links.first?[5].int == 0x13)
        let id = try #require(links.first?[0].int)
        // Eight ATT PDUs on bearer 0x0040 (the requester's Source CID), all on that connection.
        let pdus = try db.rows("SELECT opcode, bearer, connection_id FROM att_pdus ORDER BY packet_id")
        #expect(pdus.map { $0[0].int ?? -1 } == [0x10, 0x11, 0x10, 0x01, 0x08, 0x09, 0x0A, 0x0B])
        #expect(pdus.allSatisfy { $0[1].int == 0x0040 && $0[2].int == id })
        #expect(pdus.count == (try Self.tsharkATTCount(file)))
        // Transactions per bearer: three answered, one Attribute Not Found.
        let outcomes = try db.rows("SELECT opcode, outcome, error_code FROM att_transactions ORDER BY request_packet_id")
        #expect(outcomes.map { $0[1].string ?? "" } == ["ok", "error", "ok", "ok"])
        #expect(outcomes[1][2].int == 0x0A)
        // The GATT database, as for LE.
        let services = try db.rows("SELECT uuid, start_handle, end_handle FROM gatt_services WHERE connection_id = ?1 ORDER BY start_handle",
                                   [.integer(Int64(id))])
        #expect(services.map { $0[0].string ?? "" } == ["1800", "180F"])
        let characteristics = try db.rows("SELECT uuid, value_handle, service_uuid FROM gatt_characteristics WHERE connection_id = ?1",
                                          [.integer(Int64(id))])
        #expect(characteristics.map { $0[0].string ?? "" } == ["2A19"] && characteristics.first?[1].int == 8)
        #expect(try db.scalarInt("SELECT count(*) FROM errors WHERE layer = 'att' AND code = 10") == 1)
        // `gatt` shows the BR/EDR peer's database.
        let device = try #require(try DeviceGATT.load(store).first { $0.address == "5C:F3:70:11:22:33" })
        #expect(device.database.services.map(\.uuid.description) == ["1800", "180F"])
        #expect(try db.scalarInt("SELECT malformed_packets FROM captures") == 0)
    }

    /// A channel configured for Enhanced Retransmission mode carries I-frames (control field,
    /// FCS): its frames are named, never read as ATT B-frames.
    @Test func aChannelOutOfBasicModeIsNotReadAsATT() throws {
        let (store, _, dir) = try timeline(Self.capture(ertm: true))
        defer { Support.remove(dir) }
        #expect(try store.database.scalarInt("SELECT count(*) FROM att_pdus") == 0)
        let named = try store.database.scalarInt("SELECT count(*) FROM packets WHERE summary LIKE '%ATT, not in Basic mode%'")
        #expect(named == 8)
    }

    /// tshark's ATT PDUs in `file` (`btatt.opcode`, one per PDU).
    static func tsharkATTCount(_ file: String) throws -> Int {
        let p = Process()
        p.executableURL = URL(fileURLWithPath: "/usr/bin/tshark")
        p.arguments = ["-r", file, "-T", "fields", "-e", "btatt.opcode"]
        let out = Pipe()
        p.standardOutput = out
        p.standardError = FileHandle.nullDevice
        try p.run()
        let data = out.fileHandleForReading.readDataToEndOfFile()
        p.waitUntilExit()
        return String(decoding: data, as: UTF8.self).split(separator: "\n").filter { !$0.isEmpty }.count
    }
}
