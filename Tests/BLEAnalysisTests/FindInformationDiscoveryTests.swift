import Testing
import BLECore
import BLEDecode
@testable import BLEAnalysis

/// A database learned from Find Information (handle -> type, Core v5.4 Vol 3 Part F 3.4.3.2) and
/// reads of the characteristic declarations (Vol 3 Part G 3.3.1), in any order and mixed with
/// Discover All Characteristics (Read By Type 0x2803, 4.6.1): the declarations become
/// characteristics, their values are not descriptors, what follows a value is its descriptors.
///
/// The server: 0x0001 «Primary Service» 180F; 0x0002 «Characteristic» (read, notify) -> 0x0003
/// 2A19; 0x0004 CCCD; 0x0005 2904; 0x0006 «Characteristic» (read) -> 0x0007 2A29, read by type;
/// 0x0008 «Characteristic» never read, 0x0009 2A24 after it, 0x000A 2901.
@Suite("GATT from Find Information and declaration reads")
struct FindInformationDiscoveryTests {
    static func pdu(_ packet: Int, _ sent: Bool, _ bytes: [UInt8]) -> StoredATTPDU {
        StoredATTPDU(packetID: packet, timestamp: Int64(packet), direction: sent ? .sent : .received,
                     opcode: ATTOpcode(bytes[0]), pdu: try? ATTPDU(decoding: bytes[...]), bytes: bytes)
    }

    /// Find Information 0x0001-0xFFFF, answered in one 16-bit response (format 0x01).
    static let findInformation: [(Bool, [UInt8])] = [
        (true, [0x04, 0x01, 0x00, 0xFF, 0xFF]),
        (false, [0x05, 0x01, 0x01, 0x00, 0x00, 0x28, 0x02, 0x00, 0x03, 0x28, 0x03, 0x00, 0x19, 0x2A, 0x04, 0x00, 0x02, 0x29,
                 0x05, 0x00, 0x04, 0x29, 0x06, 0x00, 0x03, 0x28, 0x07, 0x00, 0x29, 0x2A, 0x08, 0x00, 0x03, 0x28,
                 0x09, 0x00, 0x24, 0x2A, 0x0A, 0x00, 0x01, 0x29]),
    ]
    /// Read 0x0002: properties 0x12, value handle 0x0003, UUID 2A19.
    static let readDeclaration: [(Bool, [UInt8])] = [(true, [0x0A, 0x02, 0x00]), (false, [0x0B, 0x12, 0x03, 0x00, 0x19, 0x2A])]
    /// Read By Type 0x2803 over 0x0006-0x0007: 0x0006 properties 0x02, value 0x0007, 2A29.
    static let readByType: [(Bool, [UInt8])] = [
        (true, [0x08, 0x06, 0x00, 0x07, 0x00, 0x03, 0x28]), (false, [0x09, 0x07, 0x06, 0x00, 0x02, 0x07, 0x00, 0x29, 0x2A]),
    ]
    /// Read 0x0008 refused (Read Not Permitted): the declaration stays unknown.
    static let refusedRead: [(Bool, [UInt8])] = [(true, [0x0A, 0x08, 0x00]), (false, [0x01, 0x0A, 0x08, 0x00, 0x02])]

    static func database(_ steps: [[(Bool, [UInt8])]]) -> GATTDatabase {
        var r = GATTReconstructor()
        for (i, (sent, bytes)) in steps.flatMap({ $0 }).enumerated() { r.add(pdu(i + 1, sent, bytes)) }
        return r.database(.remote)
    }

    @Test(arguments: [
        [findInformation, readDeclaration, readByType, refusedRead],
        [readDeclaration, readByType, refusedRead, findInformation],
        [readByType, findInformation, refusedRead, readDeclaration],
    ])
    func theOrderOfTheProceduresDoesNotMatter(_ steps: [[(Bool, [UInt8])]]) throws {
        let g = Self.database(steps)
        #expect(g.characteristics == [
            GATTDatabase.Characteristic(uuid: BluetoothUUID(uint16: 0x2A19), declarationHandle: 2, valueHandle: 3, properties: 0x12),
            GATTDatabase.Characteristic(uuid: BluetoothUUID(uint16: 0x2A29), declarationHandle: 6, valueHandle: 7, properties: 0x02),
        ])
        // 0x0003, 0x0007 and 0x0009 are values, the declarations no descriptors.
        #expect(g.descriptors.map(\.handle) == [4, 5, 10])
        #expect(g.characteristic(owning: 4)?.uuid == BluetoothUUID(uint16: 0x2A19))
        #expect(g.characteristic(owning: 5)?.uuid == BluetoothUUID(uint16: 0x2A19))
        // 0x000A follows the declaration never read: not 2A29's; its characteristic's UUID is the
        // type of the value after that declaration (Vol 3 Part G 3.3.2).
        #expect(g.characteristic(owning: 10) == nil)
        #expect(g.characteristicUUID(owning: 10) == BluetoothUUID(uint16: 0x2A24))
        #expect(g.unreadDeclarations == [8])
        #expect(g.valueAttribute(afterUnread: 8)?.handle == 9)
        // Every handle the client named is discovered (0x0008 by Find Information).
        #expect(g.undiscoveredHandles(used: [2, 8]) == [])
    }

    @Test func aDeclarationReadInPiecesIsDecodedWhole() throws {
        // A 128-bit declaration (19 bytes) read by Read Request then Read Blob at offset 3.
        let uuid: [UInt8] = Array(1...16)
        let g = Self.database([
            [(true, [0x04, 0x01, 0x00, 0xFF, 0xFF]), (false, [0x05, 0x01, 0x02, 0x00, 0x03, 0x28])],
            [(true, [0x0A, 0x02, 0x00]), (false, [0x0B, 0x10, 0x03, 0x00])],
            [(true, [0x0C, 0x02, 0x00, 0x03, 0x00]), (false, [0x0D] + uuid)],
        ])
        #expect(g.characteristics.map(\.valueHandle) == [3])
        #expect(g.characteristics.first?.uuid == BluetoothUUID(littleEndian: uuid))
        #expect(g.characteristics.first?.properties == 0x10)
    }
}
