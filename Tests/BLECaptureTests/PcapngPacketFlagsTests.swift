import BLECore
import Testing
@testable import BLECapture

/// LINKTYPE_BLUETOOTH_HCI_H4 (187) packets carry no direction; in a pcapng the Enhanced Packet
/// Block's `epb_flags` option (draft-ietf-opsawg-pcapng 4.3.1, code 2, u32: bits 0-1 01 inbound,
/// 10 outbound) may give it, and tshark shows those packets as Rcvd / Sent.
@Suite("pcapng epb_flags direction")
struct PcapngPacketFlagsTests {
    typealias B = PcapngBlocks
    static let t: UInt64 = 1_700_000_000_000_000
    /// 02 | handle 0x040 PB 00, length 7 | L2CAP length 3, CID 4 | ATT Read Request 0A, handle 0x0003
    static let readRequest: [UInt8] = [0x02, 0x40, 0x00, 0x07, 0x00, 0x03, 0x00, 0x04, 0x00, 0x0A, 0x03, 0x00]
    /// 02 | handle 0x040 PB 10, length 7 | L2CAP length 3, CID 4 | ATT Read Response 0B 01 02
    static let readResponse: [UInt8] = [0x02, 0x40, 0x20, 0x07, 0x00, 0x03, 0x00, 0x04, 0x00, 0x0B, 0x01, 0x02]
    /// 01 | 03 0C 00: HCI_Reset
    static let reset: [UInt8] = [0x01, 0x03, 0x0C, 0x00]

    static func flags(_ value: UInt32) -> [UInt8] { B.option(2, .le32(value)) }

    @Test func epbFlagsGiveTheDirectionOfH4Packets() {
        let file = B.sectionHeader() + B.interface(linkType: 187)
            + B.enhancedPacket(timestamp: Self.t, Self.readRequest, options: Self.flags(0b10))            // outbound
            + B.enhancedPacket(timestamp: Self.t + 1, Self.readResponse,
                               options: B.option(1, Array("a comment".utf8)) + Self.flags(0b01))         // inbound, after a comment
            + B.enhancedPacket(timestamp: Self.t + 2, Self.readResponse)                                  // no options
            + B.enhancedPacket(timestamp: Self.t + 3, Self.readResponse, options: Self.flags(0))          // "not available"
            + B.enhancedPacket(timestamp: Self.t + 4, Self.reset)                                         // a command: sent
            + B.enhancedPacket(timestamp: Self.t + 5, Self.reset, options: Self.flags(0x0000_0101))       // inbound, other bits set
        let result = readAll(bytes: file)
        #expect(result.error == nil)
        #expect(result.records.map(\.direction) == [.sent, .received, .unknown, .unknown, .sent, .received])
        #expect(result.records.map(\.payload.count) == [11, 11, 11, 11, 3, 3])
    }

    /// Other link types carry their direction in the packet: LINKTYPE 201's pseudo-header wins.
    @Test func withDirectionPacketsKeepTheirOwn() {
        let file = B.sectionHeader() + B.interface(linkType: 201)
            + B.enhancedPacket(timestamp: Self.t, B.withDirection(received: true, Self.readResponse), options: Self.flags(0b10))
        #expect(readAll(bytes: file).records.map(\.direction) == [.received])
    }
}
