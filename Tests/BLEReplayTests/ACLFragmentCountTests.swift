@testable import BLEReplay
import Testing

/// The trace counts the ACL packets of a delivered PDU without building them when it keeps no
/// records (issue 12): the count must be what `aclFragments` builds.
@Suite("ACL fragment count")
struct ACLFragmentCountTests {
    /// A 244-byte notification value is a 247-byte ATT PDU, a 251-byte L2CAP frame (Core v5.4 Vol 3
    /// Part A 3.1: 4-byte basic header): 10 ACL packets of at most 27 bytes (9 x 27 + 8).
    @Test func aFullNotificationIsTenFragments() {
        #expect(HCIPacketBuilder.aclFragmentCount(payloadCount: 247, fragmentSize: 27) == 10)
        #expect(HCIPacketBuilder.aclFragmentCount(payloadCount: 23, fragmentSize: 27) == 1)
        #expect(HCIPacketBuilder.aclFragmentCount(payloadCount: 24, fragmentSize: 27) == 2)
    }

    @Test func theCountIsWhatTheBuilderMakes() {
        for size in [1, 27, 251] {
            for count in [1, 2, 22, 23, 24, 50, 247, 512, 65_531] {
                let built = HCIPacketBuilder.aclFragments(handle: 0x40, payload: [UInt8](repeating: 0xA5, count: count),
                                                          fragmentSize: size, fromHost: false)
                #expect(HCIPacketBuilder.aclFragmentCount(payloadCount: count, fragmentSize: size) == built.count,
                        "payload \(count), fragments of \(size)")
            }
        }
    }
}
